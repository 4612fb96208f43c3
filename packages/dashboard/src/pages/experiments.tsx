/**
 * Experiments: each variant's figures with intervals and, against the control, the lift, the
 * fixed-horizon and always-valid sequential intervals, the Bayesian chance to win, and the sample
 * ratio check, each said in a sentence a product manager can act on.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, num, pct, useLoad } from '../ui.js';

interface Listed { id: string; control: string; metric: string; responses: number; sampleRatioMismatch: boolean; verdict: string }
interface Variant { variant: string; isControl: boolean; responses: number; rated: number; satisfaction: { rate: number | null; lower: number | null; upper: number | null }; correctionRate: number | null; compositeScore: number | null; expectedShare: number }
interface Comparison {
  variant: string; metric: string; lift: number | null; verdict: string;
  difference: number | null; preliminary: boolean; decidedBy: string | null;
  exact: { test: string; pValue: number } | null;
  fixedHorizon: { ci: [number, number]; pValue: number } | null;
  sequential: { ci: [number, number]; pValue: number } | null;
  bayesian: { chanceToWin: number; risk: { control: number; treatment: number } } | null;
}
interface Analysis { id: string; control: string; metric: string; minSample: number; sampleRatio: { pValue: number; mismatch: boolean }; variants: Variant[]; comparisons: Comparison[]; verdict: string }

const METRIC_WORDS: Record<string, string> = { satisfaction: 'satisfaction', correction_rate: 'correction rate', composite_score: 'composite score' };

/** A comparison in plain words. */
export function explain(c: Comparison, control: string): string {
  const metric = METRIC_WORDS[c.metric] ?? c.metric;
  const unit = c.metric === 'composite_score' ? '' : ' points';
  // The absolute difference stands in where the relative lift is undefined (a control at 0).
  const lift =
    c.lift !== null ? ` (${c.lift > 0 ? '+' : ''}${c.lift.toFixed(1)} % relative)` : c.difference !== null ? ` (${c.difference > 0 ? '+' : ''}${c.difference.toFixed(1)}${unit})` : '';
  if (c.verdict === 'not enough data') {
    const soFar = c.preliminary && c.difference !== null ? ` Preliminary figures so far${lift}.` : '';
    return `“${c.variant}” does not have enough feedback yet to compare its ${metric} with “${control}”.${soFar}`;
  }
  const chance = c.bayesian ? ` There is a ${(c.bayesian.chanceToWin * 100).toFixed(0)} % chance it is better than “${control}”.` : '';
  const exact = c.decidedBy === 'fisher_exact' && c.exact ? ` Fisher's exact test gives p = ${c.exact.pValue.toPrecision(2)}.` : '';
  const seq = c.decidedBy === 'sequential' && c.sequential ? ` The always-valid interval for the difference is ${c.sequential.ci[0].toFixed(1)} to ${c.sequential.ci[1].toFixed(1)} %, so it is safe to look at it every day.` : '';
  if (c.verdict === 'treatment is better') return `“${c.variant}” is better than “${control}” on ${metric}${lift}.${chance}${seq}${exact} You can roll it out.`;
  if (c.verdict === 'treatment is worse') return `“${c.variant}” is worse than “${control}” on ${metric}${lift}.${chance}${seq}${exact} Consider stopping it.`;
  return `No clear difference yet between “${c.variant}” and “${control}” on ${metric}${lift}.${chance} Keep it running.`;
}

function Detail({ id }: { id: string }) {
  const [a] = useLoad(() => api<Analysis>('GET', `/v1/experiments/${encodeURIComponent(id)}`), [id]);
  return (
    <Show value={a} height={260}>
      {(x) => (
        <>
          {x.sampleRatio.mismatch ? (
            <p class="warn" role="alert">Traffic is not split as planned (sample ratio check p = {x.sampleRatio.pValue.toPrecision(2)}): something in the assignment is off, so the figures below cannot be trusted.</p>
          ) : (
            <p class="note">Traffic is split as planned (sample ratio check p = {x.sampleRatio.pValue.toPrecision(2)}).</p>
          )}
          <div class="table-wrap">
            <table class="stack">
              <thead><tr><th scope="col">Variant</th><th scope="col" class="n">Responses</th><th scope="col" class="n">Rated</th><th scope="col">Satisfaction (95 % interval)</th><th scope="col" class="n">Correction rate</th><th scope="col" class="n">Score</th></tr></thead>
              <tbody>
                {x.variants.map((v) => (
                  <tr key={v.variant}>
                    <td data-label="Variant">{v.variant}{v.isControl && v.variant !== 'control' ? ' (control)' : ''}</td>
                    <td data-label="Responses" class="n">{num(v.responses)}</td>
                    <td data-label="Rated" class="n">{num(v.rated)}</td>
                    <td data-label="Satisfaction (95 %)">{pct(v.satisfaction.rate)} ({pct(v.satisfaction.lower)}–{pct(v.satisfaction.upper)})</td>
                    <td data-label="Correction rate" class="n">{pct(v.correctionRate)}</td>
                    <td data-label="Score" class="n">{v.compositeScore?.toFixed(2) ?? '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {x.comparisons.map((c) => (
            <p key={c.variant} class="verdict"><strong>{c.verdict}.</strong> {explain(c, x.control)}</p>
          ))}
        </>
      )}
    </Show>
  );
}

/** The Experiments page. */
export function Experiments() {
  const [list] = useLoad(() => api<{ experiments: Listed[] }>('GET', '/v1/experiments'), []);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Show value={list}>
      {(l) =>
        l.experiments.length === 0 ? (
          <p class="note">No experiments yet: register responses with an experimentId and a variant.</p>
        ) : (
          <div class="grid">
            {l.experiments.map((e) => (
              <Card key={e.id} title={e.id} wide>
                <p>
                  Deciding metric: {METRIC_WORDS[e.metric] ?? e.metric} · {num(e.responses)} responses · verdict: <strong>{e.verdict}</strong>
                </p>
                {open === e.id || l.experiments.length === 1 ? <Detail id={e.id} /> : <button onClick={() => setOpen(e.id)}>Show the figures</button>}
              </Card>
            ))}
          </div>
        )
      }
    </Show>
  );
}
