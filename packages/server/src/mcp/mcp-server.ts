/**
 * The MCP server (official `@modelcontextprotocol/sdk`): the ADR-0012 `feedback` tool with the
 * seed's input schema (plus an optional `user_id`), `register_target`, `rate_response`,
 * `get_feedback`, `get_stats` and `get_user_context`. Every tool calls feedloop's own HTTP API through an {@link ApiCall}, so the
 * same validation, authentication and storage serve MCP as REST: in the server (`/mcp`) that is
 * `app.inject` with the caller's key, in `feedloop mcp` an app on the database or a running
 * server over HTTP (`FEEDLOOP_URL`).
 */
import { ERROR_CODES, PAYLOAD_SCHEMAS, type ErrorBody, type ErrorCode, type FeedbackEventType } from '@feedloop/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiCall } from './api-call.js';

/** Who is calling, when the MCP session knows it (`feedloop mcp` with `FEEDLOOP_MCP_USER_ID`). */
export interface McpSession {
  /** The user an action is taken for when the call names no `user_id`. */
  userId?: string;
}

/** The ADR-0012 actions, in the seed's order, and the event type each becomes. */
export const FEEDBACK_ACTIONS = {
  correct_nli: 'correct_label',
  flag_irrelevant: 'flag_irrelevant',
  flag_missing: 'flag_missing',
  correct_citation: 'correct_citation',
  rate_usefulness: 'rate_usefulness',
  add_note: 'add_note',
} as const satisfies Record<string, FeedbackEventType>;

/** The `feedback` tool exactly as ADR-0012 defines it. */
export const FEEDBACK_TOOL = {
  name: 'feedback',
  description: 'Submit corrections and feedback on evidence',
  inputSchema: {
    type: 'object' as const,
    properties: {
      task_id: { type: 'string' },
      action: { type: 'string', enum: Object.keys(FEEDBACK_ACTIONS) },
      target_id: { type: 'string' },
      payload: { type: 'object' },
      // Beyond the seed's schema (issue 24): who acts, so one say per voter and the cap apply.
      user_id: { type: 'string', description: "The calling user (the session's identity when absent); per-voter rules apply to it" },
    },
    required: ['task_id', 'action', 'target_id', 'payload'],
  },
};

/** `register_target`: `PUT /v1/targets/:id` as a tool (issue 24), in snake case like the seed's tool. */
export const REGISTER_TARGET_TOOL = {
  name: 'register_target',
  description: "Register a fragment, claim or page with its text, or an edge between a fragment and a claim with the model's relation, so corrections become NLI samples with real texts and claims get their confidence recomputed",
  inputSchema: {
    type: 'object' as const,
    properties: {
      target_id: { type: 'string' },
      kind: { type: 'string', enum: ['fragment', 'claim', 'edge', 'page'] },
      text: { type: 'string' },
      fragment_id: { type: 'string' },
      claim_id: { type: 'string' },
      relation: { type: 'string' },
      confidence: { type: 'number', minimum: 0, maximum: 1 },
    },
    required: ['target_id', 'kind'],
  },
};

const TOOLS = [
  FEEDBACK_TOOL,
  REGISTER_TARGET_TOOL,
  {
    name: 'rate_response',
    description: 'Rate an AI response: thumbs up or down, or 1-5 stars, with an optional comment',
    inputSchema: {
      type: 'object' as const,
      properties: {
        response_id: { type: 'string' },
        thumbs: { type: 'string', enum: ['up', 'down'] },
        rating: { type: 'integer', minimum: 1, maximum: 5 },
        comment: { type: 'string' },
        user_id: { type: 'string' },
      },
      required: ['response_id'],
    },
  },
  {
    name: 'get_feedback',
    description: 'List feedback events, newest first, by response, user or session',
    inputSchema: {
      type: 'object' as const,
      properties: { response_id: { type: 'string' }, user_id: { type: 'string' }, session_id: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 1000 } },
    },
  },
  {
    name: 'get_stats',
    description: "The workspace's live counters of a UTC day (default today)",
    inputSchema: { type: 'object' as const, properties: { day: { type: 'string', description: 'YYYY-MM-DD' } } },
  },
  {
    name: 'get_user_context',
    description: "A user's memory: mistakes to avoid, style preferences, domain calibration, as a prompt block",
    inputSchema: { type: 'object' as const, properties: { user_id: { type: 'string' }, explain: { type: 'boolean' } }, required: ['user_id'] },
  },
];

