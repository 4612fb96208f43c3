/**
 * Datasets (issue 27): the workspace's datasets and a form to make one; a dataset at
 * `#/datasets/<id>?version=N` with its versions (append-only: every change is a new one), the
 * items of the chosen version with their expected output and where it came from, a removal (a
 * new version), and an export of that version in each training format
 * (`GET /v1/datasets/:id/export/:format?version=`). Items are added from the Responses list or by
 * a review queue whose dataset it is.
 */
import { useState } from 'preact/hooks';
import { api, download } from '../api.js';
import { routeHash, useRoute } from '../route.js';
import { Card, Show, num, useLoad } from '../ui.js';
import { FORMATS } from './exports.js';

interface Dataset { id: string; name: string; description: string; latestVersion: number; itemCount: number; createdAt: string }
interface Version { version: number; createdAt: string; via: string; added: number; removed: number; itemCount: number; queueId?: string | null }
interface Item { responseId: string; addedInVersion: number; query: string; answer: string; expectedOutput: string | null; expectedSource: string | null }

const when = (iso: string): string => new Date(iso).toLocaleString();
const VIA: Record<string, string> = { responseIds: 'chosen responses', filter: 'a filter', queue: 'a review queue', remove: 'a removal' };

function DatasetList() {
  const [list, reload] = useLoad(() => api<{ datasets: Dataset[] }>('GET', '/v1/datasets'), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [status, setStatus] = useState('');
  return (
    <div class="grid">
      <Card title="Datasets" wide>
        <Show value={list}>
          {(l) => l.datasets.length === 0 ? <p class="note">No datasets yet. Make one below, then add responses from the Responses list or a review queue.</p> : (
            <div class="table-wrap">
              <table class="stack datasets">
                <thead><tr><th scope="col">Dataset</th><th scope="col">Description</th><th scope="col" class="n">Items</th><th scope="col" class="n">Version</th><th scope="col">Created</th></tr></thead>
                <tbody>
                  {l.datasets.map((d) => (
                    <tr key={d.id} data-dataset={d.id}>
                      <td data-label="Dataset"><a class="open" href={routeHash('datasets', d.id)}>{d.name}</a></td>
                      <td data-label="Description">{d.description || <span class="note">none</span>}</td>
                      <td data-label="Items" class="n">{num(d.itemCount)}</td>
                      <td data-label="Version" class="n">{num(d.latestVersion)}</td>
                      <td data-label="Created">{when(d.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Show>
        <form class="toolbar" aria-label="New dataset" onSubmit={async (e) => {
          e.preventDefault();
          try {
            await api('POST', '/v1/datasets', { name: name.trim(), description: description.trim() });
            setStatus(`Made ${name.trim()}.`);
            setName('');
            setDescription('');
            reload();
          } catch (err) {
            setStatus(err instanceof Error ? err.message : String(err));
          }
        }}>
          <label for="ds-name">Name</label>
          <input id="ds-name" name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <label for="ds-desc">Description</label>
          <input id="ds-desc" name="description" maxLength={2000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          <button type="submit" class="primary">New dataset</button>
          <span role="status">{status}</span>
        </form>
      </Card>
    </div>
  );
}

function DatasetDetail({ id, version }: { id: string; version: number | null }) {
  const [detail, reload] = useLoad(() => api<Dataset & { versions: Version[]; nextVersionsBefore: number | null }>('GET', `/v1/datasets/${encodeURIComponent(id)}`), [id]);
  const [status, setStatus] = useState('');
  return (
    <>
      <p><a href={routeHash('datasets')}>← Datasets</a></p>
      <Show value={detail} height={300}>
        {(d) => {
          const v = version ?? d.latestVersion;
          const q = `version=${v}`;
          return (
            <div class="grid">
              <Card title={d.name} wide>
                {d.description ? <p>{d.description}</p> : null}
                <p data-figure="latest">{num(d.itemCount)} items in version {num(d.latestVersion)} (the latest).</p>
                {v === 0 ? <p class="note">Empty: add responses from the Responses list (or a review queue) to make version 1.</p> : (<>
                <h3>Export version {num(v)}</h3>
                <p class="toolbar">
                  {FORMATS.map((f) => (
                    <button key={f} onClick={() => download(`/v1/datasets/${encodeURIComponent(id)}/export/${f}?${q}`, `${d.name}-v${v}-${f}.jsonl`).then(() => setStatus(`Downloaded ${f}.`), (err: unknown) => setStatus(err instanceof Error ? err.message : String(err)))}>{f}</button>
                  ))}
                  <span role="status">{status}</span>
                </p>
                </>)}
              </Card>
              <Card title="Versions">
                {d.versions.length === 0 ? <p class="note">No versions yet: the first change makes version 1.</p> : (
                  <div class="table-wrap">
                    <table class="stack versions">
                      <thead><tr><th scope="col" class="n">Version</th><th scope="col">When</th><th scope="col">By</th><th scope="col" class="n">Added</th><th scope="col" class="n">Removed</th><th scope="col" class="n">Items</th></tr></thead>
                      <tbody>
                        {d.versions.map((x) => (
                          <tr key={x.version} aria-current={x.version === v ? 'true' : undefined}>
                            <td data-label="Version" class="n"><a href={routeHash('datasets', id, { version: String(x.version) })}>{num(x.version)}</a></td>
                            <td data-label="When">{when(x.createdAt)}</td>
                            <td data-label="By">{VIA[x.via] ?? x.via}</td>
                            <td data-label="Added" class="n">{num(x.added)}</td>
                            <td data-label="Removed" class="n">{num(x.removed)}</td>
                            <td data-label="Items" class="n">{num(x.itemCount)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
                {d.nextVersionsBefore !== null ? <p class="note">Older versions are not listed here; open one by its number in the address (<code>?version=N</code>).</p> : null}
              </Card>
              {v > 0 ? (
                <Card title={`Items of version ${num(v)}`} wide>
                  <Items id={id} version={v} latest={v === d.latestVersion} changed={reload} />
                </Card>
              ) : null}
            </div>
          );
        }}
      </Show>
    </>
  );
}

function Items({ id, version, latest, changed }: { id: string; version: number; latest: boolean; changed: () => void }) {
  const [cursor, setCursor] = useState<string | null>(null);
  const [items] = useLoad(() => api<{ data: Item[]; nextCursor: string | null }>('GET', `/v1/datasets/${encodeURIComponent(id)}/items?version=${version}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), [id, version, cursor]);
  const [status, setStatus] = useState('');
  return (
    <Show value={items} height={200}>
      {(l) => l.data.length === 0 ? <p class="note">No items in this version.</p> : (
        <>
          <div class="table-wrap">
            <table class="stack dataset-items">
              <thead><tr><th scope="col">Response</th><th scope="col">Query</th><th scope="col">Expected output</th><th scope="col">From</th><th scope="col" class="n">Added in</th>{latest ? <th scope="col"><span class="sr-only">Actions</span></th> : null}</tr></thead>
              <tbody>
                {l.data.map((x) => (
                  <tr key={x.responseId}>
                    <td data-label="Response"><a href={routeHash('responses', x.responseId)}>{x.responseId}</a></td>
                    <td data-label="Query"><span class="val">{x.query.slice(0, 120)}</span></td>
                    <td data-label="Expected output"><span class="val">{x.expectedOutput ? x.expectedOutput.slice(0, 160) : <span class="note">none</span>}</span></td>
                    <td data-label="From">{x.expectedSource ?? '–'}</td>
                    <td data-label="Added in" class="n">v{x.addedInVersion}</td>
                    {latest ? (
                      <td data-label="">
                        <button class="link" aria-label={`Remove ${x.responseId}`} onClick={async () => {
                          try {
                            await api('DELETE', `/v1/datasets/${encodeURIComponent(id)}/items/${encodeURIComponent(x.responseId)}`);
                            changed();
                          } catch (err) {
                            setStatus(err instanceof Error ? err.message : String(err));
                          }
                        }}>Remove</button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="pager">
            <span role="status">{num(l.data.length)} shown {status}</span>
            {l.nextCursor ? <button onClick={() => setCursor(l.nextCursor)}>More</button> : null}
            {cursor ? <button onClick={() => setCursor(null)}>First page</button> : null}
          </p>
        </>
      )}
    </Show>
  );
}

/** The Datasets page: the list, or one dataset at `#/datasets/<id>?version=N`. */
export function Datasets() {
  const route = useRoute();
  const v = route.params.get('version');
  if (route.id !== null) return <DatasetDetail key={route.id} id={route.id} version={v && /^\d+$/.test(v) ? Number(v) : null} />;
  return <DatasetList />;
}
