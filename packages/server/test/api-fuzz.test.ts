/**
 * Fuzz test of the whole API: requests generated from the OpenAPI document the app serves
 * (`/docs/json`): bodies, path parameters and query strings from each route's schemas, mixed
 * with hostile values (NUL, lone surrogates, 1 MB strings, deep nesting, 1e308, -0, wrong types,
 * duplicate JSON keys, wrong content types) and with every kind of key. Asserted on both stores:
 * no 5xx ever, every 4xx a registry code with its status, no body with a stack frame or a source
 * path (issue 25: the workspace has a failed event, whose error `GET /v1/pipeline` lists), `/readyz`
 * ready afterwards, and no row written while a group of requests was all rejected.
 *
 * A second pass sends every query and path parameter of every route a NUL, a lone surrogate (as
 * invalid UTF-8 bytes) and cut sequences, one at a time: each must be refused with a code, never a
 * 5xx and never taken (issue 22: NUL in query parameters used to reach the database).
 *
 * `FUZZ_SEED` and `FUZZ_RUNS` (requests per store, default 10,000) vary the run; the seed is printed.
 */
import { ERROR_CODES } from '@feedloop/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/store/api-keys.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { INTERNALS, insertPoisonEvent } from './poison-event.js';
import { errorCodeOf } from './error-code-of.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_707);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
/** Requests in flight at once: enough for the group commit to batch, and a group to check counts. */
const GROUP = 8;
/** A response registered before the run, so generated feedback can be accepted. */
const FUZZ_RESPONSE = 'fz-response';

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
};

interface Operation {
  method: string;
  path: string;
  body?: Schema;
  params: { name: string; in: string; schema: Schema }[];
}

const MEGABYTE = 'x'.repeat(1_048_576);
const deep = (n: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
  return v;
};
/** Nesting as deep as a generated value may be (fast-check walks values recursively); deeper ones are raw bodies. */
const DEEP = deep(60);
const DEEP_RAW = `${'{"a":['.repeat(5_000)}1${']}'.repeat(5_000)}`;

/** Values no schema wants, or that a database cannot store. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '', ' ', '__proto__', 'constructor', '../../etc/passwd', '%00', '\u202e', '😀'.repeat(50)),
  fc.constantFrom(1e308, -1e308, -0, -1, 0, 2 ** 53 + 1, 1.5, Number.MIN_VALUE),
  fc.constantFrom(true, false, null, [], {}, [[[]]], { __proto__: 1 }),
  fc.constantFrom(DEEP, MEGABYTE.slice(0, 70_000)),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A string for a schema: valid for it most of the time. */
function stringArb(s: Schema): fc.Arbitrary<string> {
  if (s.enum) return fc.constantFrom(...(s.enum as string[]));
  if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'uri' || s.format === 'url') return fc.constantFrom('http://127.0.0.1:9/hook', 'https://10.0.0.1/x', 'ftp://127.0.0.1/', 'not a url');
  const max = Math.min(s.maxLength ?? 40, 40);
  const min = Math.min(s.minLength ?? 0, max);
  // Ids: often the response the suite registered, so feedback reaches the group commit.
  if (s.pattern === '^[A-Za-z0-9_\\-.:@/]+$') {
    return fc.oneof(fc.constant(FUZZ_RESPONSE), fc.stringMatching(/^[A-Za-z0-9_\-.:@/]{1,24}$/).map((v) => `fz-${v}`.slice(0, Math.max(max, 1))));
  }
  return fc.string({ minLength: min, maxLength: max });
}

/** An arbitrary for a JSON schema, with a hostile value instead at any node now and then. */
function arbFor(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const valid = validArb(s, depth);
  return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: hostile, weight: 1 });
}

function validArb(s: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  if (!s || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  const alts = s.oneOf ?? s.anyOf;
  if (alts) return fc.oneof(...alts.map((a) => validArb(a, depth + 1)));
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'object': {
      const props = s.properties ?? {};
      const required = s.required ?? [];
      const record = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbFor(v, depth + 1)])),
        { requiredKeys: required.filter((k) => k in props) },
      );
      // Now and then a key the schema does not know.
      return fc.oneof({ arbitrary: record, weight: 8 }, { arbitrary: fc.tuple(record, fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })).map(([r, k, v]) => ({ ...(r as object), [k]: v })), weight: 1 });
    }
    case 'array':
      return fc.array(arbFor(s.items, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) });
    case 'string':
      return stringArb(s);
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1_000, -1e6), max: Math.min(s.maximum ?? 1_000, 1e6) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1_000, max: s.maximum ?? 1_000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Percent-encodes a string; a lone surrogate becomes the bytes of one (not valid UTF-8, as an attacker would send). */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return `${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, ''))}%ED%A0%80`;
  }
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  remoteAddress: string;
}