const ok = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });
/**
 * A tool error: `<code>: <message>` as text, and the wire error body (`{ error: { code, message,
 * field? } }`, as the HTTP API answers) as structured content.
 */
const failWith = (error: ErrorBody): CallToolResult => ({
  content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
  structuredContent: { error },
  isError: true,
});
/** A tool error about an argument: `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD`, its message naming the field (as the API's). */
const invalid = (field: string, message: string): CallToolResult =>
  failWith({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${field}: ${message}`, field });
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** An API answer that is not 2xx becomes a tool error naming the API's code, field and message. */
function apiError(res: { status: number; body: unknown }): CallToolResult {
  const e = (res.body as { error?: { code?: string; field?: string; message?: string } } | null)?.error;
  // The API's errors are registry-coded already; an answer without one (a proxy's page) gets the code of an internal error.
  const code = e?.code !== undefined && Object.hasOwn(ERROR_CODES, e.code) ? (e.code as ErrorCode) : 'FEEDLOOP_ERR_INTERNAL';
  return failWith({ code, message: e?.message ?? `the API answered ${res.status}`, ...(e?.field === undefined ? {} : { field: e.field }) });
}

const q = (params: Record<string, string | number | boolean | undefined>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, String(v));
  const text = s.toString();
  return text === '' ? '' : `?${text}`;
};

/** The `feedback` tool: validate, register an unknown task, submit, and answer with the target's state. */
async function feedback(api: ApiCall, args: Record<string, unknown>, session: McpSession): Promise<CallToolResult> {
  for (const field of ['task_id', 'action', 'target_id'] as const) {
    if (typeof args[field] !== 'string' || args[field] === '') return invalid(field, 'required, a non-empty string');
  }
  const action = args.action as string;
  if (!Object.hasOwn(FEEDBACK_ACTIONS, action)) return invalid('action', `must be one of ${Object.keys(FEEDBACK_ACTIONS).join(', ')}`);
  if (typeof args.payload !== 'object' || args.payload === null || Array.isArray(args.payload)) return invalid('payload', 'required, an object');
  const type = FEEDBACK_ACTIONS[action as keyof typeof FEEDBACK_ACTIONS];
  const parsed = PAYLOAD_SCHEMAS[type].safeParse(args.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ['payload', ...(issue?.path ?? []).map(String)].join('.');
    return invalid(path, `${issue?.message ?? 'invalid'} (action ${action})`);
  }
  const taskId = args.task_id as string;
  // An agent's task needs no prior call: an unknown task id is registered as a response on first use.
  const existing = await api('GET', `/v1/responses/${encodeURIComponent(taskId)}`);
  let registered = false;
  if (existing.status === 404) {
    // Marked as a placeholder: its query and empty answer are no texts for an NLI sample.
    const created = await api('POST', '/v1/responses', { id: taskId, query: `MCP task ${taskId}`, answer: '', agent: 'mcp', metadata: { mcpTask: true } });
    if (created.status >= 300) return apiError(created);
    registered = true;
  } else if (existing.status >= 300) return apiError(existing);
  if (args.user_id !== undefined && (typeof args.user_id !== 'string' || args.user_id === '')) return invalid('user_id', 'a non-empty string');
  const userId = str(args.user_id) ?? session.userId;
  const sent = await api('POST', '/v1/feedback', { responseId: taskId, type, targetId: args.target_id, payload: args.payload, ...(userId ? { userId } : {}) });
  if (sent.status >= 300) return apiError(sent);
  const target = await api('GET', `/v1/targets/${encodeURIComponent(args.target_id as string)}`);
  return ok({ ...(sent.body as object), action, type, taskRegistered: registered, target: target.status === 200 ? target.body : null });
}

/** The `register_target` tool: the arguments in snake case become `PUT /v1/targets/:id`'s body. */
async function registerTarget(api: ApiCall, args: Record<string, unknown>): Promise<CallToolResult> {
  const targetId = str(args.target_id);
  if (!targetId) return invalid('target_id', 'required, a non-empty string');
  const names: Record<string, string> = { kind: 'kind', text: 'text', fragment_id: 'fragmentId', claim_id: 'claimId', relation: 'relation', confidence: 'confidence' };
  const body: Record<string, unknown> = {};
  for (const [arg, field] of Object.entries(names)) if (args[arg] !== undefined) body[field] = args[arg];
  const res = await api('PUT', `/v1/targets/${encodeURIComponent(targetId)}`, body);
  return res.status >= 300 ? apiError(res) : ok(res.body);
}

async function call(api: ApiCall, name: string, args: Record<string, unknown>, session: McpSession): Promise<CallToolResult> {
  switch (name) {
    case 'feedback':
      return feedback(api, args, session);
    case 'register_target':
      return registerTarget(api, args);
    case 'rate_response': {
      const responseId = str(args.response_id);
      if (!responseId) return invalid('response_id', 'required, a non-empty string');
      const comment = str(args.comment);
      const userId = str(args.user_id) ?? session.userId;
      let event: object;
      if (args.rating !== undefined) event = { type: 'rating', payload: { rating: args.rating, ...(comment ? { comment } : {}) } };
      else if (args.thumbs === 'up' || args.thumbs === 'down') event = { type: `thumbs_${args.thumbs}`, payload: comment ? { comment } : {} };
      else return invalid('thumbs', 'give thumbs (up or down) or rating (1-5)');
      const res = await api('POST', '/v1/feedback', { responseId, ...(userId ? { userId } : {}), ...event });
      return res.status >= 300 ? apiError(res) : ok(res.body);
    }
    case 'get_feedback': {
      const res = await api('GET', `/v1/feedback${q({ responseId: str(args.response_id), userId: str(args.user_id), sessionId: str(args.session_id), limit: typeof args.limit === 'number' ? args.limit : undefined })}`);
      return res.status >= 300 ? apiError(res) : ok(res.body);
    }
    case 'get_stats': {
      const res = await api('GET', `/v1/stats/live${q({ day: str(args.day) })}`);
      return res.status >= 300 ? apiError(res) : ok(res.body);
    }
    case 'get_user_context': {
      const userId = str(args.user_id);
      if (!userId) return invalid('user_id', 'required, a non-empty string');
      const res = await api('GET', `/v1/users/${encodeURIComponent(userId)}/context${q({ explain: args.explain === true ? 'true' : undefined })}`);
      return res.status >= 300 ? apiError(res) : ok(res.body);
    }
    default:
      return failWith({ code: 'FEEDLOOP_ERR_NOT_FOUND', message: `no tool named ${JSON.stringify(name)}` });
  }
}

/** What the MCP server reports besides its answers. */
export interface McpServerOptions {
  /** An unexpected error of a tool call (its caller sees only `FEEDLOOP_ERR_INTERNAL`). */
  onError?: (err: unknown) => void;
}

/**
 * Builds an MCP server whose tools call `api`. Every tool error carries a registry code; an
 * unexpected one says no more than that (its details go to `options.onError`). Connect it to a transport (stdio, Streamable HTTP).
 *
 * @example
 * const server = createMcpServer(api); await server.connect(new StdioServerTransport());
 */
export function createMcpServer(api: ApiCall, session: McpSession = {}, options: McpServerOptions = {}): Server {
  const server = new Server({ name: 'feedloop', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return await call(api, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, session);
    } catch (err) {
      // The error's own text may name internals (a path, an address): it goes to the log only.
      options.onError?.(err);
      return failWith({ code: 'FEEDLOOP_ERR_INTERNAL', message: ERROR_CODES.FEEDLOOP_ERR_INTERNAL.description });
    }
  });
  return server;
}
