/**
 * Exports and training batches: for the chosen format, what an export would write and why it
 * writes fewer rows than it reads (`GET /v1/exports/:format?validate=true`: the responses and
 * events read, rows deduplicated and candidates left out, by reason), then the download with the
 * same options; list, run (`POST /v1/training-batches`) and download training batches.
 */
import { useState } from 'preact/hooks';
import { api, download } from '../api.js';
import { Card, Show, num, useLoad } from '../ui.js';

interface Batch { id: string; kind: string; format: string; eventCount: number; rowCount: number; createdAt?: string }
interface Report {
  format: string; rows: number; valid: number; errors: Record<string, number>;
  read: { responses: number; events: number; eventsByType: Record<string, number> };
  deduplicated: Record<string, number>; leftOut: Record<string, number>;
}
/** The formats of `GET /v1/exports/:format` (docs/exports.md). */
export const FORMATS = ['trl-dpo', 'trl-sft', 'trl-kto', 'openai-chat', 'openai-preference', 'learning-signals', 'nli', 'anonymized'];

/** Each reason in words (core's DEDUP_REASONS and LEFT_OUT_REASONS; docs/exports.md). */
export const REASONS: Record<string, string> = {
  samePrompt: 'a row for the same normalized prompt was already written: one row per prompt',
  sameAnswerAndLabel: 'the same answer with the same label for the same prompt was already written',
  sameSample: 'the same premise, hypothesis and label was already written',
  neutralRating: 'answers judged only by a 3-star rating: neither good nor bad',
  sameText: 'pairs whose two texts are the same (a correction that changed nothing, or a good and a bad answer with one text)',
  contradictory: 'answers voted both up and down',
  unpaired: 'judged answers with no opposite answer to the same prompt to pair with',
  missingText: 'label corrections whose premise or hypothesis is unknown',
};

const total = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

function ReasonRows({ counts, kind }: { counts: Record<string, number>; kind: string }) {
  return (
    <>
      {Object.entries(counts).map(([reason, n]) => (
        <tr key={`${kind}-${reason}`} data-reason={reason}>
          <td data-label="What">{kind}</td>
          <td data-label="Count" class="n">{num(n)}</td>
          <td data-label="Why"><span class="val">{REASONS[reason] ?? reason} <code class="ids">{reason}</code></span></td>
        </tr>
      ))}
    </>
  );
}

/** What the export of a format will write, and what it leaves out and why. */
function Explained({ r, dedup }: { r: Report; dedup: boolean }) {
  const byType = Object.entries(r.read.eventsByType).sort((a, b) => b[1] - a[1]);
  const dropped = total(r.deduplicated) + total(r.leftOut);
  return (
    <div class="explained" aria-label="What the export writes">
      <p class="verdict">
        <strong data-figure="rows">{num(r.rows)} rows</strong> from {num(r.read.responses)} responses with {num(r.read.events)} counted, verified events
        {byType.length ? ` (${byType.map(([t, n]) => `${num(n)} ${t}`).join(', ')})` : ''}.
        {r.valid !== r.rows ? ` ${num(r.rows - r.valid)} rows break the format's rules (${Object.entries(r.errors).map(([k, n]) => `${k}: ${num(n)}`).join(', ')}).` : ''}
      </p>
      {dropped === 0 ? <p class="note">Nothing was deduplicated or left out.</p> : (
        <div class="table-wrap">
          <table class="stack reasons">
            <thead><tr><th scope="col">What</th><th scope="col" class="n">Count</th><th scope="col">Why</th></tr></thead>
            <tbody>
              <ReasonRows counts={r.deduplicated} kind="deduplicated" />
              <ReasonRows counts={r.leftOut} kind="left out" />
            </tbody>
          </table>
        </div>
      )}
      {total(r.deduplicated) > 0 && dedup ? <p class="note">Untick “one row per prompt” to keep the {num(total(r.deduplicated))} deduplicated rows.</p> : null}
    </div>
  );
}

/** The Exports page. */
export function Exports() {
  const [format, setFormat] = useState('trl-dpo');
  const [dedup, setDedup] = useState(true);
  const [status, setStatus] = useState('');
  const query = `dedup=${dedup}`;
  const [report] = useLoad(() => api<Report>('GET', `/v1/exports/${format}?validate=true&${query}`), [format, query]);
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
  return (
    <div class="grid">
      <Card title="Export" wide>
        <div class="toolbar">
          <label for="format">Format</label>
          <select id="format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
            {FORMATS.map((f) => <option key={f}>{f}</option>)}
          </select>
          <label><input type="checkbox" id="dedup" checked={dedup} onChange={(e) => setDedup(e.currentTarget.checked)} /> one row per prompt</label>
          <button class="primary" onClick={() => run(() => download(`/v1/exports/${format}?${query}`, `feedloop-${format}.jsonl`), 'Exporting…')}>Download export</button>
          <span role="status">{status}</span>
        </div>
        <Show value={report} height={160}>{(r) => <Explained r={r} dedup={dedup} />}</Show>
      </Card>
      <Card title="Training batches" wide>
        <p><button onClick={() => run(async () => { await api('POST', '/v1/training-batches', {}); reload(); }, 'Running a batch…')}>Run a batch now</button></p>
        <Show value={batches}>
          {(b) => b.batches.length === 0 ? <p class="note">No batches yet.</p> : (
            <div class="table-wrap">
              <table class="stack">
                <thead><tr><th scope="col">Batch</th><th scope="col">Kind</th><th scope="col">Format</th><th scope="col" class="n">Events</th><th scope="col" class="n">Rows</th><th scope="col">File</th></tr></thead>
                <tbody>
                  {b.batches.map((x) => (
                    <tr key={x.id}>
                      <td data-label="Batch"><span class="val"><code class="ids">{x.id}</code>{x.createdAt ? ` · ${new Date(x.createdAt).toLocaleString()}` : ''}</span></td>
                      <td data-label="Kind">{x.kind}</td>
                      <td data-label="Format">{x.format}</td>
                      <td data-label="Events" class="n">{num(x.eventCount)}</td>
                      <td data-label="Rows" class="n">{num(x.rowCount)}</td>
                      <td data-label="File"><button class="link" onClick={() => run(() => download(`/v1/training-batches/${x.id}/file`, `${x.id}.jsonl`), 'Downloading…')}>Download</button></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Show>
        <p class="note">A batch claims unused examples once: its rows are built from its own events without deduplication (docs/exports.md).</p>
      </Card>
    </div>
  );
}
