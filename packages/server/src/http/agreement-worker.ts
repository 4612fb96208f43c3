/**
 * The agreement pool's worker: runs core's `queueAgreement` in a worker thread, so a big queue's
 * bootstrap (hundreds of milliseconds of CPU at 10,000 items) never blocks the API's event loop.
 * Loaded by piscina from agreement-pool.ts; the compiled `.js` in `dist/`, the `.ts` under tsx.
 */
import { queueAgreement, type AgreementReview, type QueueAgreement } from '@feedloop/core';

/**
 * Piscina's entry point: the agreement report of a queue's reviews.
 *
 * @example
 * agreement([{ itemId: 'i1', reviewer: 'ana', label: 'approved' }, …]) // { percentAgreement, … }
 */
export default function agreement(reviews: AgreementReview[]): QueueAgreement {
  return queueAgreement(reviews);
}
