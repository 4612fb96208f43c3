/**
 * What ingest does for privacy before anything is written (issue 11, docs/privacy.md):
 * - consent: an event its user has not consented to, or opted out of, is rejected with
 *   `FEEDLOOP_ERR_CONSENT_REQUIRED` and never stored (each item alone, in a batch);
 * - sampling: at `implicitSampleRate` < 1, an implicit signal left out of the sample is answered
 *   `sampled` and not stored; a kept one carries the weight 1 / rate;
 * - redaction: with `redactPii`, the strings of the event's payload and metadata are redacted.
 */
import { NO_CONSENT, consentDecision, redactValue, sampleDecision, sourceOfEvent, sourceOfType, type FeedbackEvent, type WorkspaceSettings } from '@feedloop/core';
import type { ConsentReader } from './consent-reader.js';
import { patternMatchers } from './redaction-patterns.js';

/**
 * An event to write (with its sample weight; `consentUnread`: its user's consent was not read, so
 * the write must hold it back if the user has stated any), or its answer already decided.
 */
export type Screened =
  | { kind: 'write'; event: FeedbackEvent & { id: string }; sampleWeight: number | null; consentUnread: boolean }
  | { kind: 'rejected'; id: string; message: string }
  | { kind: 'sampled'; id: string };

/**
 * Whether an event's user must be read even where the check may be left to the write: "nothing
 * stated" would refuse it (the user may have opted in), or it is a judge's, whose votes and
 * duplicates are its evaluator's across users, so one held back could leave another event of the
 * same flush marked against it.
 */
function mustRead(settings: WorkspaceSettings, event: FeedbackEvent): boolean {
  return sourceOfEvent(event) === 'judge' || !consentDecision(settings.implicitConsent, NO_CONSENT, event.type, event.userId).allowed;
}

/**
 * Screens a request's events (ids already assigned) for consent, sampling and redaction: one
 * read of the stated consent of the users the events name (shared with concurrent requests), or,
 * where the reader allows it ({@link ConsentReader.mayDefer}; never with `options.read`), none:
 * the events are screened as if their users had stated nothing and go to the write marked
 * `consentUnread`. Only the users of events that "nothing stated" would refuse (a workspace that
 * requires consent to implicit signals), and of judges' events, are read then.
 *
 * @example
 * const screened = await screenFeedback(new ConsentReader(db), ws, settings, events);
 */
export async function screenFeedback(
  consent: ConsentReader,
  workspaceId: string,
  settings: WorkspaceSettings,
  events: ReadonlyArray<FeedbackEvent & { id: string }>,
  options: { read?: boolean } = {},
): Promise<Screened[]> {
  const users = [...new Set(events.flatMap((e) => (e.userId === undefined ? [] : [e.userId])))];
  const deferred = options.read !== true && users.length > 0 && consent.mayDefer(workspaceId, users.length);
  const read = deferred ? new Set(events.flatMap((e) => (e.userId !== undefined && mustRead(settings, e) ? [e.userId] : []))) : new Set(users);
  const consents = await consent.read(workspaceId, [...read]);
  const custom = settings.redactPii ? patternMatchers(settings.redactionPatterns) : [];
  return events.map((event): Screened => {
    const consent = event.userId === undefined ? NO_CONSENT : (consents.get(event.userId) ?? NO_CONSENT);
    const decision = consentDecision(settings.implicitConsent, consent, event.type, event.userId);
    if (!decision.allowed) return { kind: 'rejected', id: event.id, message: decision.message };
    let sampleWeight: number | null = null;
    if (sourceOfType(event.type) === 'implicit') {
      const sample = sampleDecision(workspaceId, event.id, settings.implicitSampleRate);
      if (!sample.keep) return { kind: 'sampled', id: event.id };
      sampleWeight = sample.weight;
    }
    const redacted = settings.redactPii
      ? ({
          ...event,
          payload: redactValue(event.payload, custom),
          ...(event.metadata === undefined ? {} : { metadata: redactValue(event.metadata, custom) }),
        } as FeedbackEvent & { id: string })
      : event;
    return { kind: 'write', event: redacted, sampleWeight, consentUnread: event.userId !== undefined && !read.has(event.userId) };
  });
}
