/**
 * Every table of the schema and what it holds about end users, for erasure (issue 11). A table
 * that is not listed here fails `test/privacy-erasure.test.ts`, so whoever adds a table decides
 * how an erasure treats it; that test also dumps every table's rows as text after an erasure and
 * searches them for the erased user's id.
 */

/** How erasure treats a table. */
export type UserDataTreatment =
  /** Rows keyed by or containing the user (or their responses and events) are deleted or stripped (store/erasure.ts). */
  | 'erased'
  /** Derived from erased rows and recomputed after the erasure (rollups, scores). */
  | 'recomputed'
  /** Holds no end-user data: configuration, anonymous counts, infrastructure. */
  | 'none';

/** Table name → treatment. */
export const USER_DATA_TABLES: Readonly<Record<string, UserDataTreatment>> = {
  responses: 'erased',
  feedback_events: 'erased',
  feedback_event_ids: 'erased',
  feedback_fingerprints: 'erased',
  feedback_current_votes: 'erased',
  feedback_signals: 'erased',
  pipeline_pending: 'erased',
  pipeline_effects: 'erased',
  webhook_deliveries: 'erased',
  score_dirty: 'erased',
  response_scores: 'erased',
  response_list_tags: 'erased',
  experiment_response_facts: 'erased',
  experiment_variant_totals: 'recomputed',
  feedback_user_stats_daily: 'erased',
  feedback_issue_counts: 'erased',
  feedback_issue_counts_weekly: 'erased',
  training_applied_events: 'erased',
  document_uses: 'none',
  user_consent: 'erased',
  user_memory_snapshots: 'erased',
  rollup_dirty: 'recomputed',
  feedback_metrics_daily: 'recomputed',
  feedback_stats_cells: 'recomputed',
  feedback_metrics_hourly: 'none',
  live_counters: 'none',
  document_effectiveness: 'none',
  audit_log: 'none',
  privacy_keys: 'none',
  workspaces: 'none',
  api_keys: 'none',
  webhooks: 'none',
  alert_rules: 'none',
  alerts: 'none',
  alert_ticks: 'none',
  experiments: 'none',
  registered_targets: 'none',
  langsmith_runs: 'erased',
  langsmith_feedback: 'erased',
  compat_feedback_ids: 'none',
  score_configs: 'none',
  training_batches: 'none',
  // Datasets (issue 27): frozen items hold responses and the feedback that decided them.
  dataset_item_changes: 'erased',
  dataset_versions: 'none',
  datasets: 'none',
  review_queues: 'none',
  review_items: 'erased',
  review_reservations: 'erased',
  reviews: 'erased',
  evaluators: 'none',
  evaluator_backfills: 'none',
  evaluator_calls: 'erased',
  feedloop_migrations: 'none',
};
