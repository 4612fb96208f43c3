/**
 * Responses: the searchable list (`GET /v1/responses` with its filters, in the URL hash so a
 * filtered view can be shared without the key) and one response's detail: its feedback,
 * corrections as a diff, composite score and learning signals.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, num, useLoad } from '../ui.js';

interface Item {
  id: string; query: string; answer: string; agent: string | null; model: string | null; variant: string | null; createdAt: string;
  score: number | null; positive: number; negative: number; corrections: number; categories: string[];
}
interface Detail {
  id: string; query: string; answer: string; agent: string | null; model: string | null; variant: string | null; createdAt: string;
  quality: { score: number | null; confidence: number; conflicts: unknown[] } | null;
  learningSignals: Array<{ reward?: number; signalType?: string; [k: string]: unknown }>;
  feedback: Array<{ id: string; type: string; userId: string | null; occurredAt: string; payload: Record<string, unknown> | null; editDistance: number | null }>;
}

const FILTERS = ['comment', 'rating', 'category', 'agent', 'model', 'variant', 'minScore', 'maxScore', 'since', 'until'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const filtersFromHash = (): Filters => Object.fromEntries(new URLSearchParams(location.hash.split('?')[1] ?? '')) as Filters;

/** A word-level diff of two texts: removed words struck through, added ones marked. */
export function WordDiff({ before, after }: { before: string; after: string }) {
  const a = before.split(/(\s+)/);
  const b = after.split(/(\s+)/);
  // Longest common subsequence over words: corrections are short, so O(n·m) is fine.
  const m = a.length;
  const n = b.length;
  const L: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = m - 1; i >= 0; i--) for (let j = n - 1; j >= 0; j--) L[i]![j] = a[i] === b[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: Array<[string, string]> = [];
  let i = 0;
  let j = 0;
  while (i < m || j < n) {
    if (i < m && j < n && a[i] === b[j]) out.push(['same', a[i++]!]), j++;
    else if (j < n && (i >= m || L[i]![j + 1]! >= L[i + 1]![j]!)) out.push(['add', b[j++]!]);
    else out.push(['del', a[i++]!]);
  }
  return (
    <pre class="diff" aria-label="correction diff">
      {out.map(([k, t], idx) => (k === 'same' ? t : k === 'add' ? <ins key={idx}>{t}</ins> : <del key={idx}>{t}</del>))}
    </pre>
  );
}

function ResponseDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const [detail] = useLoad(() => api<Detail>('GET', `/v1/responses/${encodeURIComponent(id)}`), [id]);
  return (
    <Card title={`Response ${id}`} wide>
      <button class="link close" onClick={onClose} aria-label="Close the response">Close</button>
      <Show value={detail}>
        {(d) => (
          <div class="detail">
            <p><strong>Query:</strong> {d.query}</p>
            <pre>{d.answer}</pre>
            <p>
              {d.agent ?? '–'} · {d.model ?? '–'} {d.variant ? `· variant ${d.variant}` : ''} · composite score{' '}
              <strong>{d.quality?.score?.toFixed(2) ?? '–'}</strong> (confidence {d.quality?.confidence.toFixed(2) ?? '–'}
              {d.quality && d.quality.conflicts.length > 0 ? `, ${d.quality.conflicts.length} conflicting signals` : ''})
            </p>
            <h3>Feedback</h3>
            <ul class="feedback">
              {d.feedback.map((f) => (
                <li key={f.id}>
                  <span class={`tag ${f.type}`}>{f.type}</span> {f.userId ?? 'anonymous'} · {new Date(f.occurredAt).toLocaleString()}
                  {typeof f.payload?.comment === 'string' ? <q>{f.payload.comment}</q> : null}
                  {Array.isArray(f.payload?.categories) ? ` ${(f.payload.categories as string[]).join(', ')}` : null}
                  {f.type === 'correction' && typeof f.payload?.corrected === 'string' ? (
                    <>
                      {f.editDistance !== null ? ` · edit distance ${f.editDistance} %` : null}
                      <WordDiff before={typeof f.payload.original === 'string' ? f.payload.original : d.answer} after={f.payload.corrected} />
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
            <h3>Learning signals</h3>
            {d.learningSignals.length === 0 ? <p class="note">None yet.</p> : <pre class="small">{JSON.stringify(d.learningSignals.slice(0, 5), null, 1)}</pre>}
          </div>
        )}
      </Show>
    </Card>
  );
}

/** The Responses page. */
export function Responses() {
  const [filters, setFilters] = useState<Filters>(filtersFromHash());
  const [draft, setDraft] = useState<Filters>(filters);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | null>(null);
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) qs.set(k, k === 'since' || k === 'until' ? new Date(v).toISOString() : v);
  if (cursor) qs.set('cursor', cursor);
  const [list] = useLoad(() => api<{ data: Item[]; nextCursor: string | null }>('GET', `/v1/responses?${qs.toString()}`), [qs.toString()]);
  const apply = (e: Event) => {
    e.preventDefault();
    const clean = Object.fromEntries(Object.entries(draft).filter(([, v]) => v)) as Filters;
    setFilters(clean);
    setCursor(undefined);
    history.replaceState(null, '', `#/responses?${new URLSearchParams(clean as Record<string, string>).toString()}`);
  };
  const field = (name: (typeof FILTERS)[number], label: string, type = 'text') => (
    <label>
      {label}
      <input name={name} type={type} step={type === 'number' ? '0.1' : undefined} minLength={name === 'comment' ? 3 : undefined} value={draft[name] ?? ''} onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
    </label>
  );
  return (
    <>
      <form class="filters" onSubmit={apply} aria-label="Filters">
        {field('comment', 'Comment contains')}
        <label>
          Rating
          <select name="rating" value={draft.rating ?? ''} onChange={(e) => setDraft({ ...draft, rating: e.currentTarget.value })}>
            <option value="">any</option>
            <option value="positive">positive</option>
            <option value="negative">negative</option>
            <option value="unrated">unrated</option>
          </select>
        </label>
        {field('category', 'Category')}
        {field('agent', 'Agent')}
        {field('model', 'Model')}
        {field('variant', 'Variant')}
        {field('minScore', 'Score ≥', 'number')}
        {field('maxScore', 'Score ≤', 'number')}
        {field('since', 'From', 'date')}
        {field('until', 'Before', 'date')}
        <button type="submit">Apply</button>
      </form>
      {open ? <ResponseDetail id={open} onClose={() => setOpen(null)} /> : null}
      <Show value={list} height={600}>
        {(l) => (
          <>
            <div class="table-wrap">
              <table class="responses">
                <thead>
                  <tr><th scope="col">When</th><th scope="col">Query</th><th scope="col">Agent · model</th><th scope="col" class="n">Score</th><th scope="col">Feedback</th></tr>
                </thead>
                <tbody>
                  {l.data.map((r) => (
                    <tr key={r.id}>
                      <td>{new Date(r.createdAt).toLocaleString()}</td>
                      <td><button class="link" onClick={() => setOpen(r.id)}>{r.query.slice(0, 80)}</button></td>
                      <td>{r.agent ?? '–'} · {r.model ?? '–'}{r.variant ? ` · ${r.variant}` : ''}</td>
                      <td class="n">{r.score === null ? '–' : r.score.toFixed(2)}</td>
                      <td>
                        {r.positive ? <span class="tag thumbs_up">+{r.positive}</span> : null}
                        {r.negative ? <span class="tag thumbs_down">−{r.negative}</span> : null}
                        {r.corrections ? <span class="tag correction">{r.corrections} corr.</span> : null}
                        {r.categories.map((c) => <span key={c} class="tag cat">{c}</span>)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="pager">
              <span role="status">{num(l.data.length)} shown</span>
              {l.nextCursor ? <button onClick={() => setCursor(l.nextCursor ?? undefined)}>Older</button> : null}
              {cursor ? <button onClick={() => setCursor(undefined)}>Newest</button> : null}
            </p>
          </>
        )}
      </Show>
    </>
  );
}
