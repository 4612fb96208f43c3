/**
 * The parts of `POST /langsmith/runs/multipart` (the Python SDK's batch format, issue 26 §3)
 * put back together: `post.<id>` / `patch.<id>` hold a run less its big fields, which follow as
 * `post.<id>.inputs`, `.outputs`, `.events`, `.extra`, `.error`, `.serialized`; `feedback.<id>`
 * holds one feedback; `attachment.<id>.<name>` holds a file (not kept: feedloop stores text).
 */
import type { ErrorBody } from '../error-codes.js';

/** One part as read from the body: its field name and its text (JSON for every part kept). */
export interface MultipartPart {
  name: string;
  text: string;
}

/** The runs and feedback of a multipart body, and the parts refused. */
export interface LangSmithMultipart {
  post: Record<string, unknown>[];
  patch: Record<string, unknown>[];
  feedback: Record<string, unknown>[];
  /** Parts that are not JSON objects where one is needed, or of an unknown kind. */
  refused: { part: string; error: ErrorBody }[];
  /** Attachment parts seen and skipped. */
  attachments: number;
}

const RUN_FIELDS = new Set(['inputs', 'outputs', 'events', 'extra', 'error', 'serialized']);

const refuse = (part: string, message: string): { part: string; error: ErrorBody } => ({
  part,
  error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: part, message: `${part}: ${message}` },
});

/**
 * Assembles the parts, in the order their main parts came. A field part whose run has no main
 * part is refused; an id's fields are merged into its run (`post.<id>.inputs` sets `inputs`).
 *
 * @example
 * assembleLangSmithMultipart([{ name: 'post.r1', text: '{"id":"r1"}' }, { name: 'post.r1.inputs', text: '{"question":"Hi?"}' }])
 * // { post: [{ id: 'r1', inputs: { question: 'Hi?' } }], patch: [], feedback: [], refused: [], attachments: 0 }
 */
export function assembleLangSmithMultipart(parts: MultipartPart[]): LangSmithMultipart {
  const out: LangSmithMultipart = { post: [], patch: [], feedback: [], refused: [], attachments: 0 };
  const runs = { post: new Map<string, Record<string, unknown>>(), patch: new Map<string, Record<string, unknown>>() };
  const fields: { kind: 'post' | 'patch'; id: string; field: string; value: unknown; part: string }[] = [];
  for (const p of parts) {
    const [kind, ...rest] = p.name.split('.');
    if (kind === 'attachment') {
      out.attachments++;
      continue;
    }
    if (kind !== 'post' && kind !== 'patch' && kind !== 'feedback') {
      out.refused.push(refuse(p.name, 'an unknown part (expected post.<id>, patch.<id>, feedback.<id> or attachment.<id>.<name>)'));
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(p.text);
    } catch {
      out.refused.push(refuse(p.name, 'not valid JSON'));
      continue;
    }
    const id = rest[0];
    if (!id) {
      out.refused.push(refuse(p.name, 'the part names no id'));
      continue;
    }
    if (kind === 'feedback') {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) out.refused.push(refuse(p.name, 'a feedback must be a JSON object'));
      else out.feedback.push({ id, ...(value as Record<string, unknown>) });
      continue;
    }
    if (rest.length === 1) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) out.refused.push(refuse(p.name, 'a run must be a JSON object'));
      else runs[kind].set(id, { id, ...(value as Record<string, unknown>) });
      continue;
    }
    const field = rest.slice(1).join('.');
    if (!RUN_FIELDS.has(field)) out.refused.push(refuse(p.name, `an unknown run field ${JSON.stringify(field)}`));
    else fields.push({ kind, id, field, value, part: p.name });
  }
  for (const f of fields) {
    const run = runs[f.kind].get(f.id);
    if (run) run[f.field] = f.value;
    else out.refused.push(refuse(f.part, `no ${f.kind}.${f.id} part for this field`));
  }
  out.post = [...runs.post.values()];
  out.patch = [...runs.patch.values()];
  return out;
}
