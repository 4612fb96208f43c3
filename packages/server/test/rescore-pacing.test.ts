/**
 * The rescore's pace (pipeline/rescore-pacing.ts): after a run, the next waits four times what the
 * run held (rescores take at most a fifth of the database), at most two seconds, and a run asked
 * for too soon becomes a job at the pause's end under an id no running job can swallow.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RESCORE_PAUSE_MS, RESCORE_DELAY_MS, RESCORE_SHARE, RescorePacer, rescoreJobId } from '../src/pipeline/rescore-pacing.js';

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
});
