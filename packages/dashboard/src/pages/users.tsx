/**
 * Users: one user's consent (`GET/PUT /v1/users/:userId/consent`), transparency view
 * (`GET /v1/users/:userId/data`), memory with its explanations
 * (`GET /v1/users/:userId/context?explain=true`: `{ text, items[] }`) and erasure with a typed
 * confirmation (`DELETE /v1/users/:userId`). These APIs come with the privacy and memory issues;
 * until a server has them each panel says so.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, useLoad } from '../ui.js';

function UserPanels({ userId }: { userId: string }) {
  const u = encodeURIComponent(userId);
  const [consent, reloadConsent] = useLoad(() => api<Record<string, unknown>>('GET', `/v1/users/${u}/consent`), [userId]);
  const [data] = useLoad(() => api<Record<string, unknown>>('GET', `/v1/users/${u}/data`), [userId]);
  const [memory] = useLoad(
    () => api<{ text: string; items: Array<{ kind: string; text: string; support: number; weight: number; eventIds?: string[] }> }>('GET', `/v1/users/${u}/context?explain=true`),
    [userId],
  );
  const [confirm, setConfirm] = useState('');
  const [status, setStatus] = useState('');
  return (
    <div class="grid">
      <Card title="Consent">
        <Show value={consent}>
          {(c) => (
            <>
              <pre class="small">{JSON.stringify(c, null, 1)}</pre>
              <button onClick={async () => { await api('PUT', `/v1/users/${u}/consent`, { implicit: !(c as { implicit?: boolean }).implicit }); reloadConsent(); }}>
                Toggle implicit-signal consent
              </button>
            </>
          )}
        </Show>
      </Card>
      <Card title="Memory, with why each item is there">
        <Show value={memory}>
          {(m) => (
            <>
              <p class="memory">{m.text || 'Nothing remembered.'}</p>
              <ul>
                {m.items.map((it, i) => (
                  <li key={i}>
                    {it.text}{' '}
                    <span class="note">
                      ({it.kind}: {it.support} events, weight {it.weight.toFixed(1)}
                      {it.eventIds && it.eventIds.length > 0 ? `; events ${it.eventIds.slice(0, 5).join(', ')}${it.eventIds.length > 5 ? ', …' : ''}` : ''})
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </Show>
      </Card>
      <Card title="What feedloop holds about this user" wide>
        <Show value={data}>{(d) => <pre class="small">{JSON.stringify(d, null, 1).slice(0, 4000)}</pre>}</Show>
      </Card>
      <Card title="Erase this user" wide>
        <p>Deletes every response, event and memory of <strong>{userId}</strong>. This cannot be undone. Type the user id to confirm.</p>
        <label>Confirm user id <input value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} /></label>{' '}
        <button
          class="danger"
          disabled={confirm !== userId}
          onClick={async () => {
            try {
              await api('DELETE', `/v1/users/${u}`);
              setStatus('Erased.');
            } catch (e) {
              setStatus(e instanceof Error && e.constructor.name === 'NotAvailable' ? 'Not available on this server.' : e instanceof Error ? e.message : String(e));
            }
          }}
        >
          Erase
        </button>{' '}
        <span role="status">{status}</span>
      </Card>
    </div>
  );
}

/** The Users page. */
export function Users() {
  const [draft, setDraft] = useState('');
  const [userId, setUserId] = useState<string | null>(null);
  return (
    <>
      <form class="toolbar" onSubmit={(e) => { e.preventDefault(); setUserId(draft.trim() || null); }}>
        <label for="user">User id</label>
        <input id="user" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} placeholder="user-42" />
        <button type="submit">Open</button>
      </form>
      {userId ? <UserPanels userId={userId} /> : <p class="note">Enter a user id to see their consent, data and memory.</p>}
    </>
  );
}
