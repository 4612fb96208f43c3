/**
 * Per-workspace settings with their defaults in one place (the seeds' numbers: a 24 h feedback
 * window and 10 submissions a minute per IP from Phase 4.1; a 10 s dedup window).
 */
import { z } from 'zod';

const fields = {
  feedbackWindowHours: z.number().positive().max(24 * 365)
    .describe('Explicit feedback later than this after its response is rejected'),
  dedupWindowSeconds: z.number().min(0).max(86_400)
    .describe('The same user, response, type and payload within this many seconds is a duplicate'),
  publicRateLimitPerMinute: z.number().int().min(1).max(1_000_000)
    .describe('Feedback submissions per minute per client IP with a public key'),
};

/** Workspace settings; every field has a default, so `{}` is a valid settings object. */
export const workspaceSettingsSchema = z.strictObject({
  feedbackWindowHours: fields.feedbackWindowHours.default(24),
  dedupWindowSeconds: fields.dedupWindowSeconds.default(10),
  publicRateLimitPerMinute: fields.publicRateLimitPerMinute.default(10),
});

/** A change to settings: only the fields given change (no defaults filled in). */
export const workspaceSettingsPatchSchema = z.strictObject({
  feedbackWindowHours: fields.feedbackWindowHours.optional(),
  dedupWindowSeconds: fields.dedupWindowSeconds.optional(),
  publicRateLimitPerMinute: fields.publicRateLimitPerMinute.optional(),
});

/** Settings as stored or sent: any field may be absent. */
export type WorkspaceSettingsInput = z.input<typeof workspaceSettingsSchema>;
/** Settings with defaults applied. */
export type WorkspaceSettings = z.output<typeof workspaceSettingsSchema>;

/**
 * Settings with defaults filled in; invalid stored values fall back to the defaults field by field,
 * so a bad row never stops ingest.
 *
 * @example
 * resolveWorkspaceSettings({ dedupWindowSeconds: 30 }).feedbackWindowHours // 24
 */
export function resolveWorkspaceSettings(stored: unknown): WorkspaceSettings {
  const defaults = workspaceSettingsSchema.parse({});
  if (stored === null || typeof stored !== 'object') return defaults;
  const out: Record<string, unknown> = { ...defaults };
  for (const [key, field] of Object.entries(workspaceSettingsSchema.shape)) {
    const value = (stored as Record<string, unknown>)[key];
    const parsed = field.safeParse(value);
    if (value !== undefined && parsed.success) out[key] = parsed.data;
  }
  return out as WorkspaceSettings;
}
