import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, type RateLimiter } from '../src/rate-limit/rate-limiter.js';
import { RedisRateLimiter } from '../src/rate-limit/redis-rate-limiter.js';
import { REDIS_URL, redisUp } from './harness.js';


const IMPLEMENTATIONS: Array<{ name: string; available: boolean; make: () => RateLimiter }> = [
  { name: 'memory', available: true, make: () => new MemoryRateLimiter() },
  { name: 'redis', available: redisUp, make: () => new RedisRateLimiter(REDIS_URL, `feedloop:test:${randomBytes(4).toString('hex')}:`) },
];

for (const impl of IMPLEMENTATIONS) {
  describe.skipIf(!impl.available)(`rate limiter conformance: ${impl.name}`, () => {
    const limiter = impl.make();
    afterAll(() => limiter.close());

    it('allows up to the limit in a window, then refuses with the time to reset', async () => {
      const decisions = [];
      for (let i = 0; i < 12; i++) decisions.push(await limiter.take('ws:1.2.3.4', 1, 10, 60_000));
      expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false, false]);
      expect(decisions[9]?.remaining).toBe(0);
      expect(decisions[11]?.resetMs).toBeGreaterThan(50_000);
      expect(decisions[11]?.resetMs).toBeLessThanOrEqual(60_000);
    });

    it('keeps keys apart', async () => {
      await limiter.take('a', 5, 5, 60_000);
      expect((await limiter.take('a', 1, 5, 60_000)).allowed).toBe(false);
      expect((await limiter.take('b', 1, 5, 60_000)).allowed).toBe(true);
    });

    it('takes a cost all or nothing', async () => {
      expect((await limiter.take('batch', 8, 10, 60_000)).allowed).toBe(true);
      const tooBig = await limiter.take('batch', 3, 10, 60_000);
      expect(tooBig).toMatchObject({ allowed: false, remaining: 2 });
      expect((await limiter.take('batch', 2, 10, 60_000)).allowed).toBe(true);
    });

    it('opens a new window when the old one ends', async () => {
      expect((await limiter.take('short', 1, 1, 150)).allowed).toBe(true);
      expect((await limiter.take('short', 1, 1, 150)).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, 250));
      expect((await limiter.take('short', 1, 1, 150)).allowed).toBe(true);
    });
  });
}
