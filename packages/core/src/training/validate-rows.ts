/**
 * The export validator, after OpenAI's data-preparation checks ("Data preparation and analysis for
 * chat model fine-tuning", the OpenAI cookbook): each row is checked against its format's published
 * rules (required keys and types, roles and their order, `weight` only on assistant messages,
 * non-empty content) and against a token budget, and the problems are counted by kind.
 */
import type { ExportFormat, ExportOptions, ExportTally } from './export-formats.js';
import type { DEDUP_REASONS, LEFT_OUT_REASONS, ReasonCounts } from './left-out.js';

/** Characters a token on average, for English text (OpenAI's rule of thumb; no tokenizer here). */
const CHARS_PER_TOKEN = 4;
/** The cookbook's overhead: 3 tokens a message, 3 to prime the reply. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_EXAMPLE = 3;

/** What the validator found over an export. */
export interface ValidationReport {
  format: ExportFormat;
  rows: number;
  valid: number;
  /** Problem kind → rows with it (a row may have several). */
  errors: Record<string, number>;
  /** Estimated tokens: the longest row, all rows, and the limit a row is checked against. */
  tokens: { max: number; total: number; limit: number };
  /** What the export left out, and why (the raw counters; `deduplicated` and `leftOut` say it by reason). */
  excluded: ExportTally['excluded'];
  /** What the export read: responses matching its filters, and their counted events (by type) it could build rows from. */
  read: { responses: number; events: number; eventsByType: Record<string, number> };
  /** Rows dropped as duplicates of a written row, by reason ({@link DEDUP_REASONS}); reasons that did not occur are absent. */
  deduplicated: ReasonCounts<keyof typeof DEDUP_REASONS>;
  /** Candidates that made no row, by reason ({@link LEFT_OUT_REASONS}); reasons that did not occur are absent. */
  leftOut: ReasonCounts<keyof typeof LEFT_OUT_REASONS>;
}

type Row = Record<string, unknown>;

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const filled = (v: unknown): boolean => typeof v === 'string' && v.trim().length > 0;

/**
 * A row's estimated tokens: its strings' characters / 4, plus 3 per message and 3 per example.
 *
 * @example
 * estimateTokens({ prompt: 'abcd', completion: 'efgh' }) // 1 + 1 + 3 = 5
 */
export function estimateTokens(row: unknown): number {
  let tokens = TOKENS_PER_EXAMPLE;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') tokens += Math.ceil(v.length / CHARS_PER_TOKEN);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) {
      if (typeof v.role === 'string') tokens += TOKENS_PER_MESSAGE;
      for (const [key, value] of Object.entries(v)) if (key !== 'role') walk(value);
    }
  };
  walk(row);
  return tokens;
}

/** Checks a list of chat messages: OpenAI's roles, keys, content, weights. */
function messageIssues(messages: unknown, issues: Set<string>, options: { lastRole?: string; weights: boolean }): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    issues.add('missing_messages_list');
    return;
  }
  for (const m of messages) {
    if (!isObject(m) || !('role' in m) || !('content' in m)) {
      issues.add('message_missing_key');
      continue;
    }
    if (m.role !== 'system' && m.role !== 'user' && m.role !== 'assistant') issues.add('unrecognized_role');
    if (!filled(m.content)) issues.add('missing_content');
    if ('weight' in m && (!options.weights || m.role !== 'assistant' || (m.weight !== 0 && m.weight !== 1))) issues.add('invalid_weight');
    if (Object.keys(m).some((k) => k !== 'role' && k !== 'content' && k !== 'weight')) issues.add('message_unrecognized_key');
  }
  const roles = messages.map((m) => (isObject(m) ? m.role : undefined));
  if (roles.slice(1).includes('system')) issues.add('system_not_first');
  if (options.lastRole !== undefined && roles.at(-1) !== options.lastRole) issues.add(`last_message_not_${options.lastRole}`);
}

/** Checks that `keys` are non-empty strings. */
function stringIssues(row: Row, keys: readonly string[], issues: Set<string>): void {
  for (const key of keys) if (!filled(row[key])) issues.add(`missing_${key}`);
}

/** One output list of a preference row: exactly one assistant message with content. */
function outputIssues(output: unknown, name: string, issues: Set<string>): void {
  if (!Array.isArray(output) || output.length !== 1 || !isObject(output[0]) || output[0].role !== 'assistant' || !filled(output[0].content)) {
    issues.add(`bad_${name}`);
  }
}

