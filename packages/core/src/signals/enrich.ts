/**
 * The enrich stage: attaches the response an event is about, and the session and user it belongs
 * to, so later stages need no lookups.
 */
import type { EnrichedEvent, ResponseContext, StoredEvent } from './signal-types.js';

/**
 * An event with its response attached. The session and user are the event's own when it names
 * them, else the response's: a thumbs vote from a widget often carries no user, but the response
 * was made for one.
 *
 * Throws a plain `Error` when the response is not the event's: that is a wiring bug in the caller,
 * and attaching the wrong response would silently score the wrong answer.
 *
 * @example
 * enrich(event, response).userId // event.userId ?? response.userId
 */
export function enrich(event: StoredEvent, response: ResponseContext): EnrichedEvent {
  if (response.id !== event.responseId) {
    throw new Error(`enrich: event ${event.id} is about response ${event.responseId}, not ${response.id}`);
  }
  return {
    event,
    response,
    sessionId: event.sessionId ?? response.sessionId,
    userId: event.userId ?? response.userId,
  };
}
