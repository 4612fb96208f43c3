/**
 * The client's queue of unsent items, kept in a storage (the browser's localStorage: it survives
 * a reload and an offline spell) with a size cap; in Node, or without storage, in memory.
 */

/** The part of the Web Storage API the queue uses (localStorage fits). */
export interface QueueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** One unsent item: a response to register or a feedback event, with its client-made id. */
export interface QueuedItem {
  kind: 'response' | 'feedback';
  body: Record<string, unknown> & { id: string };
}

/**
 * A queue persisted as one JSON value; when it passes `maxBytes`, the oldest items are dropped
 * (and reported) so the newest feedback survives.
 *
 * @example
 * const q = new PersistentQueue(localStorage, 'feedloop:queue', 262_144, (n) => console.warn(n, 'dropped'));
 */
export class PersistentQueue {
  #items: QueuedItem[] = [];

  constructor(
    private readonly storage: QueueStorage | undefined,
    private readonly key: string,
    private readonly maxBytes: number,
    private readonly onDrop: (dropped: QueuedItem[]) => void = () => undefined,
  ) {
    const saved = this.#read();
    this.#items = saved;
  }

  /** Items waiting, oldest first. */
  get items(): readonly QueuedItem[] {
    return this.#items;
  }

  /** Adds items and persists the queue (dropping the oldest past the cap). */
  push(...items: QueuedItem[]): void {
    this.#items.push(...items);
    this.#save();
  }

  /** Removes the items with these ids (sent, or refused for good). */
  remove(ids: ReadonlySet<string>): void {
    this.#items = this.#items.filter((i) => !ids.has(i.body.id));
    this.#save();
  }

  #read(): QueuedItem[] {
    if (!this.storage) return [];
    try {
      const raw = this.storage.getItem(this.key);
      const parsed: unknown = raw ? JSON.parse(raw) : [];
      return Array.isArray(parsed) ? (parsed as QueuedItem[]) : [];
    } catch {
      return [];
    }
  }

  #save(): void {
    let text = JSON.stringify(this.#items);
    const dropped: QueuedItem[] = [];
    // Characters approximate bytes closely enough for a cap (ids and JSON are ASCII).
    while (text.length > this.maxBytes && this.#items.length > 0) {
      dropped.push(this.#items.shift() as QueuedItem);
      text = JSON.stringify(this.#items);
    }
    if (dropped.length > 0) this.onDrop(dropped);
    if (!this.storage) return;
    try {
      if (this.#items.length === 0) this.storage.removeItem(this.key);
      else this.storage.setItem(this.key, text);
    } catch {
      // Storage full or forbidden (private mode): the memory copy still sends.
    }
  }
}
