/**
 * An error body's registry code: feedloop's `{ error: { code } }`, or on the Langfuse drop-in's
 * routes (`/api/public/`, docs/compat.md) Langfuse's own shape `{ message, error: "<code>" }`.
 * Shared by the tests that check every route's errors are coded (api-fuzz, isolation-matrix).
 *
 * @example
 * errorCodeOf('/api/public/scores', '{"message":"…","error":"FEEDLOOP_ERR_NOT_FOUND"}') // 'FEEDLOOP_ERR_NOT_FOUND'
 */
export function errorCodeOf(url: string, body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string } | string };
    if (url.startsWith('/api/public/') && typeof parsed.error === 'string') return parsed.error;
    return typeof parsed.error === 'object' ? parsed.error?.code : undefined;
  } catch {
    return undefined;
  }
}
