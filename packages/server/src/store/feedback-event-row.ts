/**
 * The one row type of `feedback_events`, the raw event log (migration 0005: partitioned by month
 * of receipt, found by id through `feedback_event_ids`). The writer, the listing and the claim
 * each read or write a subset of these columns, declared as a `Pick` of this type.
 */

/** A row of `feedback_events` as the database returns it. */
export interface FeedbackEventRow {
  workspace_id: string;
  /** Receipt order within the workspace (the listing's cursor). */
  seq: number;
  id: string;
  response_id: string;
  type: string;
  source: string;
  user_id: string | null;
  session_id: string | null;
  target_id: string | null;
  payload: unknown;
  metadata: unknown;
  edit_distance: number | null;
  occurred_at: Date;
  received_at: Date;
  /** The duplicate window's fingerprint of the content; null for types not deduplicated by content. */
  content_hash: string | null;
  /** Who voted (a verified user id, else the anonymous voter's key); null for non-votes. */
  voter: string | null;
  /** What the vote is about, so a later vote of the same voter on it replaces this one. */
  vote_slot: string | null;
  duplicate_of: string | null;
  superseded_by: string | null;
  /** Whether the event is verified for its user (secret key, or a feedback token naming them). */
  verified: boolean;
  /** 1 / the implicit sample rate it was kept at; null: not sampled. */
  sample_weight: number | null;
  /** When the event was retracted (migration 0030); null: it stands. */
  retracted_at: Date | null;
  /** The reason given with the retraction, if any. */
  retraction_reason: string | null;
}
