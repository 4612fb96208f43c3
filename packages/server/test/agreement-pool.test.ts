/**
 * The agreement pool (http/agreement-pool.ts): a big queue's report is computed in a worker
 * thread and is the same report the calling thread computes; it is kept by its reviews' content.
 */
import { queueAgreement, type AgreementReview } from '@feedloop/core';
import { afterAll, describe, expect, it } from 'vitest';
import { AgreementPool, KEPT_REPORTS } from '../src/http/agreement-pool.js';

const labels = ['approved', 'changes_requested', 'rejected'];
const reviews: AgreementReview[] = Array.from({ length: 600 }, (_, i) =>
  [0, 1, 2].map((k) => ({
    itemId: `i${i}`,
    reviewer: `r${(i + k) % 4}`,
    label: labels[(i + ((i * 7 + k * 13) % 10 < 3 ? k + 1 : 0)) % 3]!,
    scores: { accuracy: 50 + (i % 40) + ((i + k) % 7) },
    seconds: 10 + ((i * 3 + k) % 50),
  })),
).flat();

describe('AgreementPool', () => {
  const threaded = new AgreementPool({ inlineMax: 0 });
  afterAll(async () => {
    await threaded.close();
  });

  it('computes in a worker thread the report the calling thread computes', async () => {
    const report = await threaded.compute(reviews);
    expect(report).toEqual(queueAgreement(reviews));
    expect(report.items.withTwoOrMore).toBe(600);
    expect(report.percentAgreement.value).toBeGreaterThan(0);
  });

  it('keeps a big report by its fingerprint: the same fingerprint reads it back, another computes anew', async () => {
    const pool = new AgreementPool({ inlineMax: 0 });
    try {
      const first = await pool.compute(reviews, 'f1');
      // The thread's answer is a structured clone: only a kept report is the very same object.
      expect(await pool.compute(reviews, 'f1')).toBe(first);
      expect(await pool.compute(reviews)).not.toBe(first);
      const more = [...reviews, { itemId: 'i0', reviewer: 'r3', label: 'rejected', scores: { accuracy: 10 }, seconds: 5 }];
      const changed = await pool.compute(more, 'f2');
      expect(changed).not.toBe(first);
      expect(changed).toEqual(queueAgreement(more));
      // Past KEPT_REPORTS other reports, the least recently read is computed again.
      for (let k = 0; k < KEPT_REPORTS; k++) await pool.compute(reviews.slice(k + 1), `other-${k}`);
      const again = await pool.compute(reviews, 'f1');
      expect(again).not.toBe(first);
      expect(again).toEqual(first);
    } finally {
      await pool.close();
    }
  });

  it('computes a small read inline', async () => {
    const inline = new AgreementPool();
    expect(await inline.compute(reviews.slice(0, 30))).toEqual(queueAgreement(reviews.slice(0, 30)));
    await inline.close();
  });
});
