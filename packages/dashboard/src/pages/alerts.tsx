/**
 * Alerts: the active ones and their history (`GET /v1/alerts`), and the rule editor
 * (`GET/PUT /v1/alert-rules`) with a preview of what the edited rules would have fired over the
 * last 30 days (`POST /v1/alert-rules/preview`), before saving.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, useLoad } from '../ui.js';

interface Alert { id: string; ruleId: string; severity: string; state: string; message: string; value: number; threshold: number; activeAt: string; firedAt: string | null; resolvedAt: string | null }
interface Rule { id: string; kind: string; severity: string; threshold: number; windowHours: number; minSample: number; forSeconds: number; enabled: boolean; [k: string]: unknown }
interface Previewed { ruleId: string; severity: string; message: string; firedAt: string; resolvedAt: string | null }

const when = (s: string | null): string => (s ? new Date(s).toLocaleString() : '–');

function AlertTable({ alerts }: { alerts: Alert[] }) {
  if (alerts.length === 0) return <p class="note">None.</p>;
  return (
    <div class="table-wrap">
      <table class="stack">
        <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Fired</th><th scope="col">Resolved</th></tr></thead>
        <tbody>
          {alerts.map((a) => (
            <tr key={a.id}>
              <td data-label="Severity"><span class={`tag ${a.severity}`}>{a.severity}</span></td>
              <td data-label="What">{a.message}</td>
              <td data-label="Fired">{when(a.firedAt ?? a.activeAt)}</td>
              <td data-label="Resolved">{a.state === 'resolved' ? when(a.resolvedAt) : a.state}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The rule editor: edits a copy, previews it, saves it. */
export function RuleEditor() {
  const [saved, reload] = useLoad(() => api<{ rules: Rule[]; default: boolean }>('GET', '/v1/alert-rules'), []);
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [preview, setPreview] = useState<Previewed[] | null>(null);
  const [status, setStatus] = useState('');
  return (
    <Show value={saved}>
      {(s) => {
        const current = rules ?? s.rules;
        const set = (i: number, patch: Partial<Rule>) => setRules(current.map((r, j) => (j === i ? { ...r, ...patch } : r)));
        const body = { rules: current.map(({ id, kind, severity, threshold, windowHours, minSample, forSeconds, enabled, hysteresis, baselineDays, minCount, maxPValue }) => ({ id, kind, severity, threshold, windowHours, minSample, forSeconds, enabled, hysteresis, baselineDays, minCount, maxPValue })) };
        return (
          <>
            <p class="note">{s.default ? 'These are the default rules; saving makes them this workspace’s own.' : 'This workspace’s own rules.'}</p>
            <div class="table-wrap">
              <table class="rules stack">
                <thead><tr><th scope="col">On</th><th scope="col">Rule</th><th scope="col">Severity</th><th scope="col">Threshold</th><th scope="col">Window (h)</th><th scope="col">Min sample</th></tr></thead>
                <tbody>
                  {current.map((r, i) => (
                    <tr key={r.id}>
                      <td data-label="On"><input type="checkbox" aria-label={`${r.id} enabled`} checked={r.enabled} onChange={(e) => set(i, { enabled: e.currentTarget.checked })} /></td>
                      <td data-label="Rule">{r.id} <span class="note">({r.kind})</span></td>
                      <td data-label="Severity">
                        <select aria-label={`${r.id} severity`} value={r.severity} onChange={(e) => set(i, { severity: e.currentTarget.value })}>
                          <option>warning</option>
                          <option>critical</option>
                        </select>
                      </td>
                      <td data-label="Threshold"><input type="number" step="any" aria-label={`${r.id} threshold`} name={`threshold-${r.id}`} value={r.threshold} onInput={(e) => set(i, { threshold: Number(e.currentTarget.value) })} /></td>
                      <td data-label="Window (h)"><input type="number" aria-label={`${r.id} window hours`} value={r.windowHours} onInput={(e) => set(i, { windowHours: Number(e.currentTarget.value) })} /></td>
                      <td data-label="Min sample"><input type="number" aria-label={`${r.id} minimum sample`} value={r.minSample} onInput={(e) => set(i, { minSample: Number(e.currentTarget.value) })} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="actions">
              <button
                onClick={async () => {
                  setStatus('Replaying the last 30 days…');
                  try {
                    const p = await api<{ alerts: Previewed[] }>('POST', '/v1/alert-rules/preview', { ...body, days: 30 });
                    setPreview(p.alerts);
                    setStatus('');
                  } catch (e) {
                    setStatus(e instanceof Error ? e.message : String(e));
                  }
                }}
              >
                Preview last 30 days
              </button>
              <button
                class="primary"
                onClick={async () => {
                  try {
                    await api('PUT', '/v1/alert-rules', body);
                    setRules(null);
                    reload();
                    setStatus('Saved.');
                  } catch (e) {
                    setStatus(e instanceof Error ? e.message : String(e));
                  }
                }}
              >
                Save rules
              </button>
              <span role="status">{status}</span>
            </p>
            {preview ? (
              <div aria-label="Preview">
                <h3>These rules would have fired {preview.length} time{preview.length === 1 ? '' : 's'} in the last 30 days</h3>
                <ul>
                  {preview.map((p, i) => (
                    <li key={i}><span class={`tag ${p.severity}`}>{p.severity}</span> {when(p.firedAt)} → {p.resolvedAt ? when(p.resolvedAt) : 'still firing'}: {p.message}</li>
                  ))}
                </ul>
              </div>
            ) : null}
          </>
        );
      }}
    </Show>
  );
}

/** The Alerts page. Both lists load together and the editor comes last, so nothing shifts as they arrive. */
export function Alerts() {
  const [lists] = useLoad(
    () => Promise.all([api<{ alerts: Alert[] }>('GET', '/v1/alerts?state=firing'), api<{ alerts: Alert[] }>('GET', '/v1/alerts?state=resolved&limit=50')]),
    [],
  );
  return (
    <div class="grid">
      <Show value={lists} height={200}>
        {([firing, history]) => (
          <>
            <Card title="Firing now" wide><AlertTable alerts={firing.alerts} /></Card>
            <Card title="History" wide><AlertTable alerts={history.alerts} /></Card>
          </>
        )}
      </Show>
      <Card title="Rules" wide><RuleEditor /></Card>
    </div>
  );
}