/** Raw bodies JSON.stringify cannot make: duplicate keys, broken JSON. */
const rawBodies = fc.constantFrom(
  '{"type":"thumbs_up","type":"comment","responseId":"fz-a","responseId":"fz-b"}',
  '{"events":[{"type":"thumbs_up","responseId":"fz-d"}],"events":"x"}',
  '{"id":"fz-1","query":"q","answer":"a","id":"fz-2"}',
  '{"a":',
  '',
  'null',
  '[]',
  '"\\u0000"',
  '{"responseId":"fz-x","type":"comment","payload":{"comment":"\\ud800"}}',
  '{"responseId":"fz-x","type":"comment","payload":{"comment":"a\\u0000b"}}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '1e309',
  DEEP_RAW,
);

function requestArb(ops: Operation[], keys: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...ops).chain((op) => {
    const pathParams = op.params.filter((p) => p.in === 'path');
    const queryParams = op.params.filter((p) => p.in === 'query');
    const pathArb = fc.tuple(
      ...pathParams.map((p) =>
        fc.oneof({ arbitrary: stringArb(p.schema), weight: 6 }, { arbitrary: fc.constantFrom('%00', '%ud800', 'x'.repeat(2_000), '..', '%2F..%2F', '%E0%A4%A', 'a b'), weight: 1 }),
      ),
    );
    const queryArb = fc.oneof(
      { arbitrary: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, arbFor(p.schema)])), { requiredKeys: [] }), weight: 6 },
      { arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 10 }), hostile)), weight: 1 },
    );
    const bodyArb: fc.Arbitrary<{ payload?: string; contentType?: string }> = op.body
      ? fc.oneof(
          { arbitrary: arbFor(op.body).map((b) => ({ payload: JSON.stringify(b) ?? 'null', contentType: 'application/json' })), weight: 12 },
          { arbitrary: rawBodies.map((payload) => ({ payload, contentType: 'application/json' })), weight: 2 },
          { arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/jsonx').map((contentType) => ({ payload: '{"a":1}', contentType })), weight: 1 },
          { arbitrary: fc.constant({ payload: JSON.stringify({ comment: MEGABYTE }), contentType: 'application/json' }), weight: 1 },
        )
      : fc.oneof({ arbitrary: fc.constant({}), weight: 8 }, { arbitrary: fc.constant({ payload: '{"a":1}', contentType: 'application/json' }), weight: 1 });
    return fc.tuple(pathArb, queryArb, bodyArb, keys, fc.integer({ min: 1, max: 250 }), fc.oneof({ arbitrary: fc.constant(op.method), weight: 15 }, { arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST'), weight: 1 })).map(
      ([pathValues, query, body, auth, ip, method]) => {
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => {
          const v = String(pathValues[i++]);
          return /%/.test(v) ? v : enc(v);
        });
        const qs = Object.entries(query as Record<string, unknown>)
          .map(([k, v]) => `${enc(k)}=${enc(typeof v === 'string' ? v : JSON.stringify(v) ?? '')}`)
          .join('&');
        const headers: Record<string, string> = { ...auth };
        if (body.contentType) headers['content-type'] = body.contentType;
        return {
          method,
          url: qs ? `${path}?${qs}` : path,
          headers,
          ...(body.payload !== undefined && method !== 'GET' ? { payload: body.payload } : {}),
          remoteAddress: `198.51.100.${ip}`,
        };
      },
    );
  });
}

/** The operations of the app's OpenAPI document. */
function operationsOf(doc: { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> }; parameters?: Operation['params'] }>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      ...(op.requestBody?.content?.['application/json']?.schema ? { body: op.requestBody.content['application/json'].schema } : {}),
      params: op.parameters ?? [],
    })),
  );
}


