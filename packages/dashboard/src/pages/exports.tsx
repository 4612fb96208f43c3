/**
 * Exports and training batches: run an export in any format (`GET /v1/exports/:format`) and
 * download it; list, run (`POST /v1/training-batches`) and download training batches.
 */
import { useState } from 'preact/hooks';
import { api, download } from '../api.js';
import { Card, Show, num, useLoad } from '../ui.js';

interface Batch { id: string; kind: string; format: string; eventCount: number; createdAt?: string; [k: string]: unknown }
/** The formats of `GET /v1/exports/:format` (docs/exports.md). */
const FORMATS = ['trl-dpo', 'trl-sft', 'trl-kto', 'openai-chat', 'openai-preference', 'learning-signals', 'nli', 'anonymized'];

/** The Exports page. */
export function Exports() {
  const [format, setFormat] = useState('trl-dpo');
  const [status, setStatus] = useState('');
  const [batches, reload] = useLoad(() => api<{ batches: Batch[] }>('GET', '/v1/training-batches'), []);
  const run = async (f: () => Promise<void>, busy: string) => {
    setStatus(busy);
    try {
      await f();
      setStatus('Done.');
    } catch (e) {
      setStatus(e instanceof Error ? e.message : String(e));
    }
  };
  const names = FORMATS;
  return (
    <div class="grid">
      <Card title="Export" wide>
        <div class="toolbar">
          <label for="format">Format</label>
          <select id="format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
            {names.map((f) => <option key={f}>{f}</option>)}
          </select>
          <button class="primary" onClick={() => run(() => download(`/v1/exports/${format}`, `feedloop-${format}.jsonl`), 'Exporting…')}>Download export</button>
          <span role="status">{status}</span>
        </div>
      </Card>
      <Card title="Training batches" wide>
        <p><button onClick={() => run(async () => { await api('POST', '/v1/training-batches', {}); reload(); }, 'Running a batch…')}>Run a batch now</button></p>
        <Show value={batches}>
          {(b) => b.batches.length === 0 ? <p class="note">No batches yet.</p> : (
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Batch</th><th scope="col">Kind</th><th scope="col">Format</th><th scope="col" class="n">Events</th><th scope="col">File</th></tr></thead>
                <tbody>
                  {b.batches.map((x) => (
                    <tr key={x.id}>
                      <td>{x.id}{x.createdAt ? ` · ${new Date(x.createdAt).toLocaleString()}` : ''}</td><td>{x.kind}</td><td>{x.format}</td><td class="n">{num(x.eventCount)}</td>
                      <td><button class="link" onClick={() => run(() => download(`/v1/training-batches/${x.id}/file`, `${x.id}.jsonl`), 'Downloading…')}>Download</button></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Show>
      </Card>
    </div>
  );
}
