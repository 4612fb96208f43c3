/**
 * `FEEDLOOP_TRAINING_BATCH_KINDS`: the kinds the scheduled job makes, `corrections` unless told;
 * an unknown kind stops the server at start with a message naming the variable and the kinds.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('FEEDLOOP_TRAINING_BATCH_KINDS', () => {
  it('defaults to corrections and nli, the label corrections of ADR-0012 (the other kinds are opt-in)', () => {
    expect(loadConfig({}).trainingBatchKinds).toEqual(['corrections', 'nli']);
  });

  it('takes a comma-separated list, spaces and repeats ignored', () => {
    expect(loadConfig({ FEEDLOOP_TRAINING_BATCH_KINDS: 'corrections, kto,sft,kto ,reward,nli,preference' }).trainingBatchKinds).toEqual([
      'corrections',
      'kto',
      'sft',
      'reward',
      'nli',
      'preference',
    ]);
  });

  it('refuses an unknown kind, naming it and the variable', () => {
    expect(() => loadConfig({ FEEDLOOP_TRAINING_BATCH_KINDS: 'corrections,dpo' })).toThrow(/FEEDLOOP_TRAINING_BATCH_KINDS: unknown kind dpo \(kinds: corrections, sft/);
  });
});
