/**
 * Verbatim material from the seed documents, shared by tests and benchmarks: the reference
 * implementations feedloop must agree with, and the seeds' own example payloads.
 */
import { diffChars } from 'diff';

/** The ADR-016 edit distance, verbatim: the reference `editDistancePercent` must equal. */
export function seedEditDistance(original: string, revised: string): number {
  const changes = diffChars(original, revised);
  let totalChars = 0;
  let changedChars = 0;
  for (const change of changes) {
    totalChars += change.value.length;
    if (change.added || change.removed) changedChars += change.value.length;
  }
  return Math.round((changedChars / totalChars) * 100);
}

/** The Feedback-and-RLHF seed's event schema example, verbatim. */
export const SEED_RLHF_EVENT = {
  event_id: 'fb-abc123',
  event_type: 'feedback.submitted',
  tenant_id: 'acme-corp',
  user_id: 'user-456',
  session_id: 'sess-xyz789',
  response_id: 'resp-001',
  feedback_type: 'correction',
  feedback_source: 'explicit',
  data: {
    original_sql: 'SELECT * FROM sales',
    corrected_sql: "SELECT * FROM sales WHERE region = 'US'",
    comment: 'Need to filter by US region',
  },
  timestamp: '2025-03-15T10:05:00Z',
};
