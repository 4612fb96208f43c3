/**
 * The Responses list's bulk add (issue 27): the selected rows, or every response matching the
 * list's current filter, go to a review queue (`POST /v1/review-queues/:id/items` with
 * `{ responseIds }` or `{ filter }`) or to a dataset (`POST /v1/datasets/:id/items`, the same
 * two bodies). The outcome is said in numbers: added, already there, refused.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Queue } from '../review-types.js';
import { num, useLoad } from '../ui.js';
import { apiFilter, type Filters } from '../filters.js';

interface DatasetRef { id: string; name: string }
interface PerItem { results: Array<{ status: string }> }
/** A filter add's counts: a queue's `existing`, a dataset's `alreadyIn`. */
interface Bulk { matched?: number; added: number; existing?: number; alreadyIn?: number; truncated: boolean }

/**
 * An add's outcome in words, from either answer: 207 per id (`added`; `exists` in a queue,
 * `duplicate` in a dataset; `rejected`), or a filter's counts.
 */
export function outcomeText(answer: unknown, where: string): string {
  const r = (answer ?? {}) as Partial<PerItem & Bulk>;
  if (Array.isArray(r.results)) {
    const results = r.results;
    const count = (...s: string[]) => results.filter((x) => s.includes(x.status)).length;
    const refused = count('rejected');
    return `${where}: ${num(count('added'))} added, ${num(count('exists', 'duplicate'))} already there${refused ? `, ${num(refused)} refused` : ''}.`;
  }
  if (typeof r.added === 'number') {
    const there = r.existing ?? r.alreadyIn;
    const existing = typeof there === 'number' ? `, ${num(there)} already there` : '';
    return `${where}: ${num(r.added)} added${existing}${typeof r.matched === 'number' ? ` of ${num(r.matched)} matching` : ''}${r.truncated ? ' (more match: add again for the rest)' : ''}.`;
  }
  return `${where}: done.`;
}

/** The bulk add bar above the list. */
export function BulkAdd({ selected, filters, clear }: { selected: string[]; filters: Filters; clear: () => void }) {
  const [targets] = useLoad(async () => {
    const [queues, datasets] = await Promise.all([
      api<{ queues: Queue[] }>('GET', '/v1/review-queues').then((q) => q.queues.filter((x) => x.kind === 'single'), () => [] as Queue[]),
      api<{ datasets: DatasetRef[] }>('GET', '/v1/datasets').then((d) => d.datasets, () => [] as DatasetRef[]),
    ]);
    return { queues, datasets };
  }, []);
  const [target, setTarget] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  if (targets.state !== 'ok' || (targets.data.queues.length === 0 && targets.data.datasets.length === 0)) return null;
  const { queues, datasets } = targets.data;
  const chosen = target || (queues[0] ? `queue:${queues[0].id}` : `dataset:${datasets[0]?.id ?? ''}`);
  const [kind, id] = [chosen.slice(0, chosen.indexOf(':')), chosen.slice(chosen.indexOf(':') + 1)];
  const name = (kind === 'queue' ? queues.find((q) => q.id === id)?.name : datasets.find((d) => d.id === id)?.name) ?? id;
  const path = kind === 'queue' ? `/v1/review-queues/${encodeURIComponent(id)}/items` : `/v1/datasets/${encodeURIComponent(id)}/items`;
  const add = async (body: object, done?: () => void) => {
    setBusy(true);
    setStatus('Adding…');
    try {
      setStatus(outcomeText(await api<PerItem | Bulk>('POST', path, body), `${kind === 'queue' ? 'Queue' : 'Dataset'} ${name}`));
      done?.();
    } catch (err) {
      setStatus(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  };
  const filter = apiFilter(filters);
  return (
    <div class="toolbar bulk" aria-label="Add to a queue or dataset">
      <label for="bulk-target">Add to</label>
      <select id="bulk-target" value={chosen} onChange={(e) => setTarget(e.currentTarget.value)}>
        {queues.length ? <optgroup label="Review queues">{queues.map((q) => <option key={q.id} value={`queue:${q.id}`}>{q.name}</option>)}</optgroup> : null}
        {datasets.length ? <optgroup label="Datasets">{datasets.map((d) => <option key={d.id} value={`dataset:${d.id}`}>{d.name}</option>)}</optgroup> : null}
      </select>
      <button disabled={busy || selected.length === 0} onClick={() => void add({ responseIds: selected }, clear)}>Add {num(selected.length)} selected</button>
      <button disabled={busy} onClick={() => void add({ filter })} title={Object.keys(filter).length ? `every response matching ${JSON.stringify(filter)}` : 'every response of the workspace'}>
        Add all matching {Object.keys(filter).length ? 'this filter' : '(no filter: every response)'}
      </button>
      <span role="status">{status}</span>
    </div>
  );
}
