/**
 * A response's judge answers (issue 28), shown beside its human feedback in the Responses detail:
 * each answer with the evaluator that gave it (its name, linking to its Judges page; the id when
 * the evaluator is not one of the workspace's, e.g. a `judge` source claimed through
 * `POST /v1/feedback`), what it answered, and the label and rationale the judge gave
 * (`metadata.label`, `metadata.rationale`).
 */
import { api } from '../api.js';
import { routeHash } from '../route.js';
import { useLoad } from '../ui.js';

/** A judge event as the response detail lists it. */
export interface JudgeEvent { id: string; type: string; occurredAt: string; payload: Record<string, unknown> | null; metadata?: Record<string, unknown> | null; supersededBy?: string | null }

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** What the judge answered, in words: a rating's stars, a score's value, a preference. */
function answerOf(e: JudgeEvent): string {
  const p = e.payload ?? {};
  if (typeof p.rating === 'number') return `rating ${p.rating}`;
  if (typeof p.value === 'number') return `score ${p.value}`;
  if (e.type === 'preference') return text(p.preferred) ? `prefers ${String(p.preferred)}` : 'a tie';
  return e.type;
}

/** The judge answers of one response. */
export function JudgeAnswers({ events }: { events: JudgeEvent[] }) {
  // Names for the badges: one read of the workspace's evaluators (none when the key may not list them).
  const [list] = useLoad(() => api<{ evaluators: Array<{ id: string; name: string }> }>('GET', '/v1/evaluators').catch(() => ({ evaluators: [] })), []);
  const names = new Map(list.state === 'ok' ? list.data.evaluators.map((e) => [e.id, e.name]) : []);
  return (
    <ul class="feedback judge-answers" aria-label="Judge answers">
      {events.map((e) => {
        const id = text(e.metadata?.evaluatorId);
        const name = id ? names.get(id) : undefined;
        const label = text(e.metadata?.label);
        const rationale = text(e.metadata?.rationale);
        const badge = (
          <span class="tag source-judge" title={`automated evaluator${id ? ` ${id}` : ''} (source judge)`}>judge{id ? ` · ${name ?? id}` : ''}</span>
        );
        return (
          <li key={e.id} data-evaluator={id ?? undefined}>
            <span class={`tag ${e.type}`} data-answer>{answerOf(e)}</span> {id && name ? <a href={routeHash('judges', id)}>{badge}</a> : badge}
            {label ? <> · <span class="tag" data-label>{label}</span></> : null} · {new Date(e.occurredAt).toLocaleString()}
            {e.supersededBy ? <span class="note"> (replaced by a later answer)</span> : null}
            {rationale ? <span class="judge-answer" data-rationale>{rationale}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}
