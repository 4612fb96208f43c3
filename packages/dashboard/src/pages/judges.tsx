/**
 * Judges (issue 28; docs/evaluators.md): the workspace's evaluators with their calls, errors and
 * weight state, and a form to make one; an evaluator at `#/judges/<id>` with its weight (factor,
 * kappa, n, the rule), its calls and their errors (a dead letter can be sent again), its
 * calibration against the humans (the whole period and per ISO week, each figure with its 95 %
 * interval and n), the disagreements worst first (each opens its response), and its settings.
 * Every figure is the API's, shown as given: the page computes none of its own.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { routeHash, useRoute } from '../route.js';
import { Card, Figure, LineChart, Show, duration, num, useLoad } from '../ui.js';
import { EvaluatorForm } from './judges-form.js';
import type { Calibration, CalibrationFigures, Estimate, Evaluator, EvaluatorCall } from './judges-types.js';

const when = (iso: string | null): string => (iso === null ? '–' : new Date(iso).toLocaleString());
/** A coefficient to 2 decimals (kappa, rho). */
const coef = (x: number | null): string => (x === null ? '–' : x.toFixed(2));
/** A share as a percentage to 1 decimal. */
const share = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);
const interval = (e: Estimate, f: (x: number | null) => string): string => (e.low === null || e.high === null ? 'no interval' : `${f(e.low)} to ${f(e.high)}`);
const what = (e: Evaluator): string => (e.kind === 'pairwise' ? 'pairwise' : `pointwise · ${e.output}`);

/** The weight state in words: counted or not, and why. */
function WeightText({ e }: { e: Evaluator }) {
  const w = e.weight;
  return (
    <span data-figure="weight-factor">
      {w.factor > 0 ? <strong>{`counts ${w.factor} × human`}</strong> : <strong>weighs 0</strong>}
      <span class="note"> (kappa {coef(w.kappa)}, n {num(w.n)}{w.checkedAt ? `, checked ${when(w.checkedAt)}` : ', not checked yet'})</span>
    </span>
  );
}

/** Each evaluator with its calls by status (the list has no counts; each one's detail has). */
async function loadEvaluators(): Promise<Evaluator[]> {
  const { evaluators } = await api<{ evaluators: Evaluator[] }>('GET', '/v1/evaluators');
  return Promise.all(evaluators.map((e) => api<Evaluator>('GET', `/v1/evaluators/${encodeURIComponent(e.id)}`)));
}

