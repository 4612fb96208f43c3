/**
 * The user-memory computation as it was before the per-event facts (commit 6312ee7), kept as the
 * reference the current one is checked against (memory-facts.test.ts): the split into
 * memoryFacts + memoryFromFacts must not change a single item.
 */
import { commentPhrases } from '../src/insights/themes.js';
import { STYLE_INSTRUCTIONS, styleChanges, type StyleChange } from '../src/memory/style-features.js';
import { MEMORY_DEFAULTS, decayWeight, type MemoryEvent, type MemoryItem, type MemoryOptions, type UserMemory } from '../src/index.js';

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
export function referenceUserMemory(events: readonly MemoryEvent[], now: Date, options: Partial<MemoryOptions> = {}): UserMemory {
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
      text: `This user's negative comments often mention the word "${phrase.replace(/[^\p{L}\p{N}'-]/gu, '').slice(0, 40)}"`,
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
function contextText(items: readonly MemoryItem[]): string {
  if (items.length === 0) return '';
  const lines = ['What this user has taught us (from their own feedback):'];
  for (const kind of ['mistake', 'style', 'calibration'] as const) {
    for (const i of items.filter((x) => x.kind === kind)) lines.push(`- ${i.text} (${i.support} event${i.support === 1 ? '' : 's'})`);
  }
  return lines.join('\n');
}

