/**
 * The agreement pool (http/agreement-pool.ts): a big queue's report is computed in a worker
 * thread and is the same report the calling thread computes.
 */
import { queueAgreement, type AgreementReview } from '@feedloop/core';
import { afterAll, describe, expect, it } from 'vitest';
import { AgreementPool } from '../src/http/agreement-pool.js';

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

  it('computes a small read inline', async () => {
    const inline = new AgreementPool();
    expect(await inline.compute(reviews.slice(0, 30))).toEqual(queueAgreement(reviews.slice(0, 30)));
    await inline.close();
  });
});
