/**
 * Sampling of implicit signals at high volume (ADR-016): a workspace processes a fraction
 * `implicitSampleRate` of them, chosen by a hash of the event's id so a retry of the same event
 * gets the same answer; each kept event stands for 1 / rate events, so counts weighted by it
 * estimate the whole without bias.
 */

/**
 * FNV-1a over the UTF-16 code units, as a number in [0, 1): cheap, deterministic and spread
 * evenly enough for a keep-or-drop decision (not a security boundary).
 */
export function unitHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // A final avalanche (murmur3's fmix32) so ids that differ in their last character spread too.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

/**
 * Whether an implicit event is kept at `rate`, and the weight it then carries (1 / rate; null at
 * rate 1, where nothing is sampled).
 *
 * @example
 * sampleDecision('ws_1', 'evt-1', 1)   // { keep: true, weight: null }
 * sampleDecision('ws_1', 'evt-1', 0.1) // { keep: false, weight: null } for about 9 ids in 10
 */
export function sampleDecision(workspaceId: string, eventId: string, rate: number): { keep: boolean; weight: number | null } {
  if (rate >= 1) return { keep: true, weight: null };
  const keep = unitHash(`${workspaceId}\u0000${eventId}`) < rate;
  return { keep, weight: keep ? 1 / rate : null };
}
