/**
 * ADR-004 user memory: what one end user's own signals teach about answering them, computed on
 * read from their events (so it is current on the very next request). Three kinds of item:
 * mistakes to avoid (negative feedback with categories, issues and comments), style preferences
 * (edit and correction patterns) and domain calibration (per query type, how often this user's
 * answers needed correcting). Old events fade with a half-life, and an item needs a minimum
 * support (events and decayed weight), so a single odd event never becomes a rule. The input is
 * one user's events only: nothing here can draw on another user (ADR-004: no cross-user correlation).
 *
 * @module
 */
import { commentPhrases } from '../insights/themes.js';
import { STYLE_INSTRUCTIONS, styleChanges, type StyleChange } from './style-features.js';

/** One of the user's events with what memory needs of its response. */
export interface MemoryEvent {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  occurredAt: Date;
  /** The response's answer (what an edit or correction started from, unless the payload says). */
  answer: string | null;
  queryType: string | null;
  responseId: string;
}

/** How memory is computed. */
export interface MemoryOptions {
  /** An event's weight halves every this many days. */
  halfLifeDays: number;
  /** Events an item needs at least. */
  minSupport: number;
  /** Decayed weight an item needs at least. */
  minWeight: number;
  /** Items kept, strongest first. */
  maxItems: number;
}

/** The defaults: a 30-day half-life, at least 2 events weighing 1.5 together (two fresh events). */
export const MEMORY_DEFAULTS: MemoryOptions = { halfLifeDays: 30, minSupport: 2, minWeight: 1.5, maxItems: 12 };

/** One thing learned about the user. */
export interface MemoryItem {
  kind: 'mistake' | 'style' | 'calibration';
  /** What the item is about: `category`, `issue`, `complaint`, a style dimension (`emoji`, `length`, ...), or `queryType`. */
  key: string;
  /** Its value: the category, the direction of a style change (`remove`, `shorter`, ...), the query type. */
  value: string;
  /** The instruction, as it goes into the prompt. */
  text: string;
  /** Events behind it. */
  support: number;
  /** Their decayed weight. */
  weight: number;
  /** Calibration items: +1 (always accepted) to -1 (always corrected). */
  confidenceAdjustment?: number;
  /** The events behind it, newest first. */
  eventIds: string[];
}

/** A user's memory: the prompt block and its items. */
export interface UserMemory {
  text: string;
  items: MemoryItem[];
}

const DAY_MS = 86_400_000;

/**
 * An event's weight at `now`: 1 when fresh, halving every `halfLifeDays` (future dates count as fresh).
 *
 * @example
 * decayWeight(new Date('2026-01-01'), new Date('2026-01-31'), 30) // 0.5
 */
export function decayWeight(occurredAt: Date, now: Date, halfLifeDays: number): number {
  const ageDays = Math.max(0, now.getTime() - occurredAt.getTime()) / DAY_MS;
  return Math.pow(0.5, ageDays / halfLifeDays);
}

const CATEGORY_TEXT: Record<string, string> = {
  missing_context: 'Check that the needed context is there before answering; this user found context missing',
  wrong_context: 'Check that the sources fit the question; this user found the wrong context used',
  ignored_constraints: 'Follow every constraint the user states; they were ignored before',
  hallucination: 'Do not state what the sources do not support; this user caught hallucinations',
  style_mismatch: "Match this user's preferred style; answers did not fit it",
  accuracy: 'Double-check facts: this user reported inaccurate answers',
  relevance: 'Stay on the question asked: this user reported irrelevant answers',
  completeness: 'Answer every part of the question: this user reported incomplete answers',
  timeliness: 'Prefer current information: this user reported outdated answers',
  missed_requirement: 'Cover every stated requirement: this user reported missed ones',
  style_issue: "Match this user's preferred style",
  security_concern: 'Be careful with security: this user raised security concerns',
  performance_concern: 'Mind performance: this user raised performance concerns',
};

