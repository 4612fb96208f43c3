/**
 * The Settings page's score configs card (`/v1/score-configs`, docs/scores.md): the workspace's
 * named scores with their type, range or categories, mapping and weight; a form to add one; each
 * editable (weight, range, description) and archived or restored, never deleted.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Show, useLoad } from '../ui.js';

/** A score config as the API serves it. */
export interface ScoreConfig {
  id: string; name: string; dataType: 'numeric' | 'categorical' | 'boolean'; min?: number; max?: number;
  categories?: Array<{ value: number; label: string }>; description?: string; mapsTo: 'thumbs' | 'rating' | 'none'; weight: number; archived: boolean;
}

const range = (c: ScoreConfig): string =>
  c.dataType === 'numeric' ? `${c.min ?? '−∞'} … ${c.max ?? '∞'}` : c.dataType === 'categorical' ? (c.categories ?? []).map((x) => `${x.label} (${x.value})`).join(', ') : '1 / 0';

/** Parses "rude=0, polite=1" into categories. */
const categoriesOf = (text: string): Array<{ value: number; label: string }> =>
  text.split(',').map((p) => p.trim()).filter(Boolean).map((p, i) => {
    const [label, value] = p.split('=').map((s) => s.trim());
    return { label: label ?? p, value: value === undefined || value === '' ? i : Number(value) };
  });

/** One config's row: its figures, and an inline edit of the weight. */
function ConfigRow({ c, reload, report }: { c: ScoreConfig; reload: () => void; report: (s: string) => void }) {
  const [weight, setWeight] = useState(String(c.weight));
  const patch = async (body: Record<string, unknown>, done: string) => {
    try {
      await api('PATCH', `/v1/score-configs/${c.id}`, body);
      report(done);
      reload();
    } catch (err) {
      report(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <tr class={c.archived ? 'archived' : undefined}>
      <td data-label="Name"><strong>{c.name}</strong>{c.archived ? <span class="tag">archived</span> : null}{c.description ? <div class="note">{c.description}</div> : null}</td>
      <td data-label="Type">{c.dataType}</td>
      <td data-label="Values">{range(c)}</td>
      <td data-label="Maps to">{c.mapsTo === 'none' ? <span class="note">itself</span> : c.mapsTo}</td>
      <td data-label="Weight">
        <input aria-label={`Weight of ${c.name}`} type="number" min="0" max="10" step="0.5" value={weight} onInput={(e) => setWeight(e.currentTarget.value)} style="width:5em" />
        {Number(weight) !== c.weight ? <button onClick={() => patch({ weight: Number(weight) }, `Saved the weight of ${c.name}.`)}>Save</button> : null}
      </td>
      <td data-label="">
        <button class="link" aria-label={`${c.archived ? 'Restore' : 'Archive'} ${c.name}`} onClick={() => patch({ archived: !c.archived }, `${c.archived ? 'Restored' : 'Archived'} ${c.name}.`)}>
          {c.archived ? 'Restore' : 'Archive'}
        </button>
      </td>
    </tr>
  );
}

/** The score configs card's contents. */
export function ScoreConfigsPanel() {
  const [configs, reload] = useLoad(() => api<{ configs: ScoreConfig[] }>('GET', '/v1/score-configs?archived=true'), []);
  const [draft, setDraft] = useState({ name: '', dataType: 'numeric', min: '', max: '', categories: '', mapsTo: 'none', weight: '0', description: '' });
  const [status, setStatus] = useState('');
  const set = (k: keyof typeof draft) => (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [k]: e.currentTarget.value });
  return (
    <>
      <Show value={configs}>
        {(c) => (
          <div class="table-wrap">
            <table class="stack score-configs">
              <thead><tr><th>Name</th><th>Type</th><th>Values</th><th>Maps to</th><th>Weight</th><th><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>{c.configs.map((x) => <ConfigRow key={`${x.id}:${x.weight}`} c={x} reload={reload} report={setStatus} />)}</tbody>
            </table>
          </div>
        )}
      </Show>
      <form aria-label="New score config" class="filters" onSubmit={async (e) => {
        e.preventDefault();
        const body: Record<string, unknown> = { name: draft.name, dataType: draft.dataType, mapsTo: draft.mapsTo, weight: Number(draft.weight) };
        if (draft.dataType === 'numeric' && draft.min !== '') body.min = Number(draft.min);
        if (draft.dataType === 'numeric' && draft.max !== '') body.max = Number(draft.max);
        if (draft.dataType === 'categorical') body.categories = categoriesOf(draft.categories);
        if (draft.description) body.description = draft.description;
        try {
          await api('POST', '/v1/score-configs', body);
          setStatus(`Added ${draft.name}.`);
          setDraft({ ...draft, name: '', min: '', max: '', categories: '', description: '' });
          reload();
        } catch (err) {
          setStatus(err instanceof Error ? err.message : String(err));
        }
      }}>
        <label>Name<input name="name" value={draft.name} onInput={set('name')} required maxLength={200} /></label>
        <label>Type
          <select name="dataType" value={draft.dataType} onChange={set('dataType')}>
            <option value="numeric">numeric</option><option value="categorical">categorical</option><option value="boolean">boolean</option>
          </select>
        </label>
        {draft.dataType === 'numeric' ? (<><label>Min<input name="min" type="number" step="any" value={draft.min} onInput={set('min')} /></label><label>Max<input name="max" type="number" step="any" value={draft.max} onInput={set('max')} /></label></>) : null}
        {draft.dataType === 'categorical' ? <label>Categories<input name="categories" value={draft.categories} onInput={set('categories')} placeholder="rude=0, polite=1" required /></label> : null}
        <label>Maps to
          <select name="mapsTo" value={draft.mapsTo} onChange={set('mapsTo')}>
            <option value="none">itself</option><option value="thumbs">thumbs (boolean)</option><option value="rating">rating (numeric 1–5)</option>
          </select>
        </label>
        <label>Weight<input name="weight" type="number" min="0" max="10" step="0.5" value={draft.weight} onInput={set('weight')} /></label>
        <label>Description<input name="description" value={draft.description} onInput={set('description')} /></label>
        <button type="submit">Add score</button>
      </form>
      <p role="status" class="note">{status}</p>
    </>
  );
}
