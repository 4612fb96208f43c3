/**
 * What the writer needs to know of a response (that it exists in a workspace, and when it was
 * created) never changes once registered, so each process keeps the facts of responses it has
 * seen: feedback mostly arrives for recent responses, and a hit saves a round trip per flush.
 * Bounded in size and age (responses may be removed by retention).
 */

const MAX_ENTRIES = 100_000;
const MAX_AGE_MS = 10 * 60_000;

/**
 * Response creation times by workspace and response id.
 *
 * @example
 * const cache = new ResponseFactsCache();
 * cache.set('ws', 'resp-1', createdAt); cache.get('ws', 'resp-1') // createdAt
 */
export class ResponseFactsCache {
  readonly #entries = new Map<string, { createdAt: Date; storedAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The creation time of a known response, or `undefined`. */
  get(workspaceId: string, responseId: string): Date | undefined {
    const k = `${workspaceId}\u0000${responseId}`;
    const hit = this.#entries.get(k);
    if (!hit) return undefined;
    if (this.now() - hit.storedAt > MAX_AGE_MS) {
      this.#entries.delete(k);
      return undefined;
    }
    return hit.createdAt;
  }

  /** Remembers a response; the oldest entries make room when full. */
  set(workspaceId: string, responseId: string, createdAt: Date): void {
    const k = `${workspaceId}\u0000${responseId}`;
    this.#entries.delete(k);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(k, { createdAt, storedAt: this.now() });
  }
}
