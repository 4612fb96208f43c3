/**
 * Per-workspace settings with their defaults in one place (the seeds' numbers: a 24 h feedback
 * window and 10 submissions a minute per IP from Phase 4.1; a 10 s dedup window; ADR-004's signal
 * weights), plus the knobs of the signal pipeline: decay, heavy edits and conflict discounts.
 */
import { z } from 'zod';
import { DEFAULT_SIGNAL_WEIGHTS } from './signals/signal-weights.js';
import { SIGNAL_CLASSES, type SignalClass } from './signals/signal-types.js';
import { MAX_TRAINING_BATCH_THRESHOLD, TRAINING_BATCH_KIND_NAMES } from './training/batch-kinds.js';

/** The largest weight a workspace may give a signal class (ten times an explicit positive). */
export const MAX_SIGNAL_WEIGHT = 10;
/** Default half-life of a signal's weight: a month-old signal counts half. */
export const DEFAULT_DECAY_HALF_LIFE_DAYS = 30;
/** The longest half-life a workspace may set (about ten years: practically no decay). */
export const MAX_DECAY_HALF_LIFE_DAYS = 3650;
/** Default share of changed characters (percent) from which an edit or correction is heavy. */
export const DEFAULT_HEAVY_EDIT_PERCENT = 30;
/** Default factor applied to an earlier signal that a later one by the same user contradicts. */
export const DEFAULT_CONFLICT_DISCOUNT = 0.5;

const signalWeightValue = z.number().min(0).max(MAX_SIGNAL_WEIGHT);
/** Overrides for some signal classes; unknown class names are refused. */
const signalWeightOverrides = z.partialRecord(z.enum(SIGNAL_CLASSES), signalWeightValue);

/** Overrides merged over ADR-004's defaults, so every class has a weight. */
function withDefaultWeights(overrides: Partial<Record<SignalClass, number>>): Record<SignalClass, number> {
  return { ...DEFAULT_SIGNAL_WEIGHTS, ...overrides };
}

const fields = {
  feedbackWindowHours: z.number().positive().max(24 * 365)
    .describe('Explicit feedback later than this after its response is rejected'),
  dedupWindowSeconds: z.number().min(0).max(86_400)
    .describe('The same user, response, type and payload within this many seconds is a duplicate'),
  publicRateLimitPerMinute: z.number().int().min(1).max(1_000_000)
    .describe('Feedback submissions per minute per client IP with a public key'),
  signalWeights: signalWeightOverrides.transform(withDefaultWeights)
    .describe(`Weight per signal class (0-${MAX_SIGNAL_WEIGHT}); classes left out take the ADR-004 defaults`),
  decayHalfLifeDays: z.number().positive().max(MAX_DECAY_HALF_LIFE_DAYS)
    .describe('A signal this many days old counts half; twice as old, a quarter'),
  heavyEditPercent: z.number().int().min(1).max(100)
    .describe('An edit or correction changing at least this percentage of characters is heavy'),
  conflictDiscount: z.number().min(0).max(1)
    .describe("Factor on a user's earlier signal that their later signal contradicts"),
  // Privacy and data lifecycle (issue 11, docs/privacy.md).
  implicitConsent: z.enum(['required', 'assumed'])
    .describe('required: implicit signals only from users who opted in (ADR-004); assumed: the host app obtained consent, opt-outs still apply'),
  queryPrivacy: z.enum(['text', 'sha256', 'redacted'])
    .describe('How a response query is stored: as sent, only its SHA-256 (ADR-016), or with personal data redacted'),
  redactPii: z.boolean()
    .describe('Redact personal data (emails, phones, cards, IPs, keys, IBANs, redactionPatterns) from queries, answers and feedback texts at ingest'),
  redactionPatterns: z.array(z.strictObject({
    name: z.string().regex(/^[A-Za-z][\w-]{0,31}$/),
    pattern: z.string().min(1).max(500).refine(isCompilableRegex, 'must be a valid regular expression'),
  })).max(20)
    .describe('Extra patterns the redactor replaces with [REDACTED:<name>]'),
  kAnonymity: z.number().int().min(2).max(1_000)
    .describe('Aggregates and baselines leave out groups with fewer distinct users than this'),
  retentionDays: z.number().int().min(1).max(3_650)
    .describe('Raw events older than this many days are archived and deleted (rollups kept)'),
  maxEventsPerUser: z.number().int().min(1).max(100_000_000).nullable()
    .describe("A user's events beyond this many (oldest first) are archived and deleted; null: no limit"),
  maxEvents: z.number().int().min(1).max(1_000_000_000).nullable()
    .describe("The workspace's events beyond this many (oldest first) are archived and deleted; null: no limit (Phase 4.1: 100,000 embedded)"),
  implicitSampleRate: z.number().gt(0).max(1)
    .describe('Share of implicit signals processed; the others are acknowledged as sampled and not stored'),
  trainingBatchThresholds: z.partialRecord(z.enum(TRAINING_BATCH_KIND_NAMES), z.number().int().min(1).max(MAX_TRAINING_BATCH_THRESHOLD))
    .describe('Unused examples of a kind that make a training batch, per kind; kinds left out take FEEDLOOP_TRAINING_BATCH_THRESHOLD (50)'),
  compat: z.strictObject({
    unknownTraces: z.enum(['create', 'reject']).default('create')
      .describe('A score or feedback naming a trace not seen yet: create its response bare (completed when the trace arrives) or refuse it (404 in the protocol\'s answer)'),
  }).describe('The tracing drop-ins (Langfuse, LangSmith, OpenTelemetry; docs/compat.md)'),
};

