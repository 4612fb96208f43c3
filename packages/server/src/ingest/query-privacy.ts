/**
 * How a response's texts are stored (issue 11, ADR-016): the workspace's `queryPrivacy` keeps the
 * query as sent (`text`), only as its SHA-256 (`sha256`, written `sha256:<64 hex>`: equal
 * questions still group together in top issues and exports), or with personal data redacted
 * (`redacted`); `redactPii` also redacts the answer and the metadata's strings.
 */
import { createHash } from 'node:crypto';
import { redactPii, redactValue, type ResponseRegistration, type TraceUpdate, type WorkspaceSettings } from '@feedloop/core';
import { patternMatchers } from './redaction-patterns.js';

/**
 * The response as it will be stored under the workspace's privacy settings.
 *
 * @example
 * protectResponse({ id: 'r1', query: 'mail ana@x.io', answer: 'ok' }, { ...settings, queryPrivacy: 'sha256' }).query
 * // 'sha256:9c1e…'
 */
export function protectResponse<R extends ResponseRegistration>(response: R, settings: WorkspaceSettings): R {
  // Operator patterns run on RE2 (linear time), never on a backtracking RegExp.
  const patterns = patternMatchers(settings.redactionPatterns);
  let query = response.query;
  if (settings.queryPrivacy === 'sha256') query = `sha256:${createHash('sha256').update(response.query).digest('hex')}`;
  else if (settings.queryPrivacy === 'redacted' || settings.redactPii) query = redactPii(response.query, patterns).text;
  if (!settings.redactPii) return query === response.query ? response : { ...response, query };
  return {
    ...response,
    query,
    answer: redactPii(response.answer, patterns).text,
    ...(response.metadata === undefined ? {} : { metadata: redactValue(response.metadata, patterns) }),
  };
}

/**
 * A trace piece as it will be stored under the workspace's privacy settings: the same rules as
 * {@link protectResponse}, applied to the fields the piece gives.
 *
 * @example
 * protectTraceUpdate({ id: 't1', query: 'mail ana@x.io' }, { ...settings, queryPrivacy: 'redacted' }).query
 * // 'mail [EMAIL]'
 */
export function protectTraceUpdate(update: TraceUpdate, settings: WorkspaceSettings): TraceUpdate {
  const given = { id: update.id, query: update.query ?? '', answer: update.answer ?? '', ...(update.metadata === undefined ? {} : { metadata: update.metadata }) };
  const p = protectResponse(given, settings);
  if (p === given) return update;
  return {
    ...update,
    ...(update.query === undefined || update.query === '' ? {} : { query: p.query }),
    ...(update.answer === undefined ? {} : { answer: p.answer }),
    ...(p.metadata === undefined ? {} : { metadata: p.metadata }),
  };
}