interface Evidence {
  kind: MemoryItem['kind'];
  key: string;
  value: string;
  text: string;
  weight: number;
  eventIds: string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Whether an event says the answer was bad, and what it names. */
function negativeFacts(e: MemoryEvent): { negative: boolean; categories: string[]; issues: string[]; comment: string | null } {
  const p = e.payload;
  switch (e.type) {
    case 'thumbs_down':
      return { negative: true, categories: strings([p.category]).filter((c) => c !== 'other'), issues: [], comment: str(p.comment) };
    case 'rating':
    case 'rate_usefulness':
      return { negative: typeof p.rating === 'number' && p.rating <= 2, categories: [], issues: [], comment: str(p.comment) };
    case 'error_categories':
      return { negative: true, categories: strings(p.categories).filter((c) => c !== 'other'), issues: [], comment: str(p.comment) ?? str(p.missingContext) };
    case 'review':
      return { negative: p.verdict !== 'approved', categories: [], issues: strings(p.issues), comment: str(p.comment) };
    case 'correction':
      return { negative: true, categories: [], issues: [], comment: str(p.comment) };
    case 'implicit_reject':
      return { negative: true, categories: [], issues: [], comment: str(p.reason) };
    case 'escalation':
      return { negative: true, categories: [], issues: [], comment: str(p.reason) };
    case 'comment':
      return { negative: false, categories: [], issues: [], comment: null };
    default:
      return { negative: false, categories: [], issues: [], comment: null };
  }
}

/** Whether an event says the answer was good. */
function isPositive(e: MemoryEvent): boolean {
  const p = e.payload;
  if (e.type === 'thumbs_up' || e.type === 'implicit_accept' || e.type === 'continue') return true;
  if (e.type === 'rating' || e.type === 'rate_usefulness') return typeof p.rating === 'number' && p.rating >= 4;
  if (e.type === 'review') return p.verdict === 'approved';
  return false;
}

/** The text an edit or correction started from and ended at, when the event is one. */
function rewrite(e: MemoryEvent): { original: string; edited: string } | null {
  const p = e.payload;
  const edited = e.type === 'edit' ? str(p.edited) : e.type === 'correction' ? str(p.corrected) : null;
  if (edited === null) return null;
  const original = str(p.original) ?? e.answer;
  return original === null ? null : { original, edited };
}

function add(map: Map<string, Evidence>, e: Omit<Evidence, 'weight' | 'eventIds'>, weight: number, eventId: string): void {
  const id = `${e.kind}\u0000${e.key}\u0000${e.value}`;
  const open = map.get(id) ?? { ...e, weight: 0, eventIds: [] };
  open.weight += weight;
  if (!open.eventIds.includes(eventId)) open.eventIds.push(eventId);
  map.set(id, open);
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Computes a user's memory from their own events. Items need `minSupport` events and
 * `minWeight` decayed weight; a style direction also needs to outweigh its opposite (the net is
 * what counts), so a user who shortens as often as they lengthen teaches nothing about length.
 *
 * @example
 * const memory = userMemory(events, new Date());
 * memory.text // 'What this user has taught us ...\n- Do not use emoji (3 edits)'
 * memory.items[0] // { kind: 'style', key: 'emoji', value: 'remove', support: 3, eventIds: [...] , ... }
 */
export function userMemory(events: readonly MemoryEvent[], now: Date, options: Partial<MemoryOptions> = {}): UserMemory {
  const o = { ...MEMORY_DEFAULTS, ...options };
  const sorted = [...events].sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime() || (a.id < b.id ? 1 : -1));
  const evidence = new Map<string, Evidence>();
  const style = new Map<string, Evidence>();
  // Per query type and response: the response's verdict (negative wins) and its newest event weight.
  const domains = new Map<string, Map<string, { negative: boolean; weight: number; eventIds: string[] }>>();
  const complaints = new Map<string, { weight: number; eventIds: string[]; example: string }>();

  for (const e of sorted) {
    const w = decayWeight(e.occurredAt, now, o.halfLifeDays);
    const facts = negativeFacts(e);
    if (facts.negative) {
      for (const c of new Set(facts.categories)) add(evidence, { kind: 'mistake', key: 'category', value: c, text: CATEGORY_TEXT[c] ?? `Avoid ${c.replace(/_/g, ' ')}` }, w, e.id);
      for (const i of new Set(facts.issues)) add(evidence, { kind: 'mistake', key: 'issue', value: i, text: CATEGORY_TEXT[i] ?? `Avoid ${i.replace(/_/g, ' ')}` }, w, e.id);
      if (facts.comment !== null) {
        for (const phrase of commentPhrases(facts.comment).filter((p) => !p.includes(' '))) {
          const open = complaints.get(phrase) ?? { weight: 0, eventIds: [], example: facts.comment };
          open.weight += w;
          open.eventIds.push(e.id);
          complaints.set(phrase, open);
        }
      }
    }
    const r = rewrite(e);
    if (r !== null) {
      for (const change of styleChanges(r.original, r.edited)) {
        const [key, value] = change.split(':') as [string, string];
        add(style, { kind: 'style', key, value, text: STYLE_INSTRUCTIONS[change as StyleChange] }, w, e.id);
      }
    }
    const verdict = facts.negative ? true : isPositive(e) ? false : null;
    if (verdict !== null && e.queryType !== null) {
      const byResponse = domains.get(e.queryType) ?? new Map();
      const seen = byResponse.get(e.responseId);
      if (seen === undefined) byResponse.set(e.responseId, { negative: verdict, weight: w, eventIds: [e.id] });
      else {
        seen.negative ||= verdict;
        seen.eventIds.push(e.id);
      }
      domains.set(e.queryType, byResponse);
    }
  }

  const items: MemoryItem[] = [];
  const enough = (support: number, weight: number) => support >= o.minSupport && weight >= o.minWeight;
  for (const ev of evidence.values()) {
    if (enough(ev.eventIds.length, ev.weight)) items.push(toItem(ev, ev.weight));
  }
  // Complaint words: the strongest few that are not already said by a category.
  const complaintItems = [...complaints]
    .filter(([, c]) => enough(new Set(c.eventIds).size, c.weight))
    .sort(([a, x], [b, y]) => y.weight - x.weight || (a < b ? -1 : 1))
    .slice(0, 3);
  for (const [phrase, c] of complaintItems) {
    items.push({
      kind: 'mistake',
      key: 'complaint',
      value: phrase,
      text: `This user complained about "${phrase}" (e.g. "${c.example.slice(0, 120)}")`,
      support: new Set(c.eventIds).size,
      weight: round(c.weight),
      eventIds: [...new Set(c.eventIds)],
    });
  }
  for (const ev of style.values()) {
    const opposite = [...style.values()].find((s) => s.key === ev.key && s.value !== ev.value);
    const net = ev.weight - (opposite?.weight ?? 0);
    if (enough(ev.eventIds.length, net)) items.push(toItem(ev, net));
  }
  for (const [queryType, byResponse] of domains) {
    const judged = [...byResponse.values()];
    const weight = judged.reduce((s, j) => s + j.weight, 0);
    if (!enough(judged.length, weight)) continue;
    const negativeWeight = judged.filter((j) => j.negative).reduce((s, j) => s + j.weight, 0);
    const rate = negativeWeight / weight;
    const corrected = judged.filter((j) => j.negative).length;
    const adjustment = round(1 - 2 * rate);
    const text =
      rate >= 0.5
        ? `For ${queryType} questions this user corrected or rejected ${corrected} of ${judged.length} answers: lower your confidence, double-check and state assumptions`
        : rate > 0.2
          ? `For ${queryType} questions this user corrected or rejected ${corrected} of ${judged.length} answers: check carefully`
          : `For ${queryType} questions this user accepted ${judged.length - corrected} of ${judged.length} answers: the usual approach works`;
    items.push({
      kind: 'calibration',
      key: 'queryType',
      value: queryType,
      text,
      support: judged.length,
      weight: round(weight),
      confidenceAdjustment: adjustment,
      eventIds: judged.flatMap((j) => j.eventIds),
    });
  }
  const kept = items.sort((a, b) => b.weight - a.weight || kindOrder(a) - kindOrder(b) || (a.value < b.value ? -1 : 1)).slice(0, o.maxItems);
  return { text: contextText(kept), items: kept };
}

function kindOrder(i: MemoryItem): number {
  return i.kind === 'mistake' ? 0 : i.kind === 'style' ? 1 : 2;
}

function toItem(ev: Evidence, weight: number): MemoryItem {
  return { kind: ev.kind, key: ev.key, value: ev.value, text: ev.text, support: ev.eventIds.length, weight: round(weight), eventIds: ev.eventIds };
}

/**
 * The plain-text block to put into a prompt: one line per item, grouped by kind; empty when
 * nothing is learned yet.
 *
 * @example
 * contextText([{ kind: 'style', text: 'Do not use emoji', support: 3, ... }])
 * // 'What this user has taught us (from their own feedback):\n- Do not use emoji (3 events)'
 */
export function contextText(items: readonly MemoryItem[]): string {
  if (items.length === 0) return '';
  const lines = ['What this user has taught us (from their own feedback):'];
  for (const kind of ['mistake', 'style', 'calibration'] as const) {
    for (const i of items.filter((x) => x.kind === kind)) lines.push(`- ${i.text} (${i.support} event${i.support === 1 ? '' : 's'})`);
  }
  return lines.join('\n');
}
