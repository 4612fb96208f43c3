/**
 * Settings: the workspace and its keys, webhooks (`/v1/webhooks`), alert rules (the Alerts page's
 * editor), and privacy and retention (the workspace's settings; edited through the privacy API
 * once the server has it).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, useLoad } from '../ui.js';
import { RuleEditor } from './alerts.js';

interface Hook { id: string; url: string; events?: string[]; format?: string; createdAt?: string }

/** The Settings page. */
export function Settings() {
  // Loaded together so the cards do not shift one another as each answer arrives.
  const [both, reload] = useLoad(() => Promise.all([api<Record<string, unknown>>('GET', '/v1/workspace'), api<{ webhooks?: Hook[]; data?: Hook[] }>('GET', '/v1/webhooks')]), []);
  const ws = both.state === 'ok' ? { state: 'ok' as const, data: both.data[0] } : both;
  const hooks = both.state === 'ok' ? { state: 'ok' as const, data: both.data[1] } : both;
  const [url, setUrl] = useState('');
  const [status, setStatus] = useState('');
  return (
    <div class="grid">
      <Card title="Workspace and keys">
        <Show value={ws}>{(w) => <pre class="small">{JSON.stringify(w, null, 1)}</pre>}</Show>
        <p class="note">Keys are created and revoked with <code>feedloop key create|list|revoke --workspace …</code>; a key is shown once.</p>
      </Card>
      <Card title="Privacy and retention">
        <Show value={ws}>
          {(w) => <pre class="small">{JSON.stringify((w as { settings?: unknown }).settings ?? {}, null, 1)}</pre>}
        </Show>
      </Card>
      <Card title="Webhooks" wide>
        <Show value={hooks}>
          {(h) => {
            const list = h.webhooks ?? h.data ?? [];
            return list.length === 0 ? <p class="note">No webhooks.</p> : (
              <ul>{list.map((x) => <li key={x.id}>{x.url} <span class="note">{x.format ?? ''} {x.events?.join(', ') ?? ''}</span> <button class="link" onClick={async () => { await api('DELETE', `/v1/webhooks/${x.id}`); reload(); }}>Delete</button></li>)}</ul>
            );
          }}
        </Show>
        <form class="toolbar" onSubmit={async (e) => {
          e.preventDefault();
          try {
            await api('POST', '/v1/webhooks', { url });
            setUrl('');
            setStatus('Added.');
            reload();
          } catch (err) {
            setStatus(err instanceof Error ? err.message : String(err));
          }
        }}>
          <label for="hook">Webhook URL</label>
          <input id="hook" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks/feedloop" required />
          <button type="submit">Add</button>
          <span role="status">{status}</span>
        </form>
      </Card>
      <Card title="Alert rules" wide><RuleEditor /></Card>
    </div>
  );
}
