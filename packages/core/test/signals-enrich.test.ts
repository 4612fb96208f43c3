import { describe, expect, it } from 'vitest';
import { enrich } from '../src/signals/enrich.js';
import { responseContext, storedEvent } from './signals-fixtures.js';

describe('enrich', () => {
  it("takes the event's own session and user when it names them", () => {
    const event = storedEvent('thumbs_up', {}, { userId: 'ann', sessionId: 'sess-event' });
    const response = responseContext();
    expect(enrich(event, response)).toEqual({ event, response, sessionId: 'sess-event', userId: 'ann' });
  });

  it("falls back to the response's session and user", () => {
    const enriched = enrich(storedEvent('thumbs_up', {}), responseContext());
    expect(enriched).toMatchObject({ sessionId: 'sess-response', userId: 'user-response' });
  });

  it('leaves them null when neither names them', () => {
    const enriched = enrich(storedEvent('thumbs_up', {}), responseContext({ sessionId: null, userId: null }));
    expect(enriched).toMatchObject({ sessionId: null, userId: null });
  });

  it('throws a plain Error when the response is not the one the event is about', () => {
    expect(() => enrich(storedEvent('thumbs_up', {}), responseContext({ id: 'resp-other' }))).toThrow(
      new Error('enrich: event evt-1 is about response resp-001, not resp-other'),
    );
  });
});
