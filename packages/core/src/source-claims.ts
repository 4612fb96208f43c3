/**
 * Who may say a signal came from a reviewer or an evaluator. A public (browser) key and a
 * feedback token speak for a response's user: were they allowed `review` or `judge`, any page
 * could pass its visitors' votes off as a reviewer's and have them weighed as one. So only the
 * kinds below may claim these sources; every other caller keeps its type's own source.
 */
import type { ErrorBody } from './error-codes.js';
import type { SignalSource } from './event-types.js';

/**
 * The key kinds that may send each attributed source. A secret key belongs to the team's own
 * backend (its review tool, its evaluator runner). A reviewer key (issue 27) claims `review`: it
 * reaches only the review queue routes, which write its reviews as `review` events.
 */
export const SOURCE_CLAIMANTS = {
  review: ['secret', 'reviewer'],
  judge: ['secret'],
} as const satisfies Record<'review' | 'judge', readonly string[]>;

/**
 * The refusal for an event whose stated `source` its caller may not claim, else `undefined`.
 * `keyKind` is the caller's key kind (`secret`, `public`; a feedback token submits as `public`).
 *
 * @example
 * sourceClaimError('judge', 'public') // { code: 'FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN', field: 'source', … }
 * sourceClaimError('judge', 'secret') // undefined
 * sourceClaimError('explicit', 'public') // undefined
 */
export function sourceClaimError(source: SignalSource | undefined, keyKind: string): ErrorBody | undefined {
  if (source !== 'review' && source !== 'judge') return undefined;
  const claimants: readonly string[] = SOURCE_CLAIMANTS[source];
  if (claimants.includes(keyKind)) return undefined;
  return {
    code: 'FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN',
    message: `source: only a ${claimants.join(' or ')} key may send ${source} feedback; a ${keyKind} key (a browser, a feedback token) speaks for the user: leave source out`,
    field: 'source',
  };
}