/** The fields of ADR-016's AnonymizedFeedback: nothing else may leave. */
const ANONYMIZED_KEYS = ['contextCategories', 'tokenBudgetUtilization', 'rating', 'errorCategories', 'qualityScores', 'editDistance'];

/**
 * The problems of one row of `format` (an empty list: the row is valid).
 *
 * @example
 * rowIssues('openai-chat', { messages: [{ role: 'user', content: 'Hi' }] }, options)
 * // ['example_missing_assistant_message']
 */
export function rowIssues(format: ExportFormat, row: unknown, options: Pick<ExportOptions, 'style' | 'kind'>): string[] {
  const issues = new Set<string>();
  if (!isObject(row)) return ['data_type'];
  switch (format) {
    case 'openai-chat':
      messageIssues(row.messages, issues, { weights: true });
      if (Array.isArray(row.messages)) {
        const assistant = row.messages.filter((m) => isObject(m) && m.role === 'assistant') as Record<string, unknown>[];
        if (assistant.length === 0) issues.add('example_missing_assistant_message');
        // Nothing to learn: every assistant message is context, weight 0 (absent is OpenAI's default, 1;
        // another value is invalid_weight already).
        else if (assistant.every((m) => m.weight === 0)) issues.add('no_trained_assistant_message');
      }
      break;
    case 'trl-sft':
      if (options.style === 'standard') stringIssues(row, ['prompt', 'completion'], issues);
      else messageIssues(row.messages, issues, { lastRole: 'assistant', weights: false });
      break;
    case 'openai-preference':
      messageIssues(isObject(row.input) ? row.input.messages : undefined, issues, { lastRole: 'user', weights: false });
      outputIssues(row.preferred_output, 'preferred_output', issues);
      outputIssues(row.non_preferred_output, 'non_preferred_output', issues);
      break;
    case 'trl-dpo':
      stringIssues(row, ['prompt', 'chosen', 'rejected'], issues);
      if (row.chosen === row.rejected) issues.add('chosen_equals_rejected');
      break;
    case 'trl-kto':
      stringIssues(row, ['prompt', 'completion'], issues);
      if (typeof row.label !== 'boolean') issues.add('label_not_boolean');
      break;
    case 'learning-signals':
      if (options.kind === 'pair') stringIssues(row, ['prompt', 'chosen', 'rejected'], issues);
      else {
        stringIssues(row, ['signal_type', 'input'], issues);
        if (typeof row.actual_output !== 'string') issues.add('missing_actual_output');
        if (typeof row.reward !== 'number' || row.reward < -1 || row.reward > 1) issues.add('reward_out_of_range');
        if (!isObject(row.context)) issues.add('missing_context');
      }
      break;
    case 'nli':
      stringIssues(row, ['premise', 'hypothesis', 'label'], issues);
      if (typeof row.weight !== 'number' || row.weight < 0 || row.weight > 1) issues.add('weight_out_of_range');
      break;
    case 'anonymized':
      if (Object.keys(row).some((k) => !ANONYMIZED_KEYS.includes(k))) issues.add('unexpected_field');
      if (typeof row.rating !== 'string') issues.add('missing_rating');
      break;
  }
  return [...issues];
}

/**
 * A fresh report for an export of `format` checked against `maxTokens` a row.
 *
 * @example
 * const report = emptyReport('trl-dpo', 16_385); for (const row of rows) checkRow(report, row, options);
 */
export function emptyReport(format: ExportFormat, maxTokens: number): ValidationReport {
  return {
    format,
    rows: 0,
    valid: 0,
    errors: {},
    tokens: { max: 0, total: 0, limit: maxTokens },
    excluded: { tie: 0, contradictory: 0, duplicate: 0 },
    read: { responses: 0, events: 0, eventsByType: {} },
    deduplicated: {},
    leftOut: {},
  };
}

/**
 * Adds one row to a report: its problems (`too_long` past the token limit) and its tokens.
 *
 * @example
 * checkRow(report, { prompt: 'q', chosen: 'a', rejected: 'a' }, options) // report.errors.chosen_equals_rejected === 1
 */
export function checkRow(report: ValidationReport, row: unknown, options: Pick<ExportOptions, 'style' | 'kind'>): void {
  const issues = rowIssues(report.format, row, options);
  const tokens = estimateTokens(row);
  if (tokens > report.tokens.limit) issues.push('too_long');
  report.rows++;
  report.tokens.total += tokens;
  report.tokens.max = Math.max(report.tokens.max, tokens);
  if (issues.length === 0) report.valid++;
  for (const issue of issues) report.errors[issue] = (report.errors[issue] ?? 0) + 1;
}
