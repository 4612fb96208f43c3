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
import { nearDuplicates } from '../insights/phrase-themes.js';
import { memoryFacts, type MemoryEvent, type MemoryFacts } from './memory-facts.js';
import { STYLE_INSTRUCTIONS } from './style-features.js';
import { DAY_MS } from '../time.js';

export type { MemoryEvent } from './memory-facts.js';

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

/**
 * An event's weight at `now`: 1 when fresh, halving every `halfLifeDays` (future dates count as fresh).
 *
 * @example
 * decayWeight(new Date('2026-01-01'), new Date('2026-01-31'), 30) // 0.5
 */
export function decayWeight(occurredAt: Date, now: Date, halfLifeDays: number): number {
  return decayAt(occurredAt.getTime(), now.getTime(), halfLifeDays);
}

/** {@link decayWeight} on milliseconds since the epoch. */
function decayAt(atMs: number, nowMs: number, halfLifeDays: number): number {
  const ageDays = Math.max(0, nowMs - atMs) / DAY_MS;
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

function add(map: Map<string, Evidence>, e: Omit<Evidence, 'weight' | 'eventIds'>, weight: number, eventId: string): void {
  const id = `${e.kind}\u0000${e.key}\u0000${e.value}`;
  const open = map.get(id) ?? { ...e, weight: 0, eventIds: [] };
  open.weight += weight;
  // Events come one at a time, so a repeat can only be the last id: checking the whole list
  // (as before) made a category named by all 2,000 events cost 2 million comparisons.
  if (open.eventIds[open.eventIds.length - 1] !== eventId) open.eventIds.push(eventId);
  map.set(id, open);
}

/** Longest complaint word quoted in the prompt block. */
const COMPLAINT_WORD_MAX = 40;

/** A complaint word as the prompt quotes it: letters, digits, `-` and `'` only, bounded. */
function complaintWord(word: string): string {
  return word.replace(/[^\p{L}\p{N}'-]/gu, '').slice(0, COMPLAINT_WORD_MAX);
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
export function userMemory(events: readonly MemoryEvent[], now: Date, options: Partial<MemoryOptions> & { phrasesOf?: (text: string) => string[] } = {}): UserMemory {
  const { phrasesOf, ...rest } = options;
  return memoryFromFacts(
    events.map((e) => memoryFacts(e, phrasesOf)),
    now,
    rest,
  );
}

/**
 * The same memory as {@link userMemory}, from each event's {@link MemoryFacts} (extracted once,
 * e.g. kept in a snapshot): only the decay and the sums are computed here, in one pass over the
 * events, so reading a user's 2,000 events costs no regular expression and no phrase table.
 *
 * @example
 * memoryFromFacts(events.map((e) => memoryFacts(e)), new Date()) // equals userMemory(events, new Date())
 */
export function memoryFromFacts(facts: readonly MemoryFacts[], now: Date, options: Partial<MemoryOptions> = {}): UserMemory {
  const o = { ...MEMORY_DEFAULTS, ...options };
  const sorted = [...facts].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
  const evidence = new Map<string, Evidence>();
  const style = new Map<string, Evidence>();
  // Per query type and response: the response's verdict (negative wins) and its newest event weight.
  const domains = new Map<string, Map<string, { negative: boolean; weight: number; eventIds: string[] }>>();
  const complaints = new Map<string, { weight: number; eventIds: string[]; example: string }>();
  const nowMs = now.getTime();

  for (const e of sorted) {
    const w = decayAt(e.at, nowMs, o.halfLifeDays);
    for (const c of e.categories) add(evidence, { kind: 'mistake', key: 'category', value: c, text: CATEGORY_TEXT[c] ?? `Avoid ${c.replace(/_/g, ' ')}` }, w, e.id);
    for (const i of e.issues) add(evidence, { kind: 'mistake', key: 'issue', value: i, text: CATEGORY_TEXT[i] ?? `Avoid ${i.replace(/_/g, ' ')}` }, w, e.id);
    for (const phrase of e.complaints) {
      const open = complaints.get(phrase) ?? { weight: 0, eventIds: [], example: e.example ?? '' };
      open.weight += w;
      open.eventIds.push(e.id);
      complaints.set(phrase, open);
    }
    for (const change of e.style) {
      const [key, value] = change.split(':') as [string, string];
      add(style, { kind: 'style', key, value, text: STYLE_INSTRUCTIONS[change] }, w, e.id);
    }
    if (e.verdict !== null && e.queryType !== null) {
      const byResponse = domains.get(e.queryType) ?? new Map();
      const seen = byResponse.get(e.responseId);
      if (seen === undefined) byResponse.set(e.responseId, { negative: e.verdict, weight: w, eventIds: [e.id] });
      else {
        seen.negative ||= e.verdict;
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
  // Complaint phrases: near-duplicates ("outdated policy", "cite outdated policy") are one item,
  // named by its strongest phrase and counting each event once; then the strongest few.
  const merged: Array<[string, { weight: number; eventIds: string[]; example: string }]> = [];
  for (const [phrase, c] of [...complaints].sort(([a, x], [b, y]) => y.weight - x.weight || (a < b ? -1 : 1))) {
    const into = merged.find(([p]) => nearDuplicates(p, phrase));
    if (!into) {
      merged.push([phrase, { ...c, eventIds: [...c.eventIds] }]);
      continue;
    }
    for (const id of c.eventIds) {
      if (into[1].eventIds.includes(id)) continue;
      into[1].eventIds.push(id);
      into[1].weight += c.weight / c.eventIds.length;
    }
  }
  const complaintItems = merged
    .filter(([, c]) => enough(c.eventIds.length, c.weight))
    .sort(([a, x], [b, y]) => y.weight - x.weight || (a < b ? -1 : 1))
    .slice(0, 3);
  for (const [phrase, c] of complaintItems) {
    items.push({
      kind: 'mistake',
      key: 'complaint',
      value: phrase,
      // The item says it in its own words: a user's comment is never pasted into the prompt, where
      // "ignore all previous instructions …" would read as an instruction (issue 22). The word is
      // one of commentPhrases' lower-case words, bounded and quoted as data.
      text: `This user's negative comments often mention the word "${complaintWord(phrase)}"`,
      support: c.eventIds.length,
      weight: round(c.weight),
      eventIds: c.eventIds,
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
