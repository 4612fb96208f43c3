/**
 * An evaluator's calibration against the humans on the Judges page (issue 28;
 * docs/evaluators.md): over a period the reader picks (`?from=&to=` in the page's URL, passed to
 * `GET /v1/evaluators/:id/calibration` as they are; none: the API's last 90 days), or the weight
 * check's own 30 days, so the calibration can be read against the weight state's kappa and n.
 * Every figure is the API's and names the period it is over: the page computes none of its own.
 */
import { api } from '../api.js';
import { routeHash } from '../route.js';
import { LineChart, Show, num, useDraft, useLoad } from '../ui.js';
import { coef, dayStart, interval, period, share } from './judges-format.js';
import type { Calibration, CalibrationFigures, Estimate, Evaluator } from './judges-types.js';

/** The calibration's period as the URL holds it: instants as the API takes them, or absent. */
export interface Range { from?: string | undefined; to?: string | undefined }

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
function Figures({ c, over }: { c: CalibrationFigures; over: string }) {
  return (
    <>
      <h3>Over {over}</h3>
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
    </>
  );
}

/** The period form: two days (from, before), the weight check's window, or the API's default. */
function RangeForm({ e, range }: { e: Evaluator; range: Range }) {
  const days = { from: range.from?.slice(0, 10) ?? '', to: range.to?.slice(0, 10) ?? '' };
  // A back or forward step changes the URL's range: the form follows.
  const [draft, setDraft] = useDraft(days, `${days.from}/${days.to}`);
  const w = e.weight.window;
  return (
    <form class="filters calibration-range" aria-label="Calibration period" onSubmit={(ev) => {
      ev.preventDefault();
      location.hash = routeHash('judges', e.id, { from: dayStart(draft.from), to: dayStart(draft.to) });
    }}>
      <label>From (UTC day)<input name="from" type="date" value={draft.from} onInput={(ev) => setDraft({ ...draft, from: ev.currentTarget.value })} /></label>
      <label>Before (UTC day)<input name="to" type="date" value={draft.to} onInput={(ev) => setDraft({ ...draft, to: ev.currentTarget.value })} /></label>
      <button type="submit">Apply</button>
      {w ? <a data-range="weight" href={routeHash('judges', e.id, { from: w.from, to: w.to })}>The weight check's 30 days</a> : null}
      {range.from || range.to ? <a data-range="default" href={routeHash('judges', e.id)}>Last 90 days</a> : null}
    </form>
  );
}

/**
 * Says how the calibration's period stands to the weight check's: the same period (whose kappa
 * and n the check recorded, unless answers or labels changed since), or another one.
 */
function AgainstWeight({ e, c }: { e: Evaluator; c: Calibration }) {
  const w = e.weight.window;
  if (!w) return <p class="note" data-against="unchecked">The weight has not been checked yet: its kappa and n appear after the first hourly check.</p>;
  const same = Date.parse(w.from) === Date.parse(c.from) && Date.parse(w.to) === Date.parse(c.to);
  if (!same) {
    return <p class="note" data-against="other">This is another period than the weight check's ({period(w.from, w.to)}): its kappa and n are this period's, not the ones the weight rule used.</p>;
  }
  const equal = c.n === e.weight.n && (c.cohenKappa.value === null ? e.weight.kappa === null : e.weight.kappa !== null && coef(c.cohenKappa.value) === coef(e.weight.kappa));
  return equal
    ? <p class="note" data-against="same">The weight check's own period: the kappa and n the weight rule used, recomputed now.</p>
    : <p class="warn" data-against="changed">The weight check's own period, recomputed now: answers or human labels changed since the check, so these figures differ from the ones it recorded (kappa {coef(e.weight.kappa)}, n {num(e.weight.n)}); the next hourly check takes them up.</p>;
}

/** The calibration of an evaluator over the URL's period, with its form. */
export function CalibrationPanel({ e, range }: { e: Evaluator; range: Range }) {
  const qs = new URLSearchParams(Object.entries(range).filter((kv): kv is [string, string] => Boolean(kv[1]))).toString();
  const [cal] = useLoad(() => api<Calibration>('GET', `/v1/evaluators/${encodeURIComponent(e.id)}/calibration${qs ? `?${qs}` : ''}`), [e.id, qs]);
  return (
    <>
      <RangeForm e={e} range={range} />
      <Show value={cal} height={260}>
        {(c) => (
          <div class="calibration" data-n={c.n} data-from={c.from} data-to={c.to}>
            <p class="note">
              Over <strong data-figure="period">{period(c.from, c.to)}</strong>{qs ? '' : ' (the last 90 days)'}: <strong data-figure="judged">{num(c.judged)}</strong> judged,{' '}
              <strong data-figure="n">{num(c.n)}</strong> with a human label too. Intervals are 95 % bootstrap over units.
            </p>
            <AgainstWeight e={e} c={c} />
            {c.n === 0 ? <p class="note">No unit has both the judge's answer and a human label in this period: calibration needs responses the users rated or reviewers reviewed.</p> : <Details c={c} />}
          </div>
        )}
      </Show>
    </>
  );
}

/** The period's figures, per week, the confusion and the disagreements. */
function Details({ c }: { c: Calibration }) {
  return (
    <>
      <Figures c={c} over={period(c.from, c.to)} />
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
  );
}
