/**
 * A review queue's settings and agreement (`#/queues/<id>`; `#/queues/new` makes one): name, kind,
 * instructions (markdown, previewed as reviewers see it), rubric, reviewers per item, reservation,
 * members (the workspace's reviewer keys), rules (the Responses page's own filters, and a sample
 * share), the dataset approved and corrected items go to; its progress, pairwise items from an
 * experiment's two variants, and the agreement panel. `POST /v1/review-queues`,
 * `PATCH /v1/review-queues/:id`.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Markdown } from '../markdown-view.js';
import { routeHash, useRoute } from '../route.js';
import type { Queue, QueueRule, Rubric } from '../review-types.js';
import { Card, Show, num, useLoad } from '../ui.js';
import { AgreementPanel } from './agreement.js';
import { ProgressBar } from './review.js';
import { FILTERS, apiFilter, type Filters } from '../filters.js';
import { FilterForm, NO_FACETS, type Facets } from './filter-form.js';
import { outcomeText } from './responses-bulk.js';

interface KeyRow { id: string; kind: string; name: string | null; prefix: string; revokedAt: string | null }
interface ScoreConfig { id: string; name: string; archived?: boolean }
interface DatasetRef { id: string; name: string }

const RUBRIC_FIELDS: Array<[keyof Omit<Rubric, 'scoreConfigs'>, string]> = [
  ['verdict', 'Verdict (approved, changes requested, rejected)'],
  ['issues', 'Issues (hallucination, missed requirement…)'],
  ['qualityScores', 'Quality scores (accuracy, completeness, style 0–100)'],
  ['correction', 'Correction (the answer as it should be)'],
  ['comment', 'Comment'],
];
const DEFAULT_RUBRIC: Rubric = { verdict: true, issues: true, qualityScores: false, correction: true, comment: true };

/** A rule's filter in words: `rating = negative · agent = sql`. */
export const filterText = (f: Record<string, unknown>): string => Object.entries(f).map(([k, v]) => `${k} = ${String(v)}`).join(' · ') || 'every response';

/** The form's fields as `Filters` (ISO times back to dates) so a rule opens in the filter form. */
const asFilters = (f: Record<string, unknown>): Filters =>
  Object.fromEntries(Object.entries(f).flatMap(([k, v]) => ((FILTERS as readonly string[]).includes(k) ? [[k, (k === 'since' || k === 'until') && typeof v === 'string' ? v.slice(0, 10) : String(v)]] : []))) as Filters;

function RulesEditor({ rules, set }: { rules: QueueRule[]; set: (r: QueueRule[]) => void }) {
  const [facets] = useLoad(() => api<Facets>('GET', '/v1/response-facets'), []);
  const [editing, setEditing] = useState<number | null>(null);
  return (
    <fieldset class="rules">
      <legend>Rules: responses matching a filter join the queue as their feedback arrives</legend>
      {rules.length === 0 ? <p class="note">No rules: items are added by hand (Responses page) only.</p> : (
        <ol>
          {rules.map((r, i) => (
            <li key={i} data-rule={i}>
              <code>{filterText(r.filter)}</code>{' '}
              <label>sample <input type="number" name={`sample-${i}`} min={0} max={1} step={0.05} value={r.sample} aria-label={`Sample of rule ${i + 1} (0–1)`}
                onInput={(e) => set(rules.map((x, j) => (j === i ? { ...x, sample: Number(e.currentTarget.value) } : x)))} /></label>{' '}
              <span class="note">({Math.round(r.sample * 100)} % of matches, the same ones every time)</span>{' '}
              <button type="button" class="link" onClick={() => setEditing(i)}>Edit filter</button>{' '}
              <button type="button" class="link" onClick={() => set(rules.filter((_, j) => j !== i))}>Remove</button>
            </li>
          ))}
        </ol>
      )}
      {editing === null ? <button type="button" onClick={() => setEditing(rules.length)}>Add a rule</button> : (
        <div class="rule-filter">
          <p class="note">{editing < rules.length ? `Rule ${editing + 1}'s filter:` : 'The new rule\'s filter (the Responses page\'s filters):'}</p>
          <FilterForm filters={editing < rules.length ? asFilters(rules[editing]?.filter ?? {}) : {}}
            facets={facets.state === 'ok' ? facets.data : facets.state === 'loading' ? NO_FACETS : null} scoreNames={null}
            applyLabel={editing < rules.length ? 'Use this filter' : 'Add rule'}
            onApply={(f) => {
              const filter = apiFilter(f);
              set(editing < rules.length ? rules.map((x, j) => (j === editing ? { ...x, filter } : x)) : [...rules, { filter, sample: 1 }]);
              setEditing(null);
            }} />
          <button type="button" class="link" onClick={() => setEditing(null)}>Cancel</button>
        </div>
      )}
    </fieldset>
  );
}

