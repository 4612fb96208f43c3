/**
 * Responses: the searchable list (`GET /v1/responses`) with filters that offer the workspace's own
 * agents, models, variants and error categories (`GET /v1/response-facets`), and one response's
 * detail at its own URL (`#/responses/<id>?<the list's filters>`: shareable, survives a reload, the
 * back button returns to the list): its feedback, corrections as a diff, composite score and
 * learning signals as a table. Filters live in the URL too, so a filtered view can be shared
 * without the key.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { routeHash, useRoute } from '../route.js';
import { Card, Show, num, useLoad } from '../ui.js';
import { JudgeAnswers } from './judge-answers.js';
import { BulkAdd } from './responses-bulk.js';
import { FILTERS, apiFilter, type Filters } from '../filters.js';
import { FilterForm, NO_FACETS, type Facets } from './filter-form.js';

interface Item {
  id: string; query: string; answer: string; userId: string | null; agent: string | null; model: string | null; experimentId: string | null; variant: string | null;
  createdAt: string; score: number | null; positive: number; negative: number; corrections: number; categories: string[];
  /** Counted signals of reviewers and of judges, apart from the users' (absent from older servers). */
  reviews?: number; judgements?: number;
  scores?: Array<{ name: string; count: number; mean: number | null }>;
}
interface LearningSignal { eventId?: string; signal_type?: string; reward?: number; expected_output?: string | null; context?: { polarity?: string; severity?: string; event_type?: string } }
interface Detail {
  id: string; query: string; answer: string; userId: string | null; sessionId: string | null; agent: string | null; model: string | null;
  experimentId: string | null; variant: string | null; createdAt: string;
  quality: { score: number | null; confidence: number; signalCount?: number; conflicts: unknown[] } | null;
  learningSignals: LearningSignal[];
  scores?: Array<{ eventId: string; name: string; value: number | null; stringValue: string | null; type: string; userId: string | null; occurredAt: string }>;
  feedback: Array<{ id: string; type: string; source?: string; userId: string | null; occurredAt: string; payload: Record<string, unknown> | null; metadata?: Record<string, unknown> | null; editDistance: number | null; supersededBy?: string | null }>;
  /** Current feedback per source (explicit, implicit, outcome, review, judge). */
  feedbackBySource?: Record<string, number>;
}

const filtersOf = (params: URLSearchParams): Filters => Object.fromEntries(FILTERS.flatMap((k) => (params.get(k) ? [[k, params.get(k) as string]] : []))) as Filters;

/** What each badge of a row means (shown as a legend above the list and as each badge's tooltip). */
export const BADGES = {
  positive: 'counted positive signals: thumbs up, 4–5 stars, accepted or copied answers',
  negative: 'counted negative signals: thumbs down, 1–2 stars, corrections, escalations, retries',
  correction: 'corrections: the user rewrote the answer (the detail shows the diff)',
  category: 'error categories named by its negative feedback',
  score: 'composite score in [−1, 1]: the weighted signals combined, with a confidence in [0, 1]',
  named: 'named scores (docs/scores.md): the mean of each name\'s current scores, and how many',
  review: 'signals from reviewers (source review): counted apart from the users\' and weighed as a person\'s in the composite score',
  judge: 'signals from automated evaluators (source judge): counted apart from the users\' and weighing a share of a person\'s in the composite score only while their evaluator agrees with the humans (the Judges page), else 0',
} as const;

/** A review or judge event's badge: who judged the response, never mistaken for a user's vote. */
export function SourceBadge({ source, evaluatorId }: { source: string | undefined; evaluatorId?: unknown }) {
  if (source === 'review') return <span class="tag source-review" title={BADGES.review}>review</span>;
  if (source !== 'judge') return null;
  const named = typeof evaluatorId === 'string' ? evaluatorId : null;
  return <span class="tag source-judge" title={`${BADGES.judge}${named ? ` (evaluator ${named})` : ''}`}>judge{named ? ` · ${named}` : ''}</span>;
}

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

const when = (iso: string): string => new Date(iso).toLocaleString();
const score = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toFixed(2));

/** A row's badges, each with its meaning as a tooltip. */
function Badges({ r }: { r: Pick<Item, 'positive' | 'negative' | 'corrections' | 'categories' | 'scores' | 'reviews' | 'judgements'> }) {
  return (
    <>
      {r.positive ? <span class="tag thumbs_up" title={`${r.positive} ${BADGES.positive}`}>+{r.positive}</span> : null}
      {r.negative ? <span class="tag thumbs_down" title={`${r.negative} ${BADGES.negative}`}>−{r.negative}</span> : null}
      {r.corrections ? <span class="tag correction" title={`${r.corrections} ${BADGES.correction}`}>{r.corrections} corr.</span> : null}
      {r.reviews ? <span class="tag source-review" title={`${r.reviews} ${BADGES.review}`}>{r.reviews} review{r.reviews === 1 ? '' : 's'}</span> : null}
      {r.judgements ? <span class="tag source-judge" title={`${r.judgements} ${BADGES.judge}`}>{r.judgements} judge</span> : null}
      {r.categories.map((c) => <span key={c} class="tag cat" title={`error category: ${BADGES.category}`}>{c}</span>)}
      {(r.scores ?? []).map((s) => <span key={`s:${s.name}`} class="tag score" title={`${s.count} × ${s.name}: ${BADGES.named}`}>{s.name} {s.mean === null ? `×${s.count}` : s.mean.toFixed(2)}</span>)}
    </>
  );
}

