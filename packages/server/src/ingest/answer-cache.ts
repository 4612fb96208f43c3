/**
 * The answers of responses this process registered recently. A correction or an edit sent
 * without its `original` is diffed against the response's answer, which otherwise costs a round
 * trip per request before the group commit; such feedback mostly comes soon after the answer was
 * shown, i.e. soon after the response was registered, often through the same API process. A
 * registered answer never changes (registration is insert-only), so a hit is exact. Bounded in
 * characters and age (responses may be removed by retention); a miss reads the database.
 */

const MAX_CHARS = 4_000_000;
const MAX_AGE_MS = 10 * 60_000;

/**
 * Answers by workspace and response id.
 *
 * @example
 * const answers = new AnswerCache();
 * answers.set('ws', 'resp-1', 'SELECT 1'); answers.get('ws', 'resp-1') // 'SELECT 1'
 */
export class AnswerCache {
  readonly #entries = new Map<string, { answer: string; storedAt: number }>();
  #chars = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxChars = MAX_CHARS,
  ) {}

  /** The answer of a response registered here lately, or `undefined`. */
  get(workspaceId: string, responseId: string): string | undefined {
    const k = `${workspaceId}\u0000${responseId}`;
    const hit = this.#entries.get(k);
    if (!hit) return undefined;
    if (this.now() - hit.storedAt > MAX_AGE_MS) {
      this.#remove(k, hit.answer);
      return undefined;
    }
    return hit.answer;
  }

  /** Remembers a registered answer; the oldest entries make room. An answer too big to keep is not kept. */
  set(workspaceId: string, responseId: string, answer: string): void {
    if (answer.length > this.maxChars / 10) return;
    const k = `${workspaceId}\u0000${responseId}`;
    const old = this.#entries.get(k);
    if (old) this.#remove(k, old.answer);
    while (this.#chars + answer.length > this.maxChars) {
      const oldest = this.#entries.entries().next();
      if (oldest.done) break;
      this.#remove(oldest.value[0], oldest.value[1].answer);
    }
    this.#entries.set(k, { answer, storedAt: this.now() });
    this.#chars += answer.length;
  }

  #remove(k: string, answer: string): void {
    this.#entries.delete(k);
    this.#chars -= answer.length;
  }
}
