/**
 * Settings: the workspace's keys (`/v1/keys`), privacy, retention and signal settings
 * (`PATCH /v1/workspace/settings`), webhooks (`/v1/webhooks`), score configs
 * (`/v1/score-configs`) and alert rules (the Alerts page's editor).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, useLoad } from '../ui.js';
import { RuleEditor } from './alerts.js';
import { KeysPanel } from './settings-keys.js';
import { ScoreConfigsPanel } from './settings-scores.js';
import { WorkspaceSettingsForm, type EditableSettings } from './settings-workspace.js';

interface Hook { id: string; url: string; events?: string[]; format?: string; createdAt?: string }
interface Workspace { id: string; name: string; settings: EditableSettings }

/** The events a webhook can carry (the server's OUTBOUND_EVENT_TYPES). */
const HOOK_EVENTS = ['feedback.submitted', 'learning.signal', 'alert.firing', 'alert.resolved', 'training.batch_ready', 'target.corrected'];

/** The Settings page. */
export function Settings() {
  // Loaded together so the cards do not shift one another as each answer arrives.
  const [both, reload] = useLoad(() => Promise.all([api<Workspace>('GET', '/v1/workspace'), api<{ webhooks: Hook[] }>('GET', '/v1/webhooks')]), []);
  const ws = both.state === 'ok' ? { state: 'ok' as const, data: both.data[0] } : both;
  const hooks = both.state === 'ok' ? { state: 'ok' as const, data: both.data[1] } : both;
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['feedback.submitted', 'learning.signal']);
  const [secret, setSecret] = useState('');
  const [status, setStatus] = useState('');
  return (
    <div class="grid">
      <Card title="Keys" wide>
        <Show value={ws}>{(w) => <p class="note">Workspace <strong>{w.name}</strong> (<code>{w.id}</code>). A key is shown once, when it is made.</p>}</Show>
        <KeysPanel />
      </Card>
      <Card title="Privacy, retention and signals">
        <Show value={ws} height={420}>{(w) => <WorkspaceSettingsForm settings={w.settings} onSaved={reload} />}</Show>
      </Card>
      <Card title="Webhooks">
        <Show value={hooks}>
          {(h) => (h.webhooks.length === 0 ? <p class="note">No webhooks.</p> : (
            <ul>{h.webhooks.map((x) => <li key={x.id}>{x.url} <span class="note">{x.format ?? ''} {x.events?.join(', ') ?? ''}</span> <button class="link" aria-label={`Delete webhook ${x.url}`} onClick={async () => { await api('DELETE', `/v1/webhooks/${x.id}`); reload(); }}>Delete</button></li>)}</ul>
          ))}
        </Show>
        {secret ? <p class="warn" role="status">Signing secret (shown once): <code class="secret">{secret}</code></p> : null}
        <form onSubmit={async (e) => {
          e.preventDefault();
          try {
            const made = await api<{ secret: string }>('POST', '/v1/webhooks', { url, events });
            setUrl('');
            setSecret(made.secret);
            setStatus('Added.');
            reload();
          } catch (err) {
            setStatus(err instanceof Error ? err.message : String(err));
          }
        }}>
          <div class="toolbar">
            <label for="hook">Webhook URL</label>
            <input id="hook" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks/feedloop" required />
          </div>
          <fieldset class="toolbar">
            <legend class="note">Events</legend>
            {HOOK_EVENTS.map((ev) => (
              <label key={ev}>
                <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents(e.currentTarget.checked ? [...events, ev] : events.filter((x) => x !== ev))} /> {ev}
              </label>
            ))}
          </fieldset>
          <div class="toolbar">
            <button type="submit" disabled={events.length === 0}>Add webhook</button>
            <span role="status">{status}</span>
          </div>
        </form>
      </Card>
      <Card title="Score configs" wide><ScoreConfigsPanel /></Card>
      <Card title="Alert rules" wide><RuleEditor /></Card>
    </div>
  );
}
