/**
 * An evaluator's calls and backfills on the Judges page (issue 28; docs/evaluators.md): the call
 * log paged through `GET /v1/evaluators/:id/calls` (`status`, `cursor`, `limit`; newest first),
 * a dead letter's retry (`POST …/calls/:callId/retry`), and backfills: started with
 * `POST /v1/evaluators/:id/backfill { since, until, limit }`, their progress read from
 * `GET /v1/evaluators/:id/backfills` (walked, queued, calls by status) and refreshed while one runs.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { routeHash } from '../route.js';
import { Show, duration, num, useLoad } from '../ui.js';
import { dayStart, when } from './judges-format.js';
import type { Backfill, EvaluatorCall } from './judges-types.js';

/** Calls a page of the log shows. */
const PAGE = 20;
/** How often a running backfill's progress is read again. */
const POLL_MS = 2_000;

/** The call log: a status filter, pages older and newer, and a retry on each dead letter. */
export function CallLog({ id, onRetried }: { id: string; onRetried: () => void }) {
  const [status, setStatus] = useState('');
  // The cursors of the pages walked so far: the last is the page shown (none: the newest).
  const [cursors, setCursors] = useState<string[]>([]);
  const qs = new URLSearchParams({ limit: String(PAGE), ...(status ? { status } : {}), ...(cursors.length > 0 ? { cursor: cursors[cursors.length - 1] as string } : {}) }).toString();
  const [page, reload] = useLoad(() => api<{ calls: EvaluatorCall[]; nextCursor: string | null }>('GET', `/v1/evaluators/${encodeURIComponent(id)}/calls?${qs}`), [id, qs]);
  const [said, say] = useState('');
  const retry = async (callId: number) => {
    try {
      await api('POST', `/v1/evaluators/${encodeURIComponent(id)}/calls/${callId}/retry`, {});
      say(`Call ${callId} is sent again.`);
      reload();
      onRetried();
    } catch (err) {
      say(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <>
      <form class="filters" aria-label="Calls shown" onSubmit={(e) => e.preventDefault()}>
        <label>Status
          <select name="status" value={status} onChange={(e) => { setStatus(e.currentTarget.value); setCursors([]); }}>
            <option value="">any</option>
            <option value="pending">pending</option>
            <option value="done">done</option>
            <option value="dead">dead letters</option>
          </select>
        </label>
      </form>
      <Show value={page}>
        {(p) => (
          <>
            {p.calls.length === 0 ? <p class="note">{status || cursors.length > 0 ? 'No calls here.' : 'No calls yet: new responses that match the filter are judged as they arrive.'}</p> : (
              <div class="table-wrap">
                <table class="stack calls" aria-label="Calls">
                  <thead><tr><th scope="col">Call</th><th scope="col">Response</th><th scope="col">Status</th><th scope="col" class="n">Attempts</th><th scope="col" class="n">Latency</th><th scope="col">Error</th></tr></thead>
                  <tbody>
                    {p.calls.map((c) => (
                      <tr key={c.id} data-call={c.id} data-status={c.status}>
                        <td data-label="Call">{c.id} <span class="note">v{c.evaluatorVersion} · {c.origin} · {when(c.createdAt)}</span></td>
                        <td data-label="Response"><a href={routeHash('responses', c.responseId)}>{c.responseId}</a>{c.responseBId ? <> vs <a href={routeHash('responses', c.responseBId)}>{c.responseBId}</a></> : null}</td>
                        <td data-label="Status">{c.deadLetter ? <strong class="error">dead letter</strong> : c.status}</td>
                        <td data-label="Attempts" class="n">{num(c.attempts)}</td>
                        <td data-label="Latency" class="n">{duration(c.latencyMs)}</td>
                        <td data-label="Error">
                          {c.lastError ? <code>{c.lastError}{c.lastStatusCode ? ` (HTTP ${c.lastStatusCode})` : ''}</code> : '–'}
                          {c.deadLetter ? <> <button type="button" onClick={() => void retry(c.id)}>Retry</button></> : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <p class="pager">
              <span data-page={cursors.length + 1}>Page {num(cursors.length + 1)} · {num(p.calls.length)} shown</span>
              {cursors.length > 0 ? <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button> : null}
              {p.nextCursor ? <button type="button" onClick={() => setCursors([...cursors, p.nextCursor as string])}>Older</button> : null}
              {cursors.length > 1 ? <button type="button" onClick={() => setCursors([])}>Newest</button> : null}
              <span role="status">{said}</span>
            </p>
          </>
        )}
      </Show>
    </>
  );
}

/** Backfills: the form that starts one, and each one's progress (read again while one runs). */
export function Backfills({ id, kind, enabled }: { id: string; kind: 'pointwise' | 'pairwise'; enabled: boolean }) {
  const [list, reload] = useLoad(() => api<{ backfills: Backfill[] }>('GET', `/v1/evaluators/${encodeURIComponent(id)}/backfills`), [id]);
  const [f, setF] = useState({ since: '', until: '', limit: '1000' });
  const [said, say] = useState('');
  // While a backfill walks, or its calls wait to be sent by an enabled judge, its progress moves: read it again.
  const moving = list.state === 'ok' && list.data.backfills.some((b) => b.status === 'running' || (enabled && b.calls.pending > 0));
  useEffect(() => {
    if (!moving) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [list, moving]);
  const start = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { since: dayStart(f.since), limit: Number(f.limit) };
    if (f.until) body.until = dayStart(f.until);
    try {
      const made = await api<Backfill>('POST', `/v1/evaluators/${encodeURIComponent(id)}/backfill`, body);
      say(`Backfill ${made.id} started.`);
      reload();
    } catch (err) {
      say(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <>
      <p class="note">Judge what already exists: the {kind === 'pairwise' ? 'pairwise review items' : 'responses'} created in the period, sampled and filtered as new ones; an item already judged by this version is not judged again.</p>
      <form class="filters" aria-label="New backfill" onSubmit={start}>
        <label>Since (UTC day)<input name="since" type="date" required value={f.since} onInput={(e) => setF({ ...f, since: e.currentTarget.value })} /></label>
        <label>Before (UTC day; empty: now)<input name="until" type="date" value={f.until} onInput={(e) => setF({ ...f, until: e.currentTarget.value })} /></label>
        <label>Items at most<input name="limit" type="number" required min={1} max={100000} step={1} value={f.limit} onInput={(e) => setF({ ...f, limit: e.currentTarget.value })} /></label>
        <button type="submit">Backfill</button>
        <span role="status">{said}</span>
      </form>
      <Show value={list}>
        {(l) => l.backfills.length === 0 ? <p class="note">No backfills yet.</p> : (
          <div class="table-wrap">
            <table class="stack backfills" aria-label="Backfills">
              <thead><tr><th scope="col">Backfill</th><th scope="col">Period</th><th scope="col">Status</th><th scope="col" class="n">Walked</th><th scope="col" class="n">Queued</th><th scope="col" class="n">Done</th><th scope="col" class="n">Pending</th><th scope="col" class="n">Dead</th></tr></thead>
              <tbody>
                {l.backfills.map((b) => (
                  <tr key={b.id} data-backfill={b.id} data-status={b.status}>
                    <td data-label="Backfill">{b.id} <span class="note">v{b.evaluatorVersion} · at most {num(b.limit)} · {when(b.createdAt)}</span></td>
                    <td data-label="Period">{when(b.since)} to {when(b.until)}</td>
                    <td data-label="Status">{b.status}{b.finishedAt ? <span class="note"> {when(b.finishedAt)}</span> : null}</td>
                    <td data-label="Walked" class="n" data-figure="considered">{num(b.considered)}</td>
                    <td data-label="Queued" class="n" data-figure="queued">{num(b.queued)}</td>
                    <td data-label="Done" class="n" data-figure="done">{num(b.calls.done)}</td>
                    <td data-label="Pending" class="n" data-figure="pending">{num(b.calls.pending)}</td>
                    <td data-label="Dead" class="n" data-figure="dead">{num(b.calls.dead)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Show>
    </>
  );
}
