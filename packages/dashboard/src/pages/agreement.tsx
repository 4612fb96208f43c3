/**
 * A queue's agreement panel (`GET /v1/review-queues/:id/agreement`, issue 27): percent agreement,
 * Cohen's kappa per reviewer pair, Fleiss' kappa, Krippendorff's alpha (labels, and each score),
 * per reviewer (items done, median seconds an item, agreement with the others' majority) and, for
 * pairwise queues, position bias. Every figure shows its 95 % interval and the n it rests on, as
 * the API gives them: the page computes nothing of its own, so it cannot disagree with the API.
 */
import { api } from '../api.js';
import { Show, duration, num, useLoad } from '../ui.js';

/** A statistic with its interval and n (core's Estimate). */
interface Estimate { value: number | null; low: number | null; high: number | null; n: number }
/** A proportion with its interval (core's Proportion and PositionBias). */
interface Proportion { rate?: number | null; share?: number | null; low: number | null; high: number | null; n: number; firstWins?: number }
/** core's QueueAgreement. */
export interface Agreement {
  reviews: { read: number; truncated: boolean };
  resamples: number;
  items: { reviewed: number; withTwoOrMore: number };
  percentAgreement: Estimate;
  cohenKappa: Array<Estimate & { reviewers: [string, string] }>;
  fleissKappa: (Estimate & { reviewersPerItem: number }) | null;
  krippendorffAlpha: { labels: Estimate; scores: Array<Estimate & { name: string }> };
  reviewers: Array<{ reviewer: string; itemsDone: number; medianSeconds: number | null; agreementWithMajority: Proportion; positionBias: Proportion }>;
  positionBias: Proportion;
}

/** A coefficient to 2 decimals (kappa, alpha). */
const coef = (x: number | null): string => (x === null ? '–' : x.toFixed(2));
/** A share as a percentage to 1 decimal. */
const share = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)} %`);
const interval = (low: number | null, high: number | null, f: (x: number | null) => string): string => (low === null || high === null ? 'no interval' : `${f(low)} to ${f(high)}`);

function Row({ label, value, low, high, n, f, unit = 'items' }: { label: string; value: number | null; low: number | null; high: number | null; n: number; f: (x: number | null) => string; unit?: string }) {
  return (
    <tr>
      <th scope="row" data-label="">{label}</th>
      <td data-label="Value" class="n" data-figure={label}>{f(value)}</td>
      <td data-label="95 % interval" class="n">{interval(low, high, f)}</td>
      <td data-label="n" class="n">{num(n)} {unit}</td>
    </tr>
  );
}

/** The agreement panel of one queue. */
export function AgreementPanel({ queueId, kind }: { queueId: string; kind: 'single' | 'pairwise' }) {
  const [report] = useLoad(() => api<Agreement>('GET', `/v1/review-queues/${encodeURIComponent(queueId)}/agreement`), [queueId]);
  return (
    <Show value={report} height={240}>
      {(a) => a.items.withTwoOrMore === 0 && a.reviewers.length === 0 ? (
        <p class="note">No item has two reviews yet: agreement needs items that two or more reviewers judged.</p>
      ) : (
        <div class="agreement">
          <p class="note">Over <strong data-figure="withTwoOrMore">{num(a.items.withTwoOrMore)}</strong> items with two or more reviews ({num(a.items.reviewed)} reviewed). Intervals are 95 % bootstrap over items ({num(a.resamples)} resamples) for agreement, kappa and alpha, and Wilson for shares.</p>
          {a.reviews.truncated ? <p class="warn">The queue has more reviews than one read takes: these figures leave out its oldest items ({num(a.reviews.read)} reviews read).</p> : null}
          <div class="table-wrap">
            <table class="stack figures-table" aria-label="Agreement">
              <thead><tr><th scope="col">Statistic</th><th scope="col" class="n">Value</th><th scope="col" class="n">95 % interval</th><th scope="col" class="n">n</th></tr></thead>
              <tbody>
                <Row label="Percent agreement" {...a.percentAgreement} f={share} />
                {a.fleissKappa ? <Row label={`Fleiss' kappa (${a.fleissKappa.reviewersPerItem} reviewers an item)`} {...a.fleissKappa} f={coef} /> : null}
                <Row label={`Krippendorff's alpha (${kind === 'pairwise' ? 'preferences' : 'verdicts'}, nominal)`} {...a.krippendorffAlpha.labels} f={coef} />
                {a.krippendorffAlpha.scores.map((s) => <Row key={s.name} label={`Krippendorff's alpha (${s.name}, interval)`} {...s} f={coef} />)}
                {a.cohenKappa.map((k) => <Row key={k.reviewers.join('|')} label={`Cohen's kappa: ${k.reviewers[0]} and ${k.reviewers[1]}`} {...k} f={coef} />)}
                {kind === 'pairwise' ? <Row label="Position bias: the first shown wins" value={a.positionBias.share ?? null} low={a.positionBias.low} high={a.positionBias.high} n={a.positionBias.n} f={share} unit="decided comparisons" /> : null}
              </tbody>
            </table>
          </div>
          <h3>Per reviewer</h3>
          <div class="table-wrap">
            <table class="stack" aria-label="Per reviewer">
              <thead>
                <tr>
                  <th scope="col">Reviewer</th><th scope="col" class="n">Items done</th><th scope="col" class="n">Median time an item</th>
                  <th scope="col" class="n">Agrees with the others' majority</th>{kind === 'pairwise' ? <th scope="col" class="n">First shown wins</th> : null}
                </tr>
              </thead>
              <tbody>
                {a.reviewers.map((r) => (
                  <tr key={r.reviewer} data-reviewer={r.reviewer}>
                    <td data-label="Reviewer">{r.reviewer}</td>
                    <td data-label="Items done" class="n">{num(r.itemsDone)}</td>
                    <td data-label="Median time an item" class="n">{r.medianSeconds === null ? '–' : duration(r.medianSeconds * 1000)}</td>
                    <td data-label="Agrees with the majority" class="n">{share(r.agreementWithMajority.rate)} <span class="note">({interval(r.agreementWithMajority.low, r.agreementWithMajority.high, share)}; n {num(r.agreementWithMajority.n)})</span></td>
                    {kind === 'pairwise' ? <td data-label="First shown wins" class="n">{share(r.positionBias.share)} <span class="note">({interval(r.positionBias.low, r.positionBias.high, share)}; n {num(r.positionBias.n)})</span></td> : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </Show>
  );
}
