import { describe, expect, it } from 'vitest';
import { DEFAULT_SIGNAL_WEIGHTS } from '../src/signals/signal-weights.js';
import { resolveWorkspaceSettings, workspaceSettingsPatchSchema, workspaceSettingsSchema } from '../src/workspace-settings.js';

const DEFAULTS = {
  feedbackWindowHours: 24,
  dedupWindowSeconds: 10,
  publicRateLimitPerMinute: 10,
  signalWeights: { ...DEFAULT_SIGNAL_WEIGHTS },
  decayHalfLifeDays: 30,
  heavyEditPercent: 30,
  conflictDiscount: 0.5,
  implicitConsent: 'required',
  queryPrivacy: 'text',
  redactPii: false,
  redactionPatterns: [],
  kAnonymity: 10,
  retentionDays: 90,
  maxEventsPerUser: null,
  maxEvents: null,
  implicitSampleRate: 1,
  trainingBatchThresholds: {},
  compat: { unknownTraces: 'create' },
};

describe('workspace settings', () => {
  it('fills every default, all signal classes weighted', () => {
    expect(workspaceSettingsSchema.parse({})).toEqual(DEFAULTS);
    expect(resolveWorkspaceSettings(null)).toEqual(DEFAULTS);
    expect(resolveWorkspaceSettings('nonsense')).toEqual(DEFAULTS);
  });

  it('merges partial signal weights over the defaults', () => {
    const parsed = workspaceSettingsSchema.parse({ signalWeights: { retry: 2, explicit_neutral: 0.1 } });
    expect(parsed.signalWeights).toEqual({ ...DEFAULT_SIGNAL_WEIGHTS, retry: 2, explicit_neutral: 0.1 });
  });

  it.each([
    { signalWeights: { retry: 11 } },
    { signalWeights: { retry: -0.1 } },
    { signalWeights: { thumbs: 1 } },
    { decayHalfLifeDays: 0 },
    { decayHalfLifeDays: 3651 },
    { heavyEditPercent: 0 },
    { heavyEditPercent: 101 },
    { heavyEditPercent: 30.5 },
    { conflictDiscount: -0.1 },
    { conflictDiscount: 1.5 },
    { implicitConsent: 'maybe' },
    { queryPrivacy: 'md5' },
    { redactionPatterns: [{ name: 'x', pattern: '(' }] },
    { kAnonymity: 1 },
    { retentionDays: 0 },
    { implicitSampleRate: 0 },
    { implicitSampleRate: 1.5 },
  ])('refuses %o', (input) => {
    expect(workspaceSettingsSchema.safeParse(input).success).toBe(false);
    expect(workspaceSettingsPatchSchema.safeParse(input).success).toBe(false);
  });

  it('accepts the bounds', () => {
    const edge = { signalWeights: { retry: 0, outcome: 10 }, decayHalfLifeDays: 3650, heavyEditPercent: 100, conflictDiscount: 0 };
    expect(workspaceSettingsSchema.safeParse(edge).success).toBe(true);
    expect(workspaceSettingsSchema.parse({ heavyEditPercent: 1, conflictDiscount: 1, decayHalfLifeDays: 0.5 })).toMatchObject({
      heavyEditPercent: 1,
      conflictDiscount: 1,
      decayHalfLifeDays: 0.5,
    });
  });

  it('patches only the fields given; a partial weight record is valid and comes out whole', () => {
    expect(workspaceSettingsPatchSchema.parse({})).toEqual({});
    expect(workspaceSettingsPatchSchema.parse({ conflictDiscount: 0.25 })).toEqual({ conflictDiscount: 0.25 });
    expect(workspaceSettingsPatchSchema.parse({ signalWeights: { abandonment: 0.1 } })).toEqual({
      signalWeights: { ...DEFAULT_SIGNAL_WEIGHTS, abandonment: 0.1 },
    });
  });

  it('resolves stored values field by field, and signal weights class by class', () => {
    const resolved = resolveWorkspaceSettings({
      dedupWindowSeconds: 30,
      heavyEditPercent: 'lots',
      conflictDiscount: 0.75,
      decayHalfLifeDays: -1,
      signalWeights: { retry: 2, abandonment: 99, unknown_class: 3 },
    });
    expect(resolved).toEqual({
      ...DEFAULTS,
      dedupWindowSeconds: 30,
      conflictDiscount: 0.75,
      signalWeights: { ...DEFAULT_SIGNAL_WEIGHTS, retry: 2 },
    });
    expect(resolveWorkspaceSettings({ signalWeights: 'heavy' }).signalWeights).toEqual(DEFAULT_SIGNAL_WEIGHTS);
  });

  it('does not let a resolved weight table share state with the defaults', () => {
    const resolved = resolveWorkspaceSettings({});
    resolved.signalWeights.retry = 5;
    expect(resolveWorkspaceSettings({}).signalWeights.retry).toBe(0.7);
    expect(DEFAULT_SIGNAL_WEIGHTS.retry).toBe(0.7);
  });
});
