/**
 * The Settings page's privacy, retention and signal settings: a form over
 * `PATCH /v1/workspace/settings` that sends only the fields changed, so two people editing
 * different settings do not overwrite each other. The server validates; its message names the
 * field.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';

/** The settings this form edits, as `GET /v1/workspace` returns them (defaults filled in). */
export type EditableSettings = Record<string, unknown>;

type Field =
  | { name: string; label: string; hint: string; kind: 'number'; min: number; max: number; step?: number; nullable?: boolean }
  | { name: string; label: string; hint: string; kind: 'select'; options: string[] }
  | { name: string; label: string; hint: string; kind: 'boolean' };

/** What the form shows, in the order shown; names are the API's (docs/privacy.md, README). */
const FIELDS: Field[] = [
  { name: 'implicitConsent', label: 'Implicit signals', hint: 'required: only from users who opted in; assumed: your app obtained consent (opt-outs still apply)', kind: 'select', options: ['required', 'assumed'] },
  { name: 'queryPrivacy', label: 'Stored queries', hint: 'text as sent, only a SHA-256, or with personal data redacted', kind: 'select', options: ['text', 'sha256', 'redacted'] },
  { name: 'redactPii', label: 'Redact personal data at ingest', hint: 'emails, phone and card numbers, IBANs, secrets in queries, answers and feedback', kind: 'boolean' },
  { name: 'retentionDays', label: 'Retention (days)', hint: 'older events are archived, then deleted', kind: 'number', min: 1, max: 3650 },
  { name: 'maxEventsPerUser', label: 'Events kept per user', hint: 'empty: no limit', kind: 'number', min: 1, max: 100_000_000, nullable: true },
  { name: 'maxEvents', label: 'Events kept in the workspace', hint: 'empty: no limit', kind: 'number', min: 1, max: 1_000_000_000, nullable: true },
  { name: 'implicitSampleRate', label: 'Implicit sample rate', hint: 'share of implicit events stored (0-1]; estimates are weighted', kind: 'number', min: 0.001, max: 1, step: 0.001 },
  { name: 'kAnonymity', label: 'k-anonymity of aggregates', hint: 'groups with fewer users are left out of aggregates and baselines', kind: 'number', min: 2, max: 1000 },
  { name: 'feedbackWindowHours', label: 'Feedback window (hours)', hint: 'explicit feedback later than this after the response is refused', kind: 'number', min: 1, max: 8760 },
  { name: 'decayHalfLifeDays', label: 'Signal half-life (days)', hint: 'a signal this old counts half', kind: 'number', min: 1, max: 3650 },
];

/** Parses a form value back to the API's type; `undefined` when it is not a valid entry. */
function parse(field: Field, raw: string | boolean): unknown {
  if (field.kind === 'boolean') return raw === true;
  if (field.kind === 'select') return raw;
  if (raw === '') return field.nullable ? null : undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** The settings form; `onSaved` gets the workspace as the server answered it. */
export function WorkspaceSettingsForm({ settings, onSaved }: { settings: EditableSettings; onSaved: () => void }) {
  const [draft, setDraft] = useState<Record<string, string | boolean>>({});
  const [status, setStatus] = useState('');
  const shown = (f: Field): string | boolean => {
    if (f.name in draft) return draft[f.name]!;
    const v = settings[f.name];
    return f.kind === 'boolean' ? v === true : v === null || v === undefined ? '' : String(v);
  };
  const changed = FIELDS.filter((f) => f.name in draft && parse(f, draft[f.name]!) !== settings[f.name]);
  return (
    <form class="settings-form" onSubmit={async (e) => {
      e.preventDefault();
      const patch: Record<string, unknown> = {};
      for (const f of changed) patch[f.name] = parse(f, draft[f.name]!);
      try {
        await api('PATCH', '/v1/workspace/settings', patch);
        setDraft({});
        setStatus(`Saved ${changed.map((f) => f.label.toLowerCase()).join(', ')}.`);
        onSaved();
      } catch (err) {
        setStatus(err instanceof Error ? err.message : String(err));
      }
    }}>
      {FIELDS.map((f) => {
        const id = `setting-${f.name}`;
        const set = (v: string | boolean) => setDraft({ ...draft, [f.name]: v });
        const value = shown(f);
        return [
          <label for={id} key={`${id}-l`}>{f.label}</label>,
          f.kind === 'boolean' ? (
            <input id={id} key={id} type="checkbox" checked={value === true} onChange={(e) => set(e.currentTarget.checked)} />
          ) : f.kind === 'select' ? (
            <select id={id} key={id} value={String(value)} onChange={(e) => set(e.currentTarget.value)}>
              {f.options.map((o) => <option key={o} value={o}>{o}</option>)}
            </select>
          ) : (
            <input id={id} key={id} type="number" min={f.min} max={f.max} step={f.step ?? 1} value={String(value)} onInput={(e) => set(e.currentTarget.value)} />
          ),
          <span class="note hint" key={`${id}-h`}>{f.hint}</span>,
        ];
      })}
      <span role="status">{status}</span>
      <button type="submit" class="primary" disabled={changed.length === 0}>Save {changed.length === 0 ? '' : `(${changed.length})`}</button>
    </form>
  );
}
