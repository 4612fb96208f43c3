/**
 * How a response's texts are stored (issue 11, ADR-016): the workspace's `queryPrivacy` keeps the
 * query as sent (`text`), only as its SHA-256 (`sha256`, written `sha256:<64 hex>`: equal
 * questions still group together in top issues and exports), or with personal data redacted
 * (`redacted`); `redactPii` also redacts the answer and the metadata's strings.
 */
import { createHash } from 'node:crypto';
import { redactPii, redactValue, type ResponseRegistration, type WorkspaceSettings } from '@feedloop/core';
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
