/**
 * The embedded profile keeps up: a committed backlog of a few thousand events is processed by
 * `feedloop start` (PGlite, in-process queue) within a generous bound. A coarse guard against a
 * collapse, not a timing target (those live in `npm run bench`, bench/embedded-pipeline.bench.ts):
 * before the database got its own thread, the same 5,000 events drained at ~137 a second (36 s
 * on a quiet machine); now they take a second or two.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveWorkspaceSettings, validateFeedbackEvent, type FeedbackEvent } from '@feedloop/core';
import { bootstrap } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { migrateOpened } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open-database.js';
import { createServices } from '../src/server.js';
import type { AuthContext } from '../src/store/auth-context.js';
import { updateWorkspaceSettings } from '../src/store/workspaces.js';
import { killAllServers, startServerProcess } from './process-helpers.js';

const EVENTS = 5_000;
const RESPONSES = 500;
/** Ten times what a loaded CI machine needs, a fifth of what the collapse took on a quiet one. */
const DRAIN_BOUND_MS = 30_000;
const SECRET_KEY = 'fl_sk_drain_test_0123456789abcdef';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-drain-'));

afterAll(async () => {
  await killAllServers();
  rmSync(dir, { recursive: true, force: true });
});

/** Event `i` of a mix of votes, ratings, comments, corrections and implicit signals. */
function eventOf(i: number): FeedbackEvent {
  const responseId = `resp-${i % RESPONSES}`;
  const userId = `user-${i % 1_000}`;
  const kinds = [
    { type: 'thumbs_up', payload: {} },
    { type: 'thumbs_down', payload: { comment: `missed it (${i % 7})`, category: 'relevance' } },
    { type: 'rating', payload: { rating: 1 + (i % 5) } },
    { type: 'comment', payload: { comment: `The part on refunds ${i % 11} was unclear.` } },
    { type: 'correction', payload: { corrected: `The refund window is ${i % 40} days.`, format: 'text' } },
    { type: 'implicit_accept', payload: { action: 'copied' } },
  ];
  const checked = validateFeedbackEvent({ id: `ev-${i}`, responseId, userId, ...kinds[i % kinds.length] });
  if (!checked.ok) throw new Error(checked.error.message);
  return checked.value;
}

/** Commits the backlog into the data folder through feedloop's ingest with no worker running, as a stopped server leaves it. */
async function commitBacklog(dataDir: string): Promise<void> {
  const config = loadConfig({ FEEDLOOP_DATA_DIR: dataDir, LOG_LEVEL: 'silent', FEEDLOOP_INIT_WORKSPACE: 'drain', FEEDLOOP_INIT_SECRET_KEY: SECRET_KEY });
  const db = await openDatabase(config);
  try {
    await migrateOpened(db);
    const { workspaceId } = await bootstrap(db, config);
    if (!workspaceId) throw new Error('no workspace');
    // Every event counts: no consent gate on the implicit ones, no content dedup between look-alikes.
    const settings = { implicitConsent: 'assumed', dedupWindowSeconds: 0 } as const;
    await updateWorkspaceSettings(db, workspaceId, settings);
    const { services, close } = createServices(config, db);
    const auth: AuthContext = { keyId: 'test', workspaceId, kind: 'secret', settings: resolveWorkspaceSettings(settings) };
    const responses = Array.from({ length: RESPONSES }, (_, i) => ({ id: `resp-${i}`, query: `How long is refund window ${i}?`, answer: `The refund window is ${i % 30} days.` }));
    await services.ingest.registerResponses(auth, responses);
    for (let i = 0; i < EVENTS; i += 1_000) {
      const outcomes = await services.ingest.submitFeedback(auth, Array.from({ length: 1_000 }, (_, k) => eventOf(i + k)));
      expect(outcomes.every((o) => o.status === 'accepted')).toBe(true);
    }
    await close();
  } finally {
    await db.close();
  }
}

describe('embedded processing', () => {
  it(`drains a committed backlog of ${EVENTS} events within ${DRAIN_BOUND_MS / 1000} s of start`, { timeout: 180_000 }, async () => {
    const dataDir = join(dir, 'data');
    await commitBacklog(dataDir);
    const server = await startServerProcess({ FEEDLOOP_DATA_DIR: dataDir }, 120_000);
    const headers = { authorization: `Bearer ${SECRET_KEY}` };
    const started = Date.now();
    let pipeline: { backlog: { pending: number }; failedEvents: unknown[] } = { backlog: { pending: EVENTS }, failedEvents: [] };
    while (Date.now() - started < DRAIN_BOUND_MS) {
      pipeline = (await (await fetch(`${server.url}/v1/pipeline`, { headers })).json()) as typeof pipeline;
      if (pipeline.backlog.pending === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`[embedded drain] ${EVENTS} events pending at start: ${pipeline.backlog.pending} left after ${Date.now() - started} ms`);
    expect(pipeline.backlog.pending, `still pending after ${DRAIN_BOUND_MS} ms`).toBe(0);
    expect(pipeline.failedEvents).toEqual([]);
    // Processed, not just taken off the outbox: every event is in the live counters.
    const live = (await (await fetch(`${server.url}/v1/stats/live`, { headers })).json()) as { total: number };
    expect(live.total).toBe(EVENTS);
  });
});
