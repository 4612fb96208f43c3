/**
 * The rescore's pace (pipeline/rescore-pacing.ts): after a run, the next waits four times what the
 * run held (rescores take at most a fifth of the database), at most two seconds, and a run asked
 * for too soon becomes a job at the pause's end under an id no running job can swallow; a run held
 * to its budget stops (both stores), so that the share holds however many marks wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rescoreDirtyResponsesTimed } from '../src/pipeline/rescore.js';
import { MAX_RESCORE_PAUSE_MS, RESCORE_DELAY_MS, RESCORE_RUN_MS, RESCORE_SHARE, RescorePacer, rescoreJobId } from '../src/pipeline/rescore-pacing.js';
import { BACKENDS, type TestDatabase } from './harness.js';

function pacerAt(start: number): { pacer: RescorePacer; advance(ms: number): void; now(): number } {
  let now = start;
  return { pacer: new RescorePacer(() => now), advance: (ms) => (now += ms), now: () => now };
}

describe('rescore pacing', () => {
  it('runs at once until a run is recorded, and again once its pause is over', () => {
    const c = pacerAt(1_000_000);
    expect(c.pacer.deferral()).toBeUndefined();
    c.pacer.ran(100);
    const pause = 100 * (1 / RESCORE_SHARE - 1);
    expect(pause).toBe(400);
    const deferral = c.pacer.deferral();
    expect(deferral).toBeDefined();
    // The job runs at the first window boundary at or after the pause's end.
    const runsAt = c.now() + (deferral?.delayMs ?? 0);
    expect(runsAt).toBeGreaterThanOrEqual(c.now() + pause);
    expect(runsAt).toBeLessThan(c.now() + pause + RESCORE_DELAY_MS);
    expect(runsAt % RESCORE_DELAY_MS).toBe(0);
    c.advance(pause - 1);
    expect(c.pacer.deferral()).toBeDefined();
    c.advance(1);
    expect(c.pacer.deferral()).toBeUndefined();
  });

  it('never pauses longer than the bound, and not at all after a run that held nothing', () => {
    const c = pacerAt(5_000_250);
    c.pacer.ran(60_000);
    expect(c.pacer.deferral()?.delayMs).toBeLessThanOrEqual(MAX_RESCORE_PAUSE_MS + RESCORE_DELAY_MS);
    c.advance(MAX_RESCORE_PAUSE_MS);
    expect(c.pacer.deferral()).toBeUndefined();
    c.pacer.ran(0);
    expect(c.pacer.deferral()).toBeUndefined();
  });

  it("gives a deferred job an id apart from the window's job, later with each later pause", () => {
    const c = pacerAt(7_000_100);
    c.pacer.ran(50);
    const first = c.pacer.deferral()?.jobId;
    expect(first).toMatch(/^rescore-after-\d+$/);
    // The job of the window the deferred one runs in may be the one running: a shared id was dropped.
    expect(first).not.toBe(rescoreJobId(c.now() + (c.pacer.deferral()?.delayMs ?? 0)));
    c.advance(400);
    c.pacer.ran(300);
    expect(c.pacer.deferral()?.jobId).not.toBe(first);
  });

  it('bounds a run so that, paused after, it holds at most its share', () => {
    const c = pacerAt(9_000_000);
    c.pacer.ran(RESCORE_RUN_MS);
    // The pause that follows a run at its budget is the longest: the share is exactly RESCORE_SHARE.
    expect(RESCORE_RUN_MS / (RESCORE_RUN_MS + MAX_RESCORE_PAUSE_MS)).toBeCloseTo(RESCORE_SHARE, 12);
    c.advance(MAX_RESCORE_PAUSE_MS - 1);
    expect(c.pacer.deferral()).toBeDefined();
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`a rescore run's budget on ${backend.name}`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await backend.open();
    });
    afterAll(async () => {
      await t?.close();
    });

    it('starts no transaction past its budget, says marks are left, and the next run takes them', async () => {
      // More marks than a transaction takes (200 at most): marks of responses gone rescore to nothing.
      await t.db.query(`INSERT INTO score_dirty (workspace_id, response_id) SELECT 'ws_budget', 'r' || g FROM generate_series(1, 250) AS g`);
      const left = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM score_dirty WHERE workspace_id = 'ws_budget'`))[0]?.n;
      const first = await rescoreDirtyResponsesTimed(t.db, new Date(), 0);
      expect(first.more).toBe(true);
      expect(first.rescored).toBeGreaterThan(0);
      expect(first.rescored).toBeLessThan(250);
      expect(await left()).toBe(250 - first.rescored);
      const rest = await rescoreDirtyResponsesTimed(t.db);
      expect(rest).toMatchObject({ rescored: 250 - first.rescored, more: false });
      expect(await left()).toBe(0);
    });
  });
}
