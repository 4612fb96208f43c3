/**
 * An evaluator's settings form (issue 28): make one (`POST /v1/evaluators`; the answer shows the
 * signing secret once) or change one (`PATCH /v1/evaluators/:id`; a change of url, kind, output,
 * score config or filter makes a new version, which judges again). The server checks every field
 * (the webhook address rules among them); its message is shown as it is.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Evaluator } from './judges-types.js';

type Fields = Pick<Evaluator, 'name' | 'url' | 'kind' | 'output' | 'sample' | 'timeoutMs' | 'ratePerMinute' | 'enabled'> & { scoreConfigId: string; filter: string; secret: string };

const BLANK: Fields = { name: '', url: '', kind: 'pointwise', output: 'thumbs', scoreConfigId: '', sample: 1, filter: '{}', timeoutMs: 10_000, ratePerMinute: 60, enabled: true, secret: '' };

const fieldsOf = (e: Evaluator): Fields => ({ ...e, scoreConfigId: e.scoreConfigId ?? '', filter: JSON.stringify(e.filter, null, 2), secret: '' });

/** The filter as the API takes it, or a message naming what is wrong. */
function parseFilter(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'filter: must be a JSON object, e.g. {"agent": "support"}';
  } catch {
    return 'filter: not JSON; e.g. {"agent": "support"}';
  }
}

/**
 * The form; `evaluator` absent makes a new one. `onSaved` gets the saved evaluator (with its
 * secret when just made).
 */
export function EvaluatorForm({ evaluator, onSaved }: { evaluator?: Evaluator; onSaved: (saved: Evaluator & { secret?: string }) => void }) {
  const [f, setF] = useState<Fields>(() => (evaluator ? fieldsOf(evaluator) : BLANK));
  const [status, setStatus] = useState('');
  const set = (patch: Partial<Fields>) => setF((old) => ({ ...old, ...patch }));
  const save = async (e: Event) => {
    e.preventDefault();
    const filter = parseFilter(f.filter);
    if (typeof filter === 'string') return setStatus(filter);
    const body: Record<string, unknown> = {
      name: f.name.trim(),
      url: f.url.trim(),
      kind: f.kind,
      output: f.output,
      scoreConfigId: f.kind === 'pointwise' && f.output === 'score' && f.scoreConfigId.trim() ? f.scoreConfigId.trim() : null,
      sample: f.sample,
      filter,
      timeoutMs: f.timeoutMs,
      ratePerMinute: f.ratePerMinute,
      enabled: f.enabled,
    };
    if (f.secret.trim()) body.secret = f.secret.trim();
    try {
      const saved = evaluator
        ? await api<Evaluator>('PATCH', `/v1/evaluators/${encodeURIComponent(evaluator.id)}`, body)
        : await api<Evaluator & { secret: string }>('POST', '/v1/evaluators', body);
      setStatus(evaluator ? `Saved (version ${saved.version}).` : `Made ${saved.name}.`);
      if (!evaluator) setF(BLANK);
      onSaved(saved);
    } catch (err) {
      setStatus(err instanceof Error ? err.message : String(err));
    }
  };
  const num = (v: string): number => (v.trim() === '' ? Number.NaN : Number(v));
  return (
    <form class="queue-form evaluator-form" aria-label={evaluator ? 'Evaluator settings' : 'New evaluator'} onSubmit={save}>
      <label class="field">Name<input name="name" required maxLength={200} value={f.name} onInput={(e) => set({ name: e.currentTarget.value })} /></label>
      <label class="field">URL (where calls are POSTed)<input name="url" type="url" required maxLength={2048} placeholder="https://judge.example.com/evaluate" value={f.url} onInput={(e) => set({ url: e.currentTarget.value })} /></label>
      <div class="toolbar">
        <label class="field">Kind
          <select name="kind" value={f.kind} onChange={(e) => set({ kind: e.currentTarget.value as Fields['kind'] })}>
            <option value="pointwise">pointwise: one response</option>
            <option value="pairwise">pairwise: two responses</option>
          </select>
        </label>
        <label class="field">Output
          <select name="output" value={f.output} disabled={f.kind === 'pairwise'} onChange={(e) => set({ output: e.currentTarget.value as Fields['output'] })}>
            <option value="thumbs">thumbs</option>
            <option value="rating">rating (1-5)</option>
            <option value="score">score</option>
          </select>
        </label>
        {f.kind === 'pointwise' && f.output === 'score' ? (
          <label class="field">Score config id<input name="scoreConfigId" maxLength={64} value={f.scoreConfigId} onInput={(e) => set({ scoreConfigId: e.currentTarget.value })} /></label>
        ) : null}
      </div>
      <div class="toolbar">
        <label class="field">Sample (share judged, 0-1)<input name="sample" type="number" required min={0} max={1} step="any" value={f.sample} onInput={(e) => set({ sample: num(e.currentTarget.value) })} /></label>
        <label class="field">Timeout (ms)<input name="timeoutMs" type="number" required min={100} max={120000} step={1} value={f.timeoutMs} onInput={(e) => set({ timeoutMs: num(e.currentTarget.value) })} /></label>
        <label class="field">Calls a minute at most<input name="ratePerMinute" type="number" required min={1} max={10000} step={1} value={f.ratePerMinute} onInput={(e) => set({ ratePerMinute: num(e.currentTarget.value) })} /></label>
        <label class="choice"><input name="enabled" type="checkbox" checked={f.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} /> enabled</label>
      </div>
      <label class="field">Filter (the response list's filters, JSON; {'{}'} judges every response)
        <textarea name="filter" rows={3} spellcheck={false} value={f.filter} onInput={(e) => set({ filter: e.currentTarget.value })} />
      </label>
      <label class="field">{evaluator ? 'New signing secret (empty keeps the current one)' : 'Signing secret (empty: one is made and shown once)'}
        <input name="secret" type="password" autocomplete="new-password" minLength={16} maxLength={200} value={f.secret} onInput={(e) => set({ secret: e.currentTarget.value })} />
      </label>
      <div class="toolbar">
        <button type="submit" class="primary">{evaluator ? 'Save' : 'New evaluator'}</button>
        <span role="status">{status}</span>
      </div>
      {evaluator ? <p class="note">A change of URL, kind, output, score config or filter makes a new version, which judges items again.</p> : null}
    </form>
  );
}
