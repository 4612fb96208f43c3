/**
 * Fixtures for the signal pipeline tests: a valid StoredEvent of any type (parsed through the real
 * event schema, so payload defaults apply) and the ResponseContext it is about.
 */
import { feedbackEventSchema } from '../src/event-schema.js';
import type { FeedbackEventType } from '../src/event-types.js';
import type { EnrichedEvent, ResponseContext, StoredEvent } from '../src/signals/signal-types.js';
import { resolveWorkspaceSettings, type WorkspaceSettings } from '../src/workspace-settings.js';

/** A fixed "now" for the tests. */
export const T0 = new Date('2026-11-01T12:00:00Z');
/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;
/** The response id every fixture event is about. */
export const RESPONSE_ID = 'resp-001';

/** `T0` plus some days (negative for the past). */
export function daysAfter(days: number, from: Date = T0): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

/** Default settings, optionally with some fields changed. */
export function settingsWith(stored: Record<string, unknown> = {}): WorkspaceSettings {
  return resolveWorkspaceSettings(stored);
}

/** The seed's question and SQL answer, with every optional fact filled in. */
export function responseContext(overrides: Partial<ResponseContext> = {}): ResponseContext {
  return {
    id: RESPONSE_ID,
    query: 'What were sales last month?',
    answer: 'SELECT * FROM sales',
    model: 'model-a',
    agent: 'sql-agent',
    queryType: 'analytics',
    experimentId: 'exp-1',
    variant: 'B',
    contextDocumentIds: ['doc-1', 'doc-2'],
    sessionId: 'sess-response',
    userId: 'user-response',
    createdAt: daysAfter(-1),
    ...overrides,
  };
}

/** What ingest adds to an event, all overridable (spelt out: these are the stored shapes, nullable and Date). */
export interface StoredFields {
  id: string;
  workspaceId: string;
  userId: string | null;
  sessionId: string | null;
  targetId: string | null;
  editDistance: number | null;
  occurredAt: Date;
  receivedAt: Date;
  duplicateOf: string | null;
  supersededBy: string | null;
  /** The event's metadata (e.g. the RLHF seed's tenant_id). */
  metadata?: Record<string, unknown>;
}

/**
 * A stored event of one type. `payload` is what a client would send; the real schema validates it
 * (a bad fixture fails loudly) and fills its defaults.
 */
export function storedEvent(type: FeedbackEventType, payload: unknown, overrides: Partial<StoredFields> = {}): StoredEvent {
  const parsed = feedbackEventSchema.parse({
    responseId: RESPONSE_ID,
    type,
    payload,
    // Label actions require a target.
    targetId: 'fragment-1',
  });
  const stored: StoredFields = {
    id: 'evt-1',
    workspaceId: 'ws-1',
    userId: null,
    sessionId: null,
    targetId: 'fragment-1',
    editDistance: null,
    occurredAt: T0,
    receivedAt: T0,
    duplicateOf: null,
    supersededBy: null,
    ...overrides,
  };
  // An assertion, as the server's loader does: StoredEvent intersects the validated event (whose
  // envelope fields are optional strings) with the stored fields (nullable, occurredAt a Date).
  return { ...parsed, ...stored } as StoredEvent;
}

/** A stored event already enriched with {@link responseContext} (no enrich stage involved). */
export function enrichedEvent(type: FeedbackEventType, payload: unknown, overrides: Partial<StoredFields> = {}): EnrichedEvent {
  const event = storedEvent(type, payload, overrides);
  const response = responseContext();
  return { event, response, sessionId: event.sessionId ?? response.sessionId, userId: event.userId ?? response.userId };
}

/** One valid sample payload per event type, for tests that loop over all of them. */
export const SAMPLE_PAYLOADS: Record<FeedbackEventType, unknown> = {
  thumbs_up: {},
  thumbs_down: { category: 'accuracy' },
  rating: { rating: 4 },
  skip: {},
  comment: { comment: 'fine' },
  error_categories: { categories: ['hallucination', 'other', 'hallucination'] },
  quality_scores: { accuracy: 90, completeness: 70 },
  review: { verdict: 'changes_requested', issues: ['style_issue'] },
  correction: { corrected: "SELECT * FROM sales WHERE region = 'US'", format: 'sql' },
  escalation: {},
  correct_label: { correct_relation: 'CITES' },
  flag_irrelevant: {},
  flag_missing: { missing_text: 'the 2025 figures' },
  correct_citation: { cited_fragment_id: 'frag-9', correction_type: 'add' },
  rate_usefulness: { rating: 2 },
  add_note: { note: 'see ticket 42' },
  score: { name: 'helpfulness', value: 0.7 },
  preference: { pair: [RESPONSE_ID, 'resp-002'], preferred: 'resp-002' },
  edit: { edited: 'SELECT region, sum(amount) FROM sales GROUP BY region' },
  retry: { rephrasedQuery: 'Sales last month, by region?' },
  abandon: {},
  continue: {},
  implicit_accept: { action: 'ran_query' },
  implicit_reject: {},
  outcome: { metric: 'conversion_lift', value: 3, source: 'integration' },
};
