/**
 * A cap on heavy reads (issue 22): exports, user contexts, insights and stats ranges each run many
 * statements or long ones, and 16 export loops once took `/healthz` from 1.9 ms to 3.2 s p50. At
 * most `perProcess` of them run at once in the process and `perWorkspace` in one workspace; the
 * others wait, first come first served, in a queue of at most `queue` requests for at most
 * `waitMs`, and past either bound are answered `429 FEEDLOOP_ERR_HEAVY_READS_BUSY` with
 * Retry-After. Cheap requests never wait here, so they keep their latency. A route opts in with
 * `config: { heavyRead: true }`; its slot is held until the response is sent (a streamed export
 * until its last byte) or the client goes away.
 */
import type { FastifyInstance } from 'fastify';
import { FeedloopError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is a heavy read: it runs under the heavy-read cap. */
    heavyRead?: boolean;
  }
}

/** The limits of {@link HeavyReadGate}. */
export interface HeavyReadLimits {
  perProcess: number;
  perWorkspace: number;
  queue: number;
  waitMs: number;
}

interface Waiter {
  workspaceId: string;
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Counts running heavy reads and hands free slots to waiters in arrival order (a waiter whose
 * workspace is at its own limit lets later waiters of other workspaces pass).
 *
 * @example
 * const release = await gate.acquire('ws-1'); try { await exportAll(); } finally { release(); }
 */
export class HeavyReadGate {
  #running = 0;
  readonly #perWorkspace = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(private readonly limits: HeavyReadLimits) {}

  /** Heavy reads running now, and waiting. */
  get counts(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /**
   * Waits for a slot for the workspace and resolves with its release (call it once), or rejects
   * with a 429 when the queue is full or the wait runs past `waitMs`.
   */
  acquire(workspaceId: string): Promise<() => void> {
    if (this.#fits(workspaceId)) return Promise.resolve(this.#take(workspaceId));
    if (this.#waiting.length >= this.limits.queue) return Promise.reject(busy('the queue of waiting heavy reads is full', this.limits.waitMs));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        workspaceId,
        grant: () => resolve(this.#take(workspaceId)),
        timer: setTimeout(() => {
          const at = this.#waiting.indexOf(waiter);
          if (at >= 0) this.#waiting.splice(at, 1);
          reject(busy(`no heavy-read slot came free within ${this.limits.waitMs} ms`, this.limits.waitMs));
        }, this.limits.waitMs),
      };
      this.#waiting.push(waiter);
    });
  }

  #fits(workspaceId: string): boolean {
    return this.#running < this.limits.perProcess && (this.#perWorkspace.get(workspaceId) ?? 0) < this.limits.perWorkspace;
  }

  #take(workspaceId: string): () => void {
    this.#running++;
    this.#perWorkspace.set(workspaceId, (this.#perWorkspace.get(workspaceId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      const n = (this.#perWorkspace.get(workspaceId) ?? 1) - 1;
      if (n === 0) this.#perWorkspace.delete(workspaceId);
      else this.#perWorkspace.set(workspaceId, n);
      this.#grantWaiting();
    };
  }

  #grantWaiting(): void {
    for (let i = 0; i < this.#waiting.length && this.#running < this.limits.perProcess; ) {
      const w = this.#waiting[i] as Waiter;
      if (!this.#fits(w.workspaceId)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      clearTimeout(w.timer);
      w.grant();
    }
  }
}

function busy(why: string, waitMs: number): FeedloopError {
  return new FeedloopError('FEEDLOOP_ERR_HEAVY_READS_BUSY', `too many heavy reads at once: ${why}; try again later`, {
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  });
}

/**
 * Puts the routes marked `heavyRead` under the gate: a slot is taken after validation (a bad
 * request never holds one) and given back when the response is done or the connection closes.
 *
 * @example
 * installHeavyReadGate(app, new HeavyReadGate(config.heavyReads));
 */
export function installHeavyReadGate(app: FastifyInstance, gate: HeavyReadGate): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config?.heavyRead !== true) return;
    const workspaceId = request.auth?.workspaceId ?? '';
    const release = await gate.acquire(workspaceId);
    // The client may have left while it waited: then no 'close' is coming any more.
    if (reply.raw.destroyed || reply.raw.writableFinished) {
      release();
      return;
    }
    // 'close' comes after the last byte or when the client leaves mid-stream: either frees the slot.
    reply.raw.once('close', release);
    reply.raw.once('finish', release);
  });
}