for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`API fuzz on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true' });
      const registered = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: FUZZ_RESPONSE, query: 'q', answer: 'a' } });
      expect(registered.statusCode).toBe(201);
      // A failed event: its error is on the wire (GET /v1/pipeline), and must carry no internals.
      await insertPoisonEvent(t.db, t.workspaceId, 'fz-poison');
      await t.services.pipeline.process([[t.workspaceId, 'fz-poison']]);
    });
    afterAll(() => t.close());

    const rowCount = async () =>
      (
        await t.db.query<{ n: string }>(
          `SELECT ((SELECT count(*) FROM responses) + (SELECT count(*) FROM feedback_events) + (SELECT count(*) FROM webhooks)
                  + (SELECT count(*) FROM pipeline_pending))::text AS n`,
        )
      )[0]!.n;

    it('every query and path parameter of every route: NUL, lone surrogates and bad bytes are coded 4xx, never 5xx', { timeout: 300_000 }, async () => {
      const ops = operationsOf((await t.app.inject({ method: 'GET', url: '/docs/json' })).json());
      // Percent-encoded: a NUL, a NUL inside text, a lone surrogate as UTF-8 bytes (invalid), a cut sequence.
      const values = ['%00', 'a%00b', '%ED%A0%80', 'x%E0%A4', '%F0%9F%98%80%00'];
      const problems: string[] = [];
      let sent = 0;
      const fill = (path: string, override?: [string, string]) =>
        path.replace(/\{([^}]+)\}/g, (_m, name: string) => (override && override[0] === name ? override[1] : FUZZ_RESPONSE));
      for (const op of ops) {
        const targets = op.params.filter((p) => p.in === 'query' || p.in === 'path');
        for (const param of targets) {
          for (const value of values) {
            const url = param.in === 'path' ? fill(op.path, [param.name, value]) : `${fill(op.path)}?${encodeURIComponent(param.name)}=${value}`;
            const body = op.body ? { payload: '{}', headers: { ...t.auth, 'content-type': 'application/json' } } : { headers: t.auth };
            const res = await t.app.inject({ method: op.method as 'GET', url, ...body });
            sent++;
            const what = `${op.method} ${url} → ${res.statusCode} ${res.body.slice(0, 160)}`;
            if (INTERNALS.test(res.body)) problems.push(`internals: ${what}`);
            if (res.statusCode >= 500) problems.push(`5xx: ${what}`);
            else if (res.statusCode >= 400) {
              const code = errorCodeOf(url, res.body);
              const entry = code === undefined ? undefined : ERROR_CODES[code as keyof typeof ERROR_CODES];
              if (!entry || entry.status !== res.statusCode) problems.push(`uncoded: ${what}`);
            } else if (value.includes('%00')) problems.push(`accepted a NUL: ${what}`);
          }
        }
      }
      console.log(`api-fuzz parameters on ${backend.name}: ${sent} requests`);
      expect(sent).toBeGreaterThan(100);
      expect(problems).toEqual([]);
    });

    it(`survives ${RUNS} generated requests: no 5xx, every error coded, nothing written by rejected requests`, { timeout: 600_000 }, async () => {
      console.log(`api-fuzz on ${backend.name}: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
      const ops = operationsOf((await t.app.inject({ method: 'GET', url: '/docs/json' })).json());
      expect(ops.length).toBeGreaterThanOrEqual(17);
      const other = await t.otherWorkspace();
      const keys = fc.constantFrom<Record<string, string>>(
        t.auth,
        t.auth,
        t.auth,
        { authorization: `Bearer ${t.publicKey}` },
        { authorization: `Bearer ${other.secretKey}` },
        { authorization: `Bearer ${(await createApiKey(t.db, other.workspaceId, 'public')).key}` },
        { authorization: 'Bearer fl_sk_0000000000000000000000000000' },
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: `Bearer ${t.secretKey}\u0000` .replace('\u0000', '') + ' extra' },
        {},
      );
      const started = Date.now();
      const requests = fc.sample(requestArb(ops, keys), { seed: SEED, numRuns: RUNS });
      const generatedMs = Date.now() - started;

      const problems: string[] = [];
      const statuses = new Map<number, number>();
      let checkedGroups = 0;
      for (let i = 0; i < requests.length; i += GROUP) {
        const group = requests.slice(i, i + GROUP);
        const before = await rowCount();
        const answers = await Promise.all(group.map((r) => t.app.inject({ ...r, method: r.method as 'GET' })));
        let anyWrite = false;
        answers.forEach((res, j) => {
          const req = group[j]!;
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const what = `${req.method} ${req.url.slice(0, 120)} ${req.payload?.slice(0, 120) ?? ''} → ${res.statusCode} ${res.body.slice(0, 200)}`;
          if (res.statusCode < 400) anyWrite = true;
          if (INTERNALS.test(res.body)) problems.push(`internals: ${what}`);
          if (res.statusCode >= 500) problems.push(`5xx: ${what}`);
          if (res.statusCode >= 400) {
            const code = errorCodeOf(req.url, res.body);
            const entry = code === undefined ? undefined : ERROR_CODES[code as keyof typeof ERROR_CODES];
            if (!entry) problems.push(`uncoded: ${what}`);
            else if (entry.status !== res.statusCode) problems.push(`status ${res.statusCode} for ${code}: ${what}`);
          }
        });
        if (!anyWrite) {
          checkedGroups++;
          const after = await rowCount();
          if (after !== before) problems.push(`rows ${before} → ${after} in a group whose requests were all rejected: ${group.map((r) => `${r.method} ${r.url.slice(0, 60)}`).join(' | ')}`);
        }
        if (problems.length > 20) break;
      }
      const elapsed = Date.now() - started;
      console.log(
        `api-fuzz on ${backend.name}: ${requests.length} requests in ${elapsed} ms (generation ${generatedMs} ms); ` +
          `${checkedGroups} all-rejected groups checked for writes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
      );
      expect(problems).toEqual([]);
      expect(requests.length).toBe(RUNS);
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect([ready.statusCode, ready.json().status]).toEqual([200, 'ready']);
    });
  });
}