/** Whether a string compiles as a JavaScript regular expression (the redactor's custom patterns). */
function isCompilableRegex(source: string): boolean {
  try {
    new RegExp(source, 'g');
    return true;
  } catch {
    return false;
  }
}

/** Workspace settings; every field has a default, so `{}` is a valid settings object. */
export const workspaceSettingsSchema = z.strictObject({
  feedbackWindowHours: fields.feedbackWindowHours.default(24),
  dedupWindowSeconds: fields.dedupWindowSeconds.default(10),
  publicRateLimitPerMinute: fields.publicRateLimitPerMinute.default(10),
  // prefault, not default: the empty override record goes through the merge with the defaults.
  signalWeights: fields.signalWeights.prefault({}),
  decayHalfLifeDays: fields.decayHalfLifeDays.default(DEFAULT_DECAY_HALF_LIFE_DAYS),
  heavyEditPercent: fields.heavyEditPercent.default(DEFAULT_HEAVY_EDIT_PERCENT),
  conflictDiscount: fields.conflictDiscount.default(DEFAULT_CONFLICT_DISCOUNT),
  implicitConsent: fields.implicitConsent.default('required'),
  queryPrivacy: fields.queryPrivacy.default('text'),
  redactPii: fields.redactPii.default(false),
  redactionPatterns: fields.redactionPatterns.default([]),
  kAnonymity: fields.kAnonymity.default(10),
  retentionDays: fields.retentionDays.default(90),
  maxEventsPerUser: fields.maxEventsPerUser.default(null),
  maxEvents: fields.maxEvents.default(null),
  implicitSampleRate: fields.implicitSampleRate.default(1),
  trainingBatchThresholds: fields.trainingBatchThresholds.default({}),
  compat: fields.compat.prefault({}),
});

/**
 * A change to settings: only the fields given change (no defaults filled in). `signalWeights` is
 * the exception: it is the whole weight table, so a partial record comes out with the classes it
 * leaves out at their defaults (the store replaces top-level fields, so this is what a stored
 * partial would resolve to anyway).
 */
export const workspaceSettingsPatchSchema = z.strictObject({
  feedbackWindowHours: fields.feedbackWindowHours.optional(),
  dedupWindowSeconds: fields.dedupWindowSeconds.optional(),
  publicRateLimitPerMinute: fields.publicRateLimitPerMinute.optional(),
  signalWeights: fields.signalWeights.optional(),
  decayHalfLifeDays: fields.decayHalfLifeDays.optional(),
  heavyEditPercent: fields.heavyEditPercent.optional(),
  conflictDiscount: fields.conflictDiscount.optional(),
  implicitConsent: fields.implicitConsent.optional(),
  queryPrivacy: fields.queryPrivacy.optional(),
  redactPii: fields.redactPii.optional(),
  redactionPatterns: fields.redactionPatterns.optional(),
  kAnonymity: fields.kAnonymity.optional(),
  retentionDays: fields.retentionDays.optional(),
  maxEventsPerUser: fields.maxEventsPerUser.optional(),
  maxEvents: fields.maxEvents.optional(),
  implicitSampleRate: fields.implicitSampleRate.optional(),
  trainingBatchThresholds: fields.trainingBatchThresholds.optional(),
  compat: fields.compat.optional(),
});

/** Settings as stored or sent: each field may be absent. */
export type WorkspaceSettingsInput = z.input<typeof workspaceSettingsSchema>;
/** Settings with defaults applied. */
export type WorkspaceSettings = z.output<typeof workspaceSettingsSchema>;

/**
 * Stored weight overrides merged over the defaults class by class: a bad weight for one class
 * falls back to that class's default without dropping the others' overrides.
 */
function resolveSignalWeights(stored: unknown): Record<SignalClass, number> {
  const out = withDefaultWeights({});
  if (stored === null || typeof stored !== 'object') return out;
  for (const signalClass of SIGNAL_CLASSES) {
    const parsed = signalWeightValue.safeParse((stored as Record<string, unknown>)[signalClass]);
    if (parsed.success) out[signalClass] = parsed.data;
  }
  return out;
}

/**
 * Settings with defaults filled in; invalid stored values fall back to the defaults field by field
 * (and signal weights class by class), so a bad row never stops ingest.
 *
 * @example
 * resolveWorkspaceSettings({ dedupWindowSeconds: 30 }).feedbackWindowHours // 24
 * resolveWorkspaceSettings({ signalWeights: { retry: 2 } }).signalWeights.abandonment // 0.3
 */
export function resolveWorkspaceSettings(stored: unknown): WorkspaceSettings {
  const defaults = workspaceSettingsSchema.parse({});
  if (stored === null || typeof stored !== 'object') return defaults;
  const out: Record<string, unknown> = { ...defaults };
  for (const [key, field] of Object.entries(workspaceSettingsSchema.shape)) {
    const value = (stored as Record<string, unknown>)[key];
    if (key === 'signalWeights') {
      out[key] = resolveSignalWeights(value);
      continue;
    }
    const parsed = field.safeParse(value);
    if (value !== undefined && parsed.success) out[key] = parsed.data;
  }
  return out as WorkspaceSettings;
}
