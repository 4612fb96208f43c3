import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, statusOf } from '../src/index.js';

describe('error registry', () => {
  it('documents every code with its status in docs/errors.md, and nothing else', () => {
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `(FEEDLOOP_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    const registry = Object.entries(ERROR_CODES).map(([code, e]) => [code, e.status]);
    expect(documented).toEqual(registry);
  });

  it('gives client errors 4xx and server trouble 5xx', () => {
    expect(statusOf('FEEDLOOP_ERR_RATE_LIMITED')).toBe(429);
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^FEEDLOOP_ERR_[A-Z]+_[A-Z_]+$|^FEEDLOOP_ERR_[A-Z]+$/);
      expect(status >= 400 && status < 600).toBe(true);
    }
  });
});
