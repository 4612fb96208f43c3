import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../src/pipeline/single-flight.js';

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

describe('SingleFlight', () => {
  it('never runs two calls at once, and a call during a run makes that run go round once more', async () => {
    const flight = new SingleFlight();
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const fn = async () => {
      calls++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      await tick();
      running--;
    };
    const first = flight.run(fn);
    // Five jobs arrive while the first runs: they return at once and ask for one more round.
    await Promise.all([flight.run(fn), flight.run(fn), flight.run(fn), flight.run(fn), flight.run(fn)]);
    expect(calls).toBe(1);
    await first;
    expect(calls).toBe(2);
    expect(maxRunning).toBe(1);
    await flight.run(fn);
    expect(calls).toBe(3);
  });

  it('lets the next call run after a failed one', async () => {
    const flight = new SingleFlight();
    await expect(flight.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    let ran = false;
    await flight.run(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });
});
