/**
 * Per-user consent to feedback collection (ADR-004): per signal source (explicit, implicit,
 * outcome) and per event type, and the decision ingest takes for each event from it and the
 * workspace's `implicitConsent` setting.
 */
import { z } from 'zod';
import { EVENT_TYPE_SOURCES, sourceOfType, type FeedbackEventType, type TypeSource } from '../event-types.js';

const typeNames = Object.keys(EVENT_TYPE_SOURCES) as [FeedbackEventType, ...FeedbackEventType[]];

/**
 * The body of `PUT /v1/users/:userId/consent`: each field says yes (`true`), no (`false`), or
 * nothing (left out or `null`: the default applies). `types` refines a source type by type.
 */
export const consentInputSchema = z.strictObject({
  explicit: z.boolean().nullable().optional(),
  implicit: z.boolean().nullable().optional(),
  outcome: z.boolean().nullable().optional(),
  types: z.partialRecord(z.enum(typeNames), z.boolean().nullable()).optional(),
});

/** A consent change as sent. */
export type ConsentInput = z.infer<typeof consentInputSchema>;

/** A user's stored consent; null: not stated. */
export interface Consent {
  explicit: boolean | null;
  implicit: boolean | null;
  outcome: boolean | null;
  types: Partial<Record<FeedbackEventType, boolean>>;
}

/** Nothing stated: what a user who never sent consent has. */
export const NO_CONSENT: Consent = Object.freeze({ explicit: null, implicit: null, outcome: null, types: Object.freeze({}) });

/**
 * Merges a change into a stored consent: fields left out stay, `null` clears a statement.
 *
 * @example
 * mergeConsent(NO_CONSENT, { implicit: true, types: { edit: false } }) // { implicit: true, types: { edit: false }, … }
 */
export function mergeConsent(current: Consent, change: ConsentInput): Consent {
  const pick = (k: TypeSource): boolean | null => (change[k] === undefined ? current[k] : change[k]);
  const types: Partial<Record<FeedbackEventType, boolean>> = { ...current.types };
  for (const [type, value] of Object.entries(change.types ?? {}) as Array<[FeedbackEventType, boolean | null | undefined]>) {
    if (value === null || value === undefined) delete types[type];
    else types[type] = value;
  }
  return { explicit: pick('explicit'), implicit: pick('implicit'), outcome: pick('outcome'), types };
}

/** Why an event may or may not be collected. */
export type ConsentDecision =
  | { allowed: true }
  | { allowed: false; reason: 'opted_out' | 'not_consented' | 'no_user'; message: string };

/**
 * Whether an event of `type` from a user with `consent` may be stored. A statement about the
 * type wins over one about its source; with neither, explicit feedback and outcomes are
 * collected, and implicit signals only when the workspace's `implicitConsent` is `assumed`.
 * An implicit signal without a user id has nobody who could have agreed: refused under `required`.
 *
 * @example
 * consentDecision('required', NO_CONSENT, 'edit', 'u1').allowed // false
 * consentDecision('assumed', { ...NO_CONSENT, types: { edit: false } }, 'edit', 'u1').allowed // false
 * consentDecision('required', NO_CONSENT, 'thumbs_up', 'u1').allowed // true
 */
export function consentDecision(
  implicitConsent: 'required' | 'assumed',
  consent: Consent,
  type: FeedbackEventType,
  userId: string | undefined,
): ConsentDecision {
  const source = sourceOfType(type);
  const stated = consent.types[type] ?? consent[source];
  if (stated === false) {
    return { allowed: false, reason: 'opted_out', message: `the user opted out of ${consent.types[type] === false ? `${type} signals` : `${source} signals`}; the event was not stored` };
  }
  if (stated === true || source !== 'implicit' || implicitConsent === 'assumed') return { allowed: true };
  if (userId === undefined) {
    return { allowed: false, reason: 'no_user', message: 'implicit signals need the userId of a user who consented (workspace implicitConsent is required); the event was not stored' };
  }
  return { allowed: false, reason: 'not_consented', message: `the user has not consented to implicit signals (workspace implicitConsent is required); the event was not stored` };
}