/** The legend of the badges, above the list (each badge's tooltip says it in full). */
function Legend() {
  return (
    <p class="legend" aria-label="What the badges mean">
      <span class="tag thumbs_up" title={BADGES.positive}>+2</span> positive and <span class="tag thumbs_down" title={BADGES.negative}>−1</span> negative counted signals ·{' '}
      <span class="tag correction" title={BADGES.correction}>1 corr.</span> corrections · <span class="tag cat" title={BADGES.category}>hallucination</span> error categories ·{' '}
      <span class="tag source-review" title={BADGES.review}>1 review</span> reviewers' and <span class="tag source-judge" title={BADGES.judge}>2 judge</span> evaluators' signals, apart from the users' ·{' '}
      <abbr title={BADGES.score}>Score</abbr>: composite, −1 to 1
    </p>
  );
}

function LearningSignals({ signals }: { signals: LearningSignal[] }) {
  if (signals.length === 0) return <p class="note">None yet: the pipeline makes one per counted event.</p>;
  return (
    <div class="table-wrap">
      <table class="stack signals">
        <thead><tr><th scope="col">Signal</th><th scope="col">Event</th><th scope="col" class="n">Reward</th><th scope="col">Polarity · severity</th><th scope="col">Expected output</th></tr></thead>
        <tbody>
          {signals.map((l, i) => (
            <tr key={l.eventId ?? i}>
              <td data-label="Signal">{l.signal_type ?? '–'}</td>
              <td data-label="Event"><code>{l.eventId ?? '–'}</code></td>
              <td data-label="Reward" class="n">{typeof l.reward === 'number' ? l.reward.toFixed(2) : '–'}</td>
              <td data-label="Polarity · severity">{l.context?.polarity ?? '–'} · {l.context?.severity ?? '–'}</td>
              <td data-label="Expected output">{l.expected_output ? <code>{l.expected_output}</code> : <span class="note">none</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ResponseDetail({ id, back }: { id: string; back: string }) {
  const [detail] = useLoad(() => api<Detail>('GET', `/v1/responses/${encodeURIComponent(id)}`), [id]);
  return (
    <Card title={`Response ${id}`} wide>
      <p><a href={back}>← Back to the list</a></p>
      <Show value={detail}>
        {(d) => {
          const counted = d.feedback.filter((f) => !f.supersededBy);
          // Judges' answers beside the people's (users and reviewers): never mistaken for a user's vote.
          const judged = d.feedback.filter((f) => f.source === 'judge');
          const people = d.feedback.filter((f) => f.source !== 'judge');
          return (
            <div class="detail">
              <p><strong>Query:</strong> {d.query}</p>
              <pre>{d.answer}</pre>
              <dl class="facts">
                <dt>User</dt><dd>{d.userId ? <a href={routeHash('users', d.userId)}>{d.userId}</a> : 'anonymous'}</dd>
                <dt>Agent · model</dt><dd>{d.agent ?? '–'} · {d.model ?? '–'}</dd>
                {d.variant ? (<><dt>Experiment · variant</dt><dd>{d.experimentId ?? '–'} · {d.variant}</dd></>) : null}
                <dt>Created</dt><dd>{when(d.createdAt)}</dd>
                <dt title={BADGES.score}>Composite score</dt>
                <dd>
                  <strong>{score(d.quality?.score)}</strong> (confidence {score(d.quality?.confidence)}
                  {d.quality && d.quality.conflicts.length > 0 ? `, ${d.quality.conflicts.length} conflicting signals` : ''})
                </dd>
              </dl>
              {d.scores && d.scores.length > 0 ? (
                <>
                  <h3>Scores ({num(d.scores.length)})</h3>
                  <ul class="feedback scores" aria-label="Scores">
                    {d.scores.map((s) => (
                      <li key={s.eventId}>
                        <span class="tag score">{s.name}</span> <strong>{s.stringValue ?? (s.value === null ? '–' : String(s.value))}</strong>
                        {s.stringValue !== null && s.value !== null ? ` (${s.value})` : ''} · {s.userId ?? 'anonymous'} · {when(s.occurredAt)}
                        {s.type !== 'score' ? <span class="note"> (counted as {s.type})</span> : null}
                      </li>
                    ))}
                  </ul>
                </>
              ) : null}
              <h3>Feedback ({num(d.feedback.length)})</h3>
              {d.feedbackBySource && Object.keys(d.feedbackBySource).length > 0 ? (
                <p class="note by-source" aria-label="Feedback by source">
                  Counted by source:{' '}
                  {Object.entries(d.feedbackBySource).map(([source, n], i) => (
                    <span key={source}>{i > 0 ? ' · ' : ''}{num(n)} {source === 'review' || source === 'judge' ? <SourceBadge source={source} /> : source}</span>
                  ))}
                  {d.feedbackBySource.judge ? <>. A judge counts in the composite score only while it agrees with the humans (<a href={routeHash('judges')}>Judges</a>).</> : ''}
                </p>
              ) : null}
              <div class={judged.length > 0 ? 'beside' : undefined}>
                <div>
                  {judged.length > 0 ? <h4>People ({num(people.length)})</h4> : null}
                  <ul class="feedback">
                    {people.map((f) => (
                      <li key={f.id}>
                        <span class={`tag ${f.type}`}>{f.type}</span> <SourceBadge source={f.source} evaluatorId={f.metadata?.evaluatorId} /> {f.userId ?? 'anonymous'} · {when(f.occurredAt)}
                        {f.supersededBy ? <span class="note"> (replaced by a later vote)</span> : null}
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
                </div>
                {judged.length > 0 ? (
                  <div>
                    <h4>Judges ({num(judged.length)})</h4>
                    <JudgeAnswers events={judged} />
                  </div>
                ) : null}
              </div>
              {counted.length !== d.feedback.length ? <p class="note">{num(d.feedback.length - counted.length)} replaced votes are listed but not counted.</p> : null}
              <h3>Learning signals ({num(d.learningSignals.length)})</h3>
              <LearningSignals signals={d.learningSignals} />
            </div>
          );
        }}
      </Show>
    </Card>
  );
}


function ResponseList({ filters }: { filters: Filters }) {
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const qs = new URLSearchParams(apiFilter(filters));
  const [selected, setSelected] = useState<string[]>([]);
  if (cursor) qs.set('cursor', cursor);
  const [list] = useLoad(() => api<{ data: Item[]; nextCursor: string | null }>('GET', `/v1/responses?${qs.toString()}`), [qs.toString()]);
  return (
    <Show value={list} height={600}>
      {(l) => (
        <>
          <BulkAdd selected={selected} filters={filters} clear={() => setSelected([])} />
          <Legend />
          <div class="table-wrap">
            <table class="responses stack">
              <thead>
                <tr>
                  <th scope="col" class="pick">
                    <input type="checkbox" aria-label="Select every row shown" checked={l.data.length > 0 && l.data.every((r) => selected.includes(r.id))}
                      onChange={(e) => setSelected(e.currentTarget.checked ? [...new Set([...selected, ...l.data.map((r) => r.id)])] : selected.filter((id) => !l.data.some((r) => r.id === id)))} />
                  </th>
                  <th scope="col">When</th><th scope="col">Query</th><th scope="col">User</th><th scope="col">Agent · model</th><th scope="col" class="n" title={BADGES.score}>Score</th><th scope="col">Feedback</th></tr>
              </thead>
              <tbody>
                {l.data.map((r) => (
                  <tr key={r.id}>
                    <td data-label="Select" class="pick">
                      <input type="checkbox" name="pick" value={r.id} aria-label={`Select ${r.id}`} checked={selected.includes(r.id)}
                        onChange={(e) => setSelected(e.currentTarget.checked ? [...selected, r.id] : selected.filter((id) => id !== r.id))} />
                    </td>
                    <td data-label="When" class="when">{when(r.createdAt)}</td>
                    <td data-label="Query"><a class="open" href={routeHash('responses', r.id, filters)}>{r.query.slice(0, 80) || r.id}</a></td>
                    <td data-label="User">{r.userId ? <a href={routeHash('users', r.userId)}>{r.userId}</a> : <span class="note">anonymous</span>}</td>
                    <td data-label="Agent · model">{r.agent ?? '–'} · {r.model ?? '–'}{r.variant ? ` · ${r.variant}` : ''}</td>
                    <td data-label="Score" class="n" title={BADGES.score}>{score(r.score)}</td>
                    <td data-label="Feedback"><Badges r={r} /></td>
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
  );
}

/** The Responses page: the list with its filters, or one response at `#/responses/<id>`. */
export function Responses() {
  const route = useRoute();
  const filters = filtersOf(route.params);
  const [facets] = useLoad(() => api<Facets>('GET', '/v1/response-facets'), []);
  const [configs] = useLoad(() => api<{ configs: Array<{ name: string }> }>('GET', '/v1/score-configs?archived=true'), []);
  if (route.id !== null) return <ResponseDetail id={route.id} back={routeHash('responses', null, filters)} />;
  return (
    <>
      {/* While the facets load, empty choices (no layout shift); a server without them, text fields. */}
      <FilterForm
        filters={filters}
        facets={facets.state === 'ok' ? facets.data : facets.state === 'loading' ? NO_FACETS : null}
        scoreNames={configs.state === 'ok' ? configs.data.configs.map((c) => c.name) : configs.state === 'loading' ? [] : null}
      />
      {/* Keyed by the filters: a new filter starts from the newest page. */}
      <ResponseList key={JSON.stringify(filters)} filters={filters} />
    </>
  );
}
