/**
 * How the MCP tools reach feedloop's HTTP API: an {@link ApiCall}, over HTTP to a running server
 * (`feedloop mcp` with `FEEDLOOP_URL`) or injected into an app in this process (`/mcp`, and
 * `feedloop mcp` on the database), so the same validation, authentication and storage serve MCP
 * as REST.
 */
import type { FastifyInstance } from 'fastify';

/** One call of feedloop's HTTP API: method, path with query, JSON body → status and JSON answer. */
export type ApiCall = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/**
 * An {@link ApiCall} into an app in this process, sending `authorization` with every call.
 *
 * @example
 * const api = injectApi(app, `Bearer ${key}`);
 * await api('GET', '/v1/stats/live') // { status: 200, body: { … } }
 */
export function injectApi(app: Pick<FastifyInstance, 'inject'>, authorization: string): ApiCall {
  return async (method, url, body) => {
    const res = await app.inject({ method, url, headers: { authorization }, ...(body === undefined ? {} : { payload: body as object }) });
    return { status: res.statusCode, body: res.body === '' ? null : (JSON.parse(res.body) as unknown) };
  };
}

/**
 * An {@link ApiCall} to a running feedloop over HTTP (`feedloop mcp` with `FEEDLOOP_URL`).
 *
 * @example
 * const api = httpApi('http://127.0.0.1:8787', config.client.apiKey!);
 */
export function httpApi(baseUrl: string, key: string): ApiCall {
  return async (method, url, body) => {
    const res = await fetch(new URL(url, baseUrl), {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
}
