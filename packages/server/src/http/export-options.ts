/**
 * The query options of a training-data export that shape its rows (system message, style, kind,
 * dedup, validation): one definition for `GET /v1/exports/:format` and a dataset's export
 * (`GET /v1/datasets/:id/export/:format`), so the two take the same options with the same defaults.
 */
import { DEFAULT_MAX_EXAMPLE_TOKENS, DEFAULT_TOKEN_BUDGET, SIGNAL_KINDS, TRL_STYLES } from '@feedloop/core';
import { z } from 'zod';

/** A `true`/`false` query flag. */
export const queryFlag = z.enum(['true', 'false']);

/** The row-shaping options of an export, spread into each export route's query schema. */
export const exportRowOptions = {
  system: z.string().min(1).max(20_000).optional().describe('System message of openai-chat, openai-preference and conversational trl-sft rows'),
  style: z.enum(TRL_STYLES).default('standard').describe('trl-sft: standard (prompt, completion) or conversational (messages)'),
  kind: z.enum(SIGNAL_KINDS).default('event').describe('learning-signals: a row per event, per response, or reward-model pairs'),
  dedup: queryFlag.default('true').describe('One row per normalized prompt (and per format key); false keeps every row'),
  tokenBudget: z.coerce.number().int().min(1).default(DEFAULT_TOKEN_BUDGET).describe('anonymized: the context budget of tokenBudgetUtilization'),
  validate: queryFlag.default('false').describe('Answer the validator report (JSON) instead of the rows'),
  maxTokens: z.coerce.number().int().min(1).default(DEFAULT_MAX_EXAMPLE_TOKENS).describe('Validator: estimated tokens a row may have'),
};
