/**
 * Judges (issue 28; docs/evaluators.md): the workspace's evaluators with their calls, errors and
 * weight state, and a form to make one; an evaluator at `#/judges/<id>` with its weight state
 * (the factor, and the kappa and n of the hourly weight check with the 30 days they are over),
 * its calibration against the humans over a period in the URL (`?from=&to=`; the API's last 90
 * days by default, or the weight check's own window), the disagreements worst first (each opens
 * its response), its calls paged (a dead letter can be sent again), backfills with their progress,
 * and its settings. Every figure is the API's and names what it is over, so no two figures claim
 * the same thing with different values: the page computes none of its own.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { routeHash, useRoute } from '../route.js';
import { Card, Figure, Show, num, useLoad } from '../ui.js';
import { CalibrationPanel, type Range } from './judges-calibration.js';
import { Backfills, CallLog } from './judges-calls.js';
import { EvaluatorForm } from './judges-form.js';
import { coef, period, share, when } from './judges-format.js';
import type { Evaluator } from './judges-types.js';

const what = (e: Evaluator): string => (e.kind === 'pairwise' ? 'pairwise' : `pointwise · ${e.output}`);

/** The weight state in words: counted or not, and why. */
function WeightText({ e }: { e: Evaluator }) {
  const w = e.weight;
  return (
    <span class="weight">
      <strong data-figure="weight-factor">{w.factor > 0 ? `counts ${w.factor} × human` : 'weighs 0'}</strong>
      <span class="note">
        {w.window ? <> (weight check: kappa <span data-figure="weight-kappa">{coef(w.kappa)}</span>, n <span data-figure="weight-n">{num(w.n)}</span> over {period(w.window.from, w.window.to)})</> : ' (not checked yet)'}
      </span>
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

function JudgeDetail({ id, range }: { id: string; range: Range }) {
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
                <Figure label="Weight factor" name="weight-factor" value={String(e.weight.factor)} sub={e.weight.factor > 0 ? 'counts in the composite score' : 'weighs 0 in the composite score'} />
                <Figure label="Weight check: Cohen's kappa" name="weight-kappa" value={coef(e.weight.kappa)} sub="the judge against the humans over the check's 30 days" />
                <Figure label="Weight check: n" name="weight-n" value={num(e.weight.n)} sub="units with both labels in those days" />
              </div>
              <dl class="facts">
                <dt>Judges</dt><dd>{what(e)} · version {e.version}{e.enabled ? '' : ' · disabled'}{e.sample < 1 ? ` · ${share(e.sample)} sampled` : ''}</dd>
                <dt>URL</dt><dd><code>{e.url}</code></dd>
                <dt>Weight rule</dt><dd data-figure="rule">{e.weight.rule}</dd>
                <dt>Weight checked</dt><dd data-figure="weight-checked">{e.weight.window ? `${when(e.weight.checkedAt)} (hourly), over ${period(e.weight.window.from, e.weight.window.to)}` : 'not yet (the check runs hourly)'}</dd>
              </dl>
            </Card>
            <Card title="Calibration against the humans" wide>
              <CalibrationPanel e={e} range={range} />
            </Card>
            <Card title="Calls" wide>
              <CallLog id={e.id} onRetried={reload} />
            </Card>
            <Card title="Backfills" wide>
              <Backfills id={e.id} kind={e.kind} enabled={e.enabled} />
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
  const range: Range = { from: route.params.get('from') ?? undefined, to: route.params.get('to') ?? undefined };
  // Keyed by the evaluator: another one's page starts afresh (its settings form, call filter and pages).
  return route.id === null ? <JudgeList /> : <JudgeDetail key={route.id} id={route.id} range={range} />;
}
