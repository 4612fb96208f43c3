/**
 * The Settings page's keys card (`/v1/keys`): the workspace's keys (secret, public, and reviewer
 * keys: a person who reviews queues, named by the key), a new key shown once with a
 * copy button, and revocation behind a confirmation. The server refuses to revoke the last active
 * secret key, so the owners cannot lock themselves out from here.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Show, useLoad } from '../ui.js';

type Kind = 'secret' | 'public' | 'reviewer';
interface Key { id: string; kind: Kind; prefix: string; name: string | null; createdAt: string; revokedAt: string | null; current: boolean }

const day = (iso: string): string => iso.slice(0, 10);

/** The keys card's contents. */
export function KeysPanel() {
  const [keys, reload] = useLoad(() => api<{ keys: Key[] }>('GET', '/v1/keys'), []);
  const [kind, setKind] = useState<Kind>('public');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ key: string; kind: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const report = (err: unknown) => setStatus(err instanceof Error ? err.message : String(err));
  return (
    <>
      <Show value={keys}>
        {(k) => {
          // The server refuses to revoke the last active secret key; say so instead of offering it.
          const lastSecret = k.keys.filter((x) => x.kind === 'secret' && !x.revokedAt).length === 1;
          return (
          <div class="table-wrap">
            <table class="stack">
              <thead><tr><th>Name</th><th>Kind</th><th>Key</th><th>Created</th><th>State</th><th><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {k.keys.map((x) => (
                  <tr key={x.id}>
                    <td data-label="Name">{x.name ?? <span class="note">unnamed</span>}{x.current ? <span class="tag">this session</span> : null}</td>
                    <td data-label="Kind">{x.kind}</td>
                    <td data-label="Key"><code>{x.prefix}…</code></td>
                    <td data-label="Created">{day(x.createdAt)}</td>
                    <td data-label="State">{x.revokedAt ? `revoked ${day(x.revokedAt)}` : 'active'}</td>
                    <td data-label="">
                      {x.revokedAt ? null : lastSecret && x.kind === 'secret' ? <span class="note">last secret key</span> : confirming === x.id ? (
                        <span class="toolbar">
                          <button class="danger" onClick={async () => {
                            try {
                              await api('DELETE', `/v1/keys/${x.id}`);
                              setStatus(`Revoked ${x.prefix}…`);
                              reload();
                            } catch (err) {
                              report(err);
                            }
                            setConfirming(null);
                          }}>Revoke now</button>
                          <button onClick={() => setConfirming(null)}>Keep</button>
                        </span>
                      ) : (
                        <button class="link" aria-label={`Revoke key ${x.prefix}`} onClick={() => setConfirming(x.id)}>Revoke</button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          );
        }}
      </Show>
      {created ? (
        <div class="warn" role="status">
          <p>New {created.kind} key. Copy it now: it is not shown again.</p>
          <code class="secret" id="new-key">{created.key}</code>{' '}
          <button onClick={() => void navigator.clipboard?.writeText(created.key).then(() => setStatus('Copied.'), report)}>Copy</button>{' '}
          <button class="link" onClick={() => setCreated(null)}>Done</button>
        </div>
      ) : null}
      <form class="toolbar" onSubmit={async (e) => {
        e.preventDefault();
        try {
          const made = await api<{ key: string; kind: string }>('POST', '/v1/keys', name.trim() ? { kind, name: name.trim() } : { kind });
          setCreated(made);
          setName('');
          setStatus('');
          reload();
        } catch (err) {
          report(err);
        }
      }}>
        <label for="key-kind">Kind</label>
        <select id="key-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          <option value="public">public (browser widget: submits feedback only)</option>
          <option value="secret">secret (server side: reads and writes)</option>
          <option value="reviewer">reviewer (a person: reviews the queues it is a member of)</option>
        </select>
        <label for="key-name">{kind === 'reviewer' ? "Reviewer's name" : 'Name'}</label>
        <input id="key-name" value={name} maxLength={kind === 'reviewer' ? 64 : 100} required={kind === 'reviewer'}
          title={kind === 'reviewer' ? 'letters, digits and _ - . : @ / (it names the reviewer in reviews and agreement figures)' : undefined}
          onInput={(e) => setName(e.currentTarget.value)} placeholder={kind === 'reviewer' ? 'ana' : 'web widget'} />
        <button type="submit" class="primary">Create key</button>
        <span role="status">{status}</span>
      </form>
    </>
  );
}