function SettingsForm({ queue }: { queue: Queue | null }) {
  const [q, setQ] = useState<Omit<Queue, 'id' | 'progress'>>(queue ?? { name: '', kind: 'single', instructions: '', rubric: DEFAULT_RUBRIC, reviewersPerItem: 1, reservationSeconds: 600, members: [], rules: [], datasetId: null });
  const [status, setStatus] = useState('');
  const [preview, setPreview] = useState(false);
  const [refs] = useLoad(() => Promise.all([
    api<{ keys: KeyRow[] }>('GET', '/v1/keys').then((k) => k.keys.filter((x) => x.kind === 'reviewer' && !x.revokedAt)),
    api<{ configs: ScoreConfig[] }>('GET', '/v1/score-configs').then((c) => c.configs, () => [] as ScoreConfig[]),
    api<{ datasets: DatasetRef[] }>('GET', '/v1/datasets').then((d) => d.datasets, () => [] as DatasetRef[]),
  ]), []);
  const set = (patch: Partial<typeof q>) => setQ({ ...q, ...patch });
  const save = async (e: Event) => {
    e.preventDefault();
    const { name, instructions, rubric, reviewersPerItem, reservationSeconds, members, rules, datasetId } = q;
    const body = { name, instructions, rubric, reviewersPerItem, reservationSeconds, members, rules, datasetId };
    try {
      if (queue) {
        await api('PATCH', `/v1/review-queues/${encodeURIComponent(queue.id)}`, body);
        setStatus(`Saved ${name}.`);
      } else {
        const made = await api<Queue>('POST', '/v1/review-queues', { ...body, kind: q.kind });
        location.hash = routeHash('queues', made.id);
      }
    } catch (err) {
      setStatus(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <>
    <form id="queue-form" class="queue-form" aria-label="Queue settings" onSubmit={save}>
      <label class="field">Name<input name="name" required maxLength={200} value={q.name} onInput={(e) => set({ name: e.currentTarget.value })} /></label>
      <fieldset class="choices">
        <legend>Kind {queue ? <span class="note">(fixed once made)</span> : null}</legend>
        <label class="choice"><input type="radio" name="kind" value="single" checked={q.kind === 'single'} disabled={!!queue} onChange={() => set({ kind: 'single' })} /> single: one answer an item, judged with the rubric</label>
        <label class="choice"><input type="radio" name="kind" value="pairwise" checked={q.kind === 'pairwise'} disabled={!!queue} onChange={() => set({ kind: 'pairwise' })} /> pairwise: two answers to one query, which is better</label>
      </fieldset>
      <label class="field">Instructions (markdown) <button type="button" class="link" onClick={() => setPreview(!preview)}>{preview ? 'Edit' : 'Preview'}</button>
        {preview ? <div class="preview"><Markdown text={q.instructions} /></div> : <textarea name="instructions" rows={6} maxLength={20000} value={q.instructions} onInput={(e) => set({ instructions: e.currentTarget.value })} />}
      </label>
      {q.kind === 'single' ? (
        <fieldset class="choices">
          <legend>Rubric: what a review holds</legend>
          {RUBRIC_FIELDS.map(([k, label]) => (
            <label key={k} class="choice"><input type="checkbox" name={`rubric-${k}`} checked={q.rubric[k]} onChange={(e) => set({ rubric: { ...q.rubric, [k]: e.currentTarget.checked } })} /> {label}</label>
          ))}
          <Show value={refs} height={24}>
            {([, configs]) => configs.filter((c) => !c.archived).length === 0 ? null : (
              <p class="toolbar">Named scores:{configs.filter((c) => !c.archived).map((c) => (
                <label key={c.id} class="choice"><input type="checkbox" checked={q.rubric.scoreConfigs?.includes(c.id) ?? false}
                  onChange={(e) => set({ rubric: { ...q.rubric, scoreConfigs: e.currentTarget.checked ? [...(q.rubric.scoreConfigs ?? []), c.id] : (q.rubric.scoreConfigs ?? []).filter((x) => x !== c.id) } })} /> {c.name}</label>
              ))}</p>
            )}
          </Show>
        </fieldset>
      ) : null}
      <div class="toolbar">
        <label class="field">Reviewers an item<input type="number" name="reviewersPerItem" min={1} max={5} value={q.reviewersPerItem} onInput={(e) => set({ reviewersPerItem: Number(e.currentTarget.value) })} /></label>
        <label class="field">Reservation (seconds)<input type="number" name="reservationSeconds" min={10} max={86400} value={q.reservationSeconds} onInput={(e) => set({ reservationSeconds: Number(e.currentTarget.value) })} /></label>
      </div>
      <Show value={refs} height={60}>
        {([keys, , datasets]) => (
          <>
            <fieldset class="choices members">
              <legend>Members (reviewer keys; make one in Settings → Keys)</legend>
              {keys.length === 0 ? <p class="note">The workspace has no reviewer keys yet.</p> : keys.map((k) => (
                <label key={k.id} class="choice"><input type="checkbox" name="member" value={k.id} checked={q.members.includes(k.id)}
                  onChange={(e) => set({ members: e.currentTarget.checked ? [...q.members, k.id] : q.members.filter((x) => x !== k.id) })} /> {k.name ?? k.prefix}</label>
              ))}
            </fieldset>
            <label class="field">Dataset for approved and corrected items
              <select name="datasetId" value={q.datasetId ?? ''} onChange={(e) => set({ datasetId: e.currentTarget.value || null })}>
                <option value="">none</option>
                {datasets.map((d) => <option key={d.id} value={d.id}>{d.name}</option>)}
              </select>
            </label>
          </>
        )}
      </Show>
    </form>
    {/* Outside the form: the rule's filter form is a form of its own (forms do not nest). */}
    {q.kind === 'single' ? <RulesEditor rules={q.rules} set={(rules) => set({ rules })} /> : null}
    <div class="toolbar">
      <button type="submit" form="queue-form" class="primary">{queue ? 'Save' : 'Create queue'}</button>
      <span role="status">{status}</span>
    </div>
    </>
  );
}

/** Pairwise items from an experiment: its two variants' answers to the same query text. */
function PairsFromExperiment({ queueId, done }: { queueId: string; done: () => void }) {
  const [facets] = useLoad(() => api<Facets>('GET', '/v1/response-facets'), []);
  const [status, setStatus] = useState('');
  const [pick, setPick] = useState<string[]>([]);
  return (
    <Show value={facets} height={40}>
      {(f) => {
        const experiments = [...new Set(f.variants.map((v) => v.experimentId))];
        return experiments.length === 0 ? <p class="note">No experiments with variants yet.</p> : (
          <form class="toolbar" aria-label="Pairs from an experiment" onSubmit={async (e) => {
            e.preventDefault();
            const [x, y] = pick.map((p) => JSON.parse(p) as [string, string]);
            if (!x || !y || x[0] !== y[0]) return setStatus('Choose two variants of one experiment.');
            try {
              setStatus(outcomeText(await api('POST', `/v1/review-queues/${encodeURIComponent(queueId)}/items`, { experimentId: x[0], variants: [x[1], y[1]] }), 'Pairs'));
              done();
            } catch (err) {
              setStatus(err instanceof Error ? err.message : String(err));
            }
          }}>
            {[0, 1].map((i) => (
              <select key={i} aria-label={`Variant ${i + 1}`} value={pick[i] ?? ''} onChange={(e) => { const p = [...pick]; p[i] = e.currentTarget.value; setPick(p); }}>
                <option value="">variant {i + 1}…</option>
                {f.variants.map((v) => <option key={`${v.experimentId}/${v.variant}`} value={JSON.stringify([v.experimentId, v.variant])}>{v.experimentId} · {v.variant}</option>)}
              </select>
            ))}
            <button type="submit">Add pairs</button>
            <span role="status">{status}</span>
          </form>
        );
      }}
    </Show>
  );
}

/** The queue settings page: `#/queues/new`, or one queue's settings, progress and agreement. */
export function Queues() {
  const route = useRoute();
  const id = route.id;
  const [queue, reload] = useLoad(() => (id && id !== 'new' ? api<Queue>('GET', `/v1/review-queues/${encodeURIComponent(id)}`) : Promise.resolve(null)), [id]);
  return (
    <>
      <p><a href={routeHash('review')}>← Queues</a></p>
      <Show value={queue} height={400}>
        {(q) => (
          <div class="grid">
            {q ? (
              <>
                <Card title="Progress">
                  {q.progress ? (
                    <>
                      <ProgressBar done={q.progress.done} inProgress={q.progress.inProgress} total={q.progress.total} />
                      <p data-figure="progress">{num(q.progress.done)} of {num(q.progress.total)} items done · {num(q.progress.inProgress)} in progress · {num(q.progress.pending)} pending</p>
                    </>
                  ) : null}
                  <p><a href={routeHash('review', q.id)}>Review this queue</a> · add items from the <a href={routeHash('responses')}>Responses</a> list</p>
                  {q.kind === 'pairwise' ? <><h3>Pairs from an experiment</h3><PairsFromExperiment queueId={q.id} done={reload} /></> : null}
                </Card>
                <Card title="Agreement" wide><AgreementPanel queueId={q.id} kind={q.kind} /></Card>
              </>
            ) : null}
            {/* Below the figures: a lead opens a queue to see how it goes more often than to change it. */}
            <Card title={q ? `Settings of ${q.name}` : 'New review queue'} wide><SettingsForm key={q?.updatedAt ?? 'new'} queue={q} /></Card>
          </div>
        )}
      </Show>
    </>
  );
}
