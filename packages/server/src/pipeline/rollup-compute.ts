/**
 * The rollup's arithmetic for one day, apart from its reads and writes: from the day's rows to
 * the rows of `feedback_metrics_daily`, the stats cells, the user sums and the issue counts, each
 * already serialized for its insert. Pure, so it can run in a worker thread (rollup-pool.ts): on a
 * day of 60,000 events it took 1.2 s of CPU, and on the worker's own thread that stalled every
 * processing job for as long (commit -> live counter p50 27 ms -> 0.8-2 s).
 */
import {
  compactSums,
  computeDailyMetrics,
  computeStatsCells,
  issueCounts,
  userSums,
  type CellCoordinates,
  type DailyMetrics,
  type FeedbackEventType,
  type Polarity,
  type RegisteredResponse,
  type RollupRow,
  type StatsSums,
} from '@feedloop/core';
import { hash } from 'node:crypto';
import { dayInputOf, type DayOutput, type DayRead, type RegisteredInputRow, type RollupInputRow } from '../store/day-rollups.js';
import type { DayUserSums } from '../store/user-sums-write.js';

/**
 * Computes a day's rollup from its input (its pages parsed first, here: in the rollup's thread).
 *
 * @example
 * const { metrics } = computeDay({ rows, registered });
 */
export function computeDay(input: DayRead): DayOutput {
  const { rows, registered } = dayInputOf(input);
  const events = rows.map(toRollupRow);
  const responses = registered.map(toRegistered);
  const metrics = computeDailyMetrics(events, responses);
  const cellEvents = events.map((e, i) => ({ ...e, ...cellCoordinates(rows[i] as RollupInputRow), userId: rows[i]?.user_id ?? null }));
  const cellResponses = responses.map((r, i) => ({ ...r, ...cellCoordinates(registered[i] as RegisteredInputRow), userId: registered[i]?.user_id ?? null }));
  const cells = computeStatsCells(cellEvents, cellResponses);
  const users = dayUserSums(userSums(cellEvents, cellResponses));
  const issues = issueCounts(rows.map((r) => ({ type: r.type as FeedbackEventType, polarity: r.polarity as Polarity, source: r.source, query: r.query })));
  const json = (list: readonly unknown[]): string | null => (list.length === 0 ? null : JSON.stringify(list));
  return { metrics, metricsJson: JSON.stringify(metrics), cellsJson: json(cells), users, issues };
}

/**
 * The user sums as their write takes them: each user's sums compacted ({@link compactSums}: a
 * user's day is mostly zeros) as JSON, with its digest, by which the write skips the users whose
 * sums did not change (store/user-sums-write.ts). SHA-256, so that no feedback can be crafted to
 * make changed sums look unchanged; ~2 µs a user, on the rollup's thread.
 *
 * @example
 * dayUserSums([{ userId: 'u1', sums: sumsOf([up], []) }]) // { ids: ['u1'], sums: ['{"events":1,"positiveRatings":1,…}'], digests: ['…'] }
 */
export function dayUserSums(list: ReadonlyArray<{ userId: string; sums: StatsSums }>): DayUserSums {
  const sums = list.map((u) => JSON.stringify(compactSums(u.sums)));
  return { ids: list.map((u) => u.userId), sums, digests: sums.map((s) => hash('sha256', s, 'base64')) };
}

/** A row's coordinates in the stats cells: the response's dimensions, with the bare variant. */
function cellCoordinates(r: Pick<RollupInputRow, 'agent' | 'model' | 'query_type' | 'experiment_id' | 'variant'>): CellCoordinates {
  return { agent: r.agent, model: r.model, queryType: r.query_type, experimentId: r.experiment_id, variant: r.variant };
}

function toRollupRow(r: RollupInputRow): RollupRow {
  return {
    eventId: r.event_id,
    type: r.type as FeedbackEventType,
    source: r.source,
    payload: r.payload,
    polarity: r.polarity as Polarity,
    categories: r.categories,
    value: r.value,
    firstPass: r.first_pass,
    editDistance: r.edit_distance,
    occurredAt: r.occurred_at,
    responseId: r.response_id,
    responseCreatedAt: r.r_created_at,
    sessionId: r.session_id,
    agent: r.agent,
    model: r.model,
    queryType: r.query_type,
    variant: qualifiedVariant(r),
  };
}

function toRegistered(r: RegisteredInputRow): RegisteredResponse {
  return {
    responseId: r.id,
    sessionId: r.session_id,
    agent: r.agent,
    model: r.model,
    queryType: r.query_type,
    variant: qualifiedVariant(r),
    corrected: r.corrected,
    escalated: r.escalated,
  };
}

/** A variant is named within its experiment, so two experiments' "B" stay apart. */
function qualifiedVariant(r: { experiment_id: string | null; variant: string | null }): string | null {
  return r.variant === null ? null : r.experiment_id === null ? r.variant : `${r.experiment_id}/${r.variant}`;
}