function JudgeList() {
  const [list, reload] = useLoad(loadEvaluators, []);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  return (
    <div class="grid">
      <Card title="Evaluators" wide>
        <p class="note">Automated judges (an HTTP endpoint the team runs) whose answers are stored as feedback of source judge, held to the humans' labels. A judge counts in the composite score only while it agrees with the humans well enough.</p>
        <Show value={list}>
          {(l) => l.length === 0 ? <p class="note">No evaluators yet. Make one below.</p> : (
            <div class="table-wrap">
              <table class="stack judges">
                <thead><tr><th scope="col">Evaluator</th><th scope="col">Judges</th><th scope="col" class="n">Calls done</th><th scope="col" class="n">Pending</th><th scope="col" class="n">Dead letters</th><th scope="col">Weight</th></tr></thead>
                <tbody>
                  {l.map((e) => (
                    <tr key={e.id} data-evaluator={e.id}>
                      <td data-label="Evaluator"><a class="open" href={routeHash('judges', e.id)}>{e.name}</a> <span class="note">v{e.version}{e.enabled ? '' : ' · disabled'}</span></td>
                      <td data-label="Judges">{what(e)}{e.sample < 1 ? ` · ${share(e.sample)} sampled` : ''}</td>
                      <td data-label="Calls done" class="n" data-figure="done">{num(e.calls?.done)}</td>
                      <td data-label="Pending" class="n" data-figure="pending">{num(e.calls?.pending)}</td>
                      <td data-label="Dead letters" class="n" data-figure="dead">{e.calls?.dead ? <strong class="error">{num(e.calls.dead)}</strong> : num(e.calls?.dead)}</td>
                      <td data-label="Weight"><WeightText e={e} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Show>
      </Card>
      <Card title="New evaluator" wide>
        {secret ? (
          <p class="warn" role="status" data-secret>
            The signing secret of {secret.name}, shown this once: <code>{secret.secret}</code>. Check each call's X-Feedloop-Signature with it (docs/webhooks.md).
          </p>
        ) : null}
        <EvaluatorForm onSaved={(saved) => { if (saved.secret) setSecret({ name: saved.name, secret: saved.secret }); reload(); }} />
      </Card>
    </div>
  );
}

function FigureRow({ label, e, f }: { label: string; e: Estimate | null; f: (x: number | null) => string }) {
  if (!e) return null;
  return (
    <tr>
      <th scope="row" data-label="">{label}</th>
      <td data-label="Value" class="n" data-figure={label}>{f(e.value)}</td>
      <td data-label="95 % interval" class="n">{interval(e, f)}</td>
      <td data-label="n" class="n">{num(e.n)}</td>
    </tr>
  );
}

/** The figures of one period: agreement, kappa and, for ratings, weighted kappa and rho. */
function Figures({ c }: { c: CalibrationFigures }) {
  return (
    <div class="table-wrap">
      <table class="stack figures-table" aria-label="Calibration">
        <thead><tr><th scope="col">Statistic</th><th scope="col" class="n">Value</th><th scope="col" class="n">95 % interval</th><th scope="col" class="n">n</th></tr></thead>
        <tbody>
          <FigureRow label="Agreement" e={c.agreement} f={share} />
          <FigureRow label="Cohen's kappa" e={c.cohenKappa} f={coef} />
          <FigureRow label="Quadratic-weighted kappa" e={c.weightedKappa} f={coef} />
          <FigureRow label="Spearman's rho" e={c.spearman} f={coef} />
        </tbody>
      </table>
    </div>
  );
}

function CalibrationPanel({ id }: { id: string }) {
  const [cal] = useLoad(() => api<Calibration>('GET', `/v1/evaluators/${encodeURIComponent(id)}/calibration`), [id]);
  return (
    <Show value={cal} height={260}>
      {(c) => (
        <div class="calibration" data-n={c.n}>
          <p class="note">
            From {when(c.from)} to {when(c.to)}: <strong data-figure="judged">{num(c.judged)}</strong> judged, <strong data-figure="n">{num(c.n)}</strong> with a human label too.
            Intervals are 95 % bootstrap over units.
          </p>
          {c.n === 0 ? <p class="note">No unit has both the judge's answer and a human label yet: calibration needs responses the users rated or reviewers reviewed.</p> : (
            <>
              <Figures c={c} />
              <h3>Per week</h3>
              {c.weeks.length > 1 ? (
                <LineChart
                  labels={c.weeks.map((w) => w.week)}
                  series={[
                    { name: 'Agreement %', values: c.weeks.map((w) => (w.agreement.value === null ? null : 100 * w.agreement.value)), color: '#1f6feb' },
                    { name: "Cohen's kappa × 100", values: c.weeks.map((w) => (w.cohenKappa.value === null ? null : 100 * Math.max(0, w.cohenKappa.value))), color: '#8a3ffc' },
                  ]}
                />
              ) : null}
              <div class="table-wrap">
                <table class="stack weeks" aria-label="Calibration per week">
                  <thead><tr><th scope="col">Week of</th><th scope="col" class="n">n</th><th scope="col" class="n">Agreement</th><th scope="col" class="n">Cohen's kappa</th></tr></thead>
                  <tbody>
                    {c.weeks.map((w) => (
                      <tr key={w.week} data-week={w.week}>
                        <td data-label="Week of">{w.week}</td>
                        <td data-label="n" class="n" data-figure="n">{num(w.n)}</td>
                        <td data-label="Agreement" class="n"><span data-figure="agreement">{share(w.agreement.value)}</span> <span class="note">({interval(w.agreement, share)})</span></td>
                        <td data-label="Cohen's kappa" class="n"><span data-figure="kappa">{coef(w.cohenKappa.value)}</span> <span class="note">({interval(w.cohenKappa, coef)})</span></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h3>Confusion (rows: the judge, columns: the humans)</h3>
              <div class="table-wrap">
                <table class="confusion" aria-label="Confusion">
                  <thead><tr><th scope="col">judge \ humans</th>{c.confusion.labels.map((l) => <th key={l} scope="col" class="n">{l}</th>)}</tr></thead>
                  <tbody>
                    {c.confusion.labels.map((l, i) => (
                      <tr key={l}><th scope="row">{l}</th>{(c.confusion.counts[i] ?? []).map((k, j) => <td key={j} class="n">{num(k)}</td>)}</tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h3>Disagreements ({num(c.disagreements.length)}), worst first</h3>
              {c.disagreements.length === 0 ? <p class="note">None: the judge agrees with the humans on every unit.</p> : (
                <ul class="disagreements">
                  {c.disagreements.map((d) => (
                    <li key={d.unitId} data-response={d.responseId}>
                      <a href={routeHash('responses', d.responseId)}>{d.responseId}</a>: judge <strong>{d.judge}</strong>, humans <strong>{d.human}</strong>
                      <span class="note"> · week of {d.week}{d.distance !== 1 ? ` · ${d.distance} apart` : ''}</span>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </div>
      )}
    </Show>
  );
}

function CallLog({ id, onRetried }: { id: string; onRetried: () => void }) {
  const [page, reload] = useLoad(() => api<{ calls: EvaluatorCall[] }>('GET', `/v1/evaluators/${encodeURIComponent(id)}/calls?limit=20`), [id]);
  const [status, setStatus] = useState('');
  const retry = async (callId: number) => {
    try {
      await api('POST', `/v1/evaluators/${encodeURIComponent(id)}/calls/${callId}/retry`, {});
      setStatus(`Call ${callId} is sent again.`);
      reload();
      onRetried();
    } catch (err) {
      setStatus(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <Show value={page}>
      {(p) => p.calls.length === 0 ? <p class="note">No calls yet: new responses that match the filter are judged as they arrive.</p> : (
        <>
          <div class="table-wrap">
            <table class="stack calls" aria-label="Latest calls">
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
          <span role="status">{status}</span>
        </>
      )}
    </Show>
  );
}

function JudgeDetail({ id }: { id: string }) {
  const [detail, reload] = useLoad(() => api<Evaluator>('GET', `/v1/evaluators/${encodeURIComponent(id)}`), [id]);
  return (
    <>
      <p><a href={routeHash('judges')}>← Judges</a></p>
      <Show value={detail} height={200}>
        {(e) => (
          <div class="grid" data-evaluator={e.id}>
            <Card title={e.name} wide>
              <div class="figures">
                <Figure label="Calls done" value={num(e.calls?.done)} />
                <Figure label="Pending" value={num(e.calls?.pending)} />
                <Figure label="Dead letters" value={num(e.calls?.dead)} />
                <Figure label="Weight factor" value={String(e.weight.factor)} sub={e.weight.factor > 0 ? 'counts in the composite score' : 'weighs 0 in the composite score'} />
                <Figure label="Kappa (last 30 days)" value={coef(e.weight.kappa)} sub={`n ${num(e.weight.n)}`} />
              </div>
              <dl class="facts">
                <dt>Judges</dt><dd>{what(e)} · version {e.version}{e.enabled ? '' : ' · disabled'}</dd>
                <dt>URL</dt><dd><code>{e.url}</code></dd>
                <dt>Weight rule</dt><dd data-figure="rule">{e.weight.rule}</dd>
                <dt>Weight checked</dt><dd>{when(e.weight.checkedAt)}</dd>
              </dl>
            </Card>
            <Card title="Calibration against the humans" wide>
              <CalibrationPanel id={e.id} />
            </Card>
            <Card title="Latest calls" wide>
              <CallLog id={e.id} onRetried={reload} />
            </Card>
            <Card title="Settings" wide>
              <EvaluatorForm evaluator={e} onSaved={reload} />
            </Card>
          </div>
        )}
      </Show>
    </>
  );
}

/** The Judges page: the list, or one evaluator. */
export function Judges() {
  const route = useRoute();
  return route.id === null ? <JudgeList /> : <JudgeDetail id={route.id} />;
}
