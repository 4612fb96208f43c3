/**
 * Supervised fine-tuning examples: the prompt and the answer a model should have given. A
 * correction's fixed text is the best target; a positively judged answer is the next.
 */
import type { ExcludedCounts } from './export-formats.js';
import { corrections, responseVerdict, type ConversationTurn, type PromptGroup } from './training-facts.js';

/** One SFT example before it is written in a format. */
export interface SftExample {
  prompt: string;
  target: string;
  /** Earlier turns of the conversation, oldest first: context, not trained on. */
  history?: ConversationTurn[];
}

/** A chat message as OpenAI fine-tuning takes it; `weight` only on assistant messages. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  weight?: 0 | 1;
}

/** Sorts scores high first, unscored last. */
function byScoreDescending(a: number | null, b: number | null): number {
  return (b ?? -Infinity) - (a ?? -Infinity);
}

/**
 * The SFT examples of a prompt group, best first: every response's latest correction (newest
 * first), then the answers judged positive, highest composite score first. Contradictory answers
 * (voted both ways) and answers judged only by 3-star ratings are counted in `excluded`.
 *
 * @example
 * sftExamples(group, tally.excluded) // [{ prompt: 'sales?', target: "SELECT … WHERE region = 'US'" }, …]
 */
export function sftExamples(group: PromptGroup, excluded: ExcludedCounts): SftExample[] {
  const corrected: { example: SftExample; at: number }[] = [];
  const positive: { example: SftExample; score: number | null }[] = [];
  for (const facts of group.responses) {
    const latest = corrections(facts)[0];
    if (latest) {
      corrected.push({ example: withHistory({ prompt: facts.response.query, target: latest.corrected }, facts.response.history), at: latest.occurredAt.getTime() });
      continue;
    }
    const verdict = responseVerdict(facts.events);
    if (verdict === 'positive') positive.push({ example: withHistory({ prompt: facts.response.query, target: facts.response.answer }, facts.response.history), score: facts.response.score });
    else if (verdict === 'contradictory') excluded.contradictory++;
    else if (verdict === 'tie') excluded.tie++;
  }
  corrected.sort((a, b) => b.at - a.at);
  positive.sort((a, b) => byScoreDescending(a.score, b.score));
  return [...corrected.map((c) => c.example), ...positive.map((p) => p.example)];
}

/** The example with the conversation before it, when there was one. */
function withHistory(example: SftExample, history: ConversationTurn[] | undefined): SftExample {
  return history && history.length > 0 ? { ...example, history } : example;
}

/** The messages of a prompt: the system message when there is one, then the user's. */
export function promptMessages(prompt: string, system: string | undefined): ChatMessage[] {
  return system === undefined ? [{ role: 'user', content: prompt }] : [{ role: 'system', content: system }, { role: 'user', content: prompt }];
}

/**
 * An `openai-chat` row: OpenAI's chat fine-tuning line, the target as the last assistant message,
 * trained on (`weight: 1`). A multi-turn example carries the conversation before it (its
 * session's earlier turns), their answers `weight: 0`: context the model sees, not learns.
 *
 * @example
 * openaiChatRow({ prompt: 'Hi?', target: 'Hello.' }, 'Be brief.')
 * // { messages: [{ role: 'system', … }, { role: 'user', content: 'Hi?' }, { role: 'assistant', content: 'Hello.', weight: 1 }] }
 * openaiChatRow({ prompt: 'And in May?', target: '12', history: [{ query: 'Sales in April?', answer: '10' }] }, undefined)
 * // { messages: [user 'Sales in April?', assistant '10' weight 0, user 'And in May?', assistant '12' weight 1] }
 */
export function openaiChatRow(example: SftExample, system: string | undefined): { messages: ChatMessage[] } {
  const earlier: ChatMessage[] = (example.history ?? []).flatMap((turn): ChatMessage[] => [
    { role: 'user', content: turn.query },
    { role: 'assistant', content: turn.answer, weight: 0 },
  ]);
  const messages = promptMessages(example.prompt, system);
  // The system message stays first; the earlier turns go between it and the rated question.
  messages.splice(messages.length - 1, 0, ...earlier);
  return { messages: [...messages, { role: 'assistant', content: example.target, weight: 1 }] };
}

/**
 * A `trl-sft` row in TRL's standard prompt-completion form (`prompt`, `completion` strings) or its
 * conversational language-modeling form (`messages`).
 *
 * @example
 * trlSftRow({ prompt: 'Hi?', target: 'Hello.' }, 'standard', undefined) // { prompt: 'Hi?', completion: 'Hello.' }
 */
export function trlSftRow(
  example: SftExample,
  style: 'standard' | 'conversational',
  system: string | undefined,
): { prompt: string; completion: string } | { messages: ChatMessage[] } {
  if (style === 'standard') return { prompt: example.prompt, completion: example.target };
  return { messages: [...promptMessages(example.prompt, system), { role: 'assistant', content: example.target }] };
}
