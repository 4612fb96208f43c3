/**
 * OpenAssistant conversation trees (the oasst "trees" export, or one root message a line) as
 * feedloop records. Mapping (README, "Importing data"):
 * - each assistant message → a response `oasst:<message_id>`; its query is the parent prompter
 *   message, or, deeper in a conversation, the conversation so far as `User: …` / `Assistant: …`
 *   turns joined by blank lines; the session is the tree;
 * - its emoji counts → that many `thumbs_up` (`+1`) and `thumbs_down` (`-1`) events, each by a
 *   distinct synthetic user (`oasst:<message_id>:up:<i>`), since OASST counts one emoji per user;
 * - its sibling rank (0 = best) → a `review` by the tree's ranker of that prompt: `approved` for
 *   rank 0, `rejected` for the last rank, `changes_requested` between, of source `review`; the
 *   rank is kept in `metadata.oasstRank`.
 * Prompter messages get no response (nobody rated a model there); their emojis are not imported.
 */
import type { ImportEvent, ImportRecord } from './import-replay.js';
import { readJsonLines } from './read-lines.js';

/** An OASST message as both export files hold it (optional keys absent or null). */
export interface OasstMessage {
  message_id: string;
  parent_id?: string | null;
  text: string;
  role: 'prompter' | 'assistant';
  lang?: string | null;
  rank?: number | null;
  synthetic?: boolean | null;
  model_name?: string | null;
  emojis?: Record<string, number> | null;
  replies?: OasstMessage[] | null;
}

interface Turn {
  role: OasstMessage['role'];
  text: string;
}

/**
 * The query of an assistant message: the prompt alone at the first turn, else the turns so far.
 *
 * @example
 * conversationQuery([{ role: 'prompter', text: 'Hi' }]) // 'Hi'
 */
export function conversationQuery(turns: readonly Turn[]): string {
  if (turns.length === 1 && turns[0]) return turns[0].text;
  return turns.map((t) => `${t.role === 'prompter' ? 'User' : 'Assistant'}: ${t.text}`).join('\n\n');
}

/** The review verdict a sibling rank stands for. */
function rankVerdict(rank: number, worst: number): 'approved' | 'changes_requested' | 'rejected' {
  if (rank === 0) return 'approved';
  return rank === worst ? 'rejected' : 'changes_requested';
}

/** The records of one tree, depth first. */
export function oasstTreeRecords(root: OasstMessage, treeId: string): ImportRecord[] {
  const out: ImportRecord[] = [];
  const walk = (message: OasstMessage, before: Turn[]): void => {
    const turns = [...before, { role: message.role, text: message.text }];
    const replies = message.replies ?? [];
    const ranks = replies.filter((r) => r.role === 'assistant' && typeof r.rank === 'number').map((r) => r.rank as number);
    const worst = ranks.length > 1 ? Math.max(...ranks) : -1;
    for (const reply of replies) {
      if (reply.role === 'assistant') out.push(assistantRecord(reply, turns, treeId, message.message_id, worst, ranks.length));
      walk(reply, turns);
    }
  };
  walk(root, []);
  return out;
}

function assistantRecord(m: OasstMessage, turns: Turn[], treeId: string, parentId: string, worst: number, ranked: number): ImportRecord {
  const responseId = `oasst:${m.message_id}`;
  const events: ImportEvent[] = [];
  const thumbs = [
    ['up', 'thumbs_up', m.emojis?.['+1'] ?? 0],
    ['down', 'thumbs_down', m.emojis?.['-1'] ?? 0],
  ] as const;
  for (const [tag, type, n] of thumbs) {
    for (let i = 0; i < n; i++) {
      events.push({ id: `${responseId}:${tag}:${i}`, responseId, type, userId: `${responseId}:${tag}:${i}`, sessionId: `oasst:${treeId}`, payload: {} });
    }
  }
  if (typeof m.rank === 'number') {
    events.push({
      id: `${responseId}:rank`,
      responseId,
      type: 'review',
      // A ranker is a labeller reviewing answers, not a user of them (docs/signals.md, "Sources"):
      // their verdicts are what calibration holds a judge to, and the users' figures leave them out.
      source: 'review',
      userId: `oasst:ranker:${parentId}`,
      sessionId: `oasst:${treeId}`,
      payload: { verdict: rankVerdict(m.rank, worst) },
      metadata: { oasstRank: m.rank, rankedSiblings: ranked },
    });
  }
  return {
    response: {
      id: responseId,
      sessionId: `oasst:${treeId}`,
      query: conversationQuery(turns),
      answer: m.text,
      agent: 'oasst',
      ...(m.model_name ? { model: m.model_name } : {}),
      metadata: { source: 'oasst', messageId: m.message_id, parentId, turn: Math.ceil(turns.length / 2), synthetic: m.synthetic ?? false, lang: m.lang ?? null },
    },
    events,
  };
}

/**
 * Reads an OASST trees file (`{ message_tree_id, prompt }` a line) or messages file (a root
 * message a line) and yields its records.
 *
 * @example
 * for await (const r of readOasst('en_100_tree.jsonl')) console.log(r.response.id, r.events.length);
 */
export async function* readOasst(path: string): AsyncGenerator<ImportRecord> {
  for await (const { value, line } of readJsonLines(path)) {
    const row = value as { message_tree_id?: string; prompt?: OasstMessage } & Partial<OasstMessage>;
    const root = row.prompt ?? (row as OasstMessage);
    if (typeof root.message_id !== 'string' || typeof root.text !== 'string') throw new Error(`${path}:${line}: not an OASST tree or message`);
    yield* oasstTreeRecords(root, row.message_tree_id ?? root.message_id);
  }
}
