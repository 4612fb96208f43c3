/**
 * The dashboard's API client: every call sends the session's key (a workspace secret key, or a
 * reviewer key: issue 27), kept in sessionStorage (gone when the tab closes; never in a URL), as a
 * Bearer header. A 404 of a route this server does not have becomes {@link NotAvailable}, which
 * pages show as "not available on this server".
 */
const KEY = 'feedloop.key';
const ROLE = 'feedloop.role';

/** What the session's key may do: everything (secret) or review only (a reviewer key). */
export type Role = 'secret' | 'reviewer';

/** The key of this tab's session, if logged in. */
export const sessionKey = (): string | null => sessionStorage.getItem(KEY);
/** Keeps the key for this tab's session. */
export const saveKey = (key: string): void => sessionStorage.setItem(KEY, key);
/** Forgets the key (log out). */
export const clearKey = (): void => {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(ROLE);
};
/** The session key's role (a session from before roles existed is a secret key's). */
export const sessionRole = (): Role => (sessionStorage.getItem(ROLE) === 'reviewer' ? 'reviewer' : 'secret');
/** Keeps the session key's role, found at login. */
export const saveRole = (role: Role): void => sessionStorage.setItem(ROLE, role);

/** The route does not exist on this server (an older or partial build). */
export class NotAvailable extends Error {}

/** An API error with its stable code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Calls the API; resolves with the parsed JSON body.
 *
 * @example
 * const stats = await api<Stats>('GET', '/v1/stats');
 */
export async function api<T>(method: string, path: string, body?: unknown, key = sessionKey()): Promise<T> {
  return (await apiOrNone<T>(method, path, body, key)) ?? ({} as T);
}

/**
 * Calls the API; resolves with the parsed JSON body, or null when it answers `204 No Content`
 * (`POST /v1/review-queues/:id/next` with nothing left to review).
 *
 * @example
 * const item = await apiOrNone<Reserved>('POST', `/v1/review-queues/${id}/next`, {});
 */
export async function apiOrNone<T>(method: string, path: string, body?: unknown, key = sessionKey()): Promise<T | null> {
  const headers: Record<string, string> = { authorization: `Bearer ${key ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as { error?: { code?: string; message?: string } }) : {};
  if (res.status === 404 && json.error?.code === 'FEEDLOOP_ERR_NOT_FOUND') throw new NotAvailable(path);
  if (!res.ok) throw new ApiError(res.status, json.error?.code ?? 'FEEDLOOP_ERR_UNKNOWN', json.error?.message ?? res.statusText);
  if (res.status === 204) return null;
  return json as T;
}

/**
 * Sends a call that must survive the page going away (releasing a reservation when the tab
 * closes): `keepalive` lets it finish after unload, which `sendBeacon` would too but without the
 * key's header. Errors are ignored: the reservation expires on its own anyway.
 */
export function sendLast(method: string, path: string, body: unknown = {}): void {
  const headers = { authorization: `Bearer ${sessionKey() ?? ''}`, 'content-type': 'application/json' };
  void fetch(path, { method, keepalive: true, headers, body: JSON.stringify(body) }).catch(() => undefined);
}

/** Downloads a file from the API (the key goes in the header, so a plain link cannot do it). */
export async function download(path: string, filename: string): Promise<void> {
  const res = await fetch(path, { headers: { authorization: `Bearer ${sessionKey() ?? ''}` } });
  if (res.status === 404) throw new NotAvailable(path);
  if (!res.ok) throw new ApiError(res.status, 'FEEDLOOP_ERR_DOWNLOAD', `download failed (${res.status})`);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
