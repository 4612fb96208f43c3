/**
 * The responses' filter form (the list's filters, or a review queue's rule filter) and the
 * workspace's own filter values it offers.
 */
import { routeHash } from '../route.js';
import { useDraft } from '../ui.js';
import { type FilterName, type Filters } from '../filters.js';

/** The workspace's own filter values (`GET /v1/response-facets`). */
export interface Facets { agents: string[]; models: string[]; variants: Array<{ experimentId: string; variant: string }>; categories: string[]; truncated: string[] }

/** Facets while they load: empty choices, no layout shift. */
export const NO_FACETS: Facets = { agents: [], models: [], variants: [], categories: [], truncated: [] };
/** A filter's select of the workspace's values, or a text field when the server has no facets. */
function Choice({ name, label, values, draft, set }: { name: FilterName; label: string; values: string[] | null; draft: Filters; set: (f: Filters) => void }) {
  return (
    <label>
      {label}
      {values ? (
        <select name={name} value={draft[name] ?? ''} onChange={(e) => set({ ...draft, [name]: e.currentTarget.value })}>
          <option value="">any</option>
          {values.map((v) => <option key={v} value={v}>{v}</option>)}
          {draft[name] && !values.includes(draft[name] as string) ? <option value={draft[name]}>{draft[name]}</option> : null}
        </select>
      ) : (
        <input name={name} value={draft[name] ?? ''} onInput={(e) => set({ ...draft, [name]: e.currentTarget.value })} />
      )}
    </label>
  );
}

/** A yes/no filter (`hasCorrection`, `conflicting`): any, true or false, as the API takes them. */
function Flag({ name, label, yes, no, draft, set }: { name: 'hasCorrection' | 'conflicting'; label: string; yes: string; no: string; draft: Filters; set: (f: Filters) => void }) {
  return (
    <label>
      {label}
      <select name={name} value={draft[name] ?? ''} onChange={(e) => set({ ...draft, [name]: e.currentTarget.value })}>
        <option value="">any</option>
        <option value="true">{yes}</option>
        <option value="false">{no}</option>
      </select>
    </label>
  );
}

/**
 * The filter form: applying it changes the list's URL, or calls `onApply` (a queue rule's filter)
 * with `applyLabel` on its button.
 */
export function FilterForm({ filters, facets, scoreNames, onApply, applyLabel = 'Apply' }: { filters: Filters; facets: Facets | null; scoreNames: string[] | null; onApply?: (f: Filters) => void; applyLabel?: string }) {
  // A back or forward step changes the route's filters: the form follows.
  const [draft, setDraft, drop] = useDraft<Filters>(filters, JSON.stringify(filters));
  const field = (name: FilterName, label: string, type = 'text') => (
    <label>
      {label}
      <input name={name} type={type} step={type === 'number' ? '0.1' : undefined} min={type === 'number' ? '-1' : undefined} max={type === 'number' ? '1' : undefined}
        minLength={name === 'comment' ? 3 : undefined} placeholder={name === 'comment' ? '3 letters or more' : undefined}
        value={draft[name] ?? ''} onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
    </label>
  );
  const variantValue = draft.variant ? JSON.stringify([draft.experimentId ?? '', draft.variant]) : '';
  return (
    <form class="filters" aria-label={onApply ? 'Rule filter' : 'Filters'} onSubmit={(e) => {
      e.preventDefault();
      if (onApply) onApply(draft);
      else {
        // Applied, the filters are the URL's: a back step taken before the page draws them still
        // finds the form showing what the URL says.
        drop();
        location.hash = routeHash('responses', null, draft);
      }
    }}>
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
      <Flag name="hasCorrection" label="Corrected" yes="has a user's correction" no="has none" draft={draft} set={setDraft} />
      <Flag name="conflicting" label="Conflicting signals" yes="its score found conflicts" no="none found" draft={draft} set={setDraft} />
      <Choice name="category" label="Error category" values={facets?.categories ?? null} draft={draft} set={setDraft} />
      <Choice name="agent" label="Agent" values={facets?.agents ?? null} draft={draft} set={setDraft} />
      <Choice name="model" label="Model" values={facets?.models ?? null} draft={draft} set={setDraft} />
      {facets ? (
        <label>
          Variant
          <select name="variant" value={variantValue} onChange={(e) => {
            const [experimentId, variant] = e.currentTarget.value ? (JSON.parse(e.currentTarget.value) as [string, string]) : ['', ''];
            setDraft({ ...draft, experimentId, variant });
          }}>
            <option value="">any</option>
            {facets.variants.map((v) => <option key={`${v.experimentId}/${v.variant}`} value={JSON.stringify([v.experimentId, v.variant])}>{v.experimentId} · {v.variant}</option>)}
          </select>
        </label>
      ) : field('variant', 'Variant')}
      {field('minScore', 'Score ≥', 'number')}
      {field('maxScore', 'Score ≤', 'number')}
      <Choice name="scoreName" label="Named score" values={scoreNames} draft={draft} set={setDraft} />
      {draft.scoreName ? (
        <>
          <label>Its value ≥<input name="scoreMin" type="number" step="any" value={draft.scoreMin ?? ''} onInput={(e) => setDraft({ ...draft, scoreMin: e.currentTarget.value })} /></label>
          <label>Its value ≤<input name="scoreMax" type="number" step="any" value={draft.scoreMax ?? ''} onInput={(e) => setDraft({ ...draft, scoreMax: e.currentTarget.value })} /></label>
          <label>Its label<input name="scoreValue" value={draft.scoreValue ?? ''} onInput={(e) => setDraft({ ...draft, scoreValue: e.currentTarget.value })} /></label>
        </>
      ) : null}
      {field('since', 'From', 'date')}
      {field('until', 'Before', 'date')}
      <button type="submit">{applyLabel}</button>
      {Object.keys(filters).length > 0 && !onApply ? <a href={routeHash('responses')}>Clear</a> : null}
    </form>
  );
}
