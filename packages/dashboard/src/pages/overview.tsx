/**
 * Overview: the firing alerts first, then satisfaction and its 7-day rolling line, the trend
 * verdict with its figures and a named recent drop, volume by day, first-pass acceptance, edit
 * distance, the named scores' cards, error categories, rates, and today's live counters (polled every 5 s from
 * `GET /v1/stats/live`, each event under its own day). An empty workspace gets the first-run panel
 * instead of blank axes.
 */
import { DAY_MS } from '@feedloop/core/time';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Figure, LineChart, Show, VolumeChart, duration, num, pct, useLoad } from '../ui.js';
import { FirstRun } from './first-run.js';

interface Interval { rate: number | null; lower: number | null; upper: number | null }
/**
 * Reviewers' and judges' ratings beside the users' satisfaction, never inside it: the figures above
 * count users only (`GET /v1/stats` bySource). Nothing when neither has rated.
 */
function AttributedNote({ bySource }: { bySource: Stats['bySource'] }) {
  const parts = (['review', 'judge'] as const).flatMap((source) => {
    const s = bySource?.[source];
    if (!s || s.events === 0) return [];
    const rated = s.positive + s.negative;
    return [
      <span key={source}>
        <span class={`tag source-${source}`}>{source}</span> {num(s.events)} {s.events === 1 ? 'event' : 'events'}{rated > 0 ? `, ${pct(s.positiveRate)} positive of ${num(rated)} rated` : ''}
      </span>,
    ];
  });
  if (parts.length === 0) return null;
  return (
    <p class="note by-source" aria-label="Reviews and judges">
      Not counted in satisfaction: {parts.map((p, i) => (i > 0 ? [' · ', p] : p))}
    </p>
  );
}

interface Stats {
  from: string; to: string; events: number; total: number; positive: number; negative: number; satisfactionRate: number | null;
  /** Counted events per source with their ratings: satisfaction is the users'; reviews and judges show apart. */
  bySource?: Record<string, { events: number; positive: number; negative: number; positiveRate: number | null }>;
  satisfactionInterval: Interval; rolling7DaySatisfaction: Interval; correctionRate: number | null; escalationRate: number | null;
  avgResponseTimeMs: number | null; firstPassAcceptanceRate: number | null; averageEditDistance: number | null; responses: number;
  byDay: Array<{ date: string; positive: number; negative: number; satisfactionRate: number | null; rolling7DaySatisfaction: number | null }>;
  errorCategories: Array<{ category: string; count: number; share: number }>;
  trend: { direction: string; verdict: string; days: number; requiredDays: number; regression: { slope: number | null; pValue: number | null }; mannKendall: { pValue: number; tau: number | null } };
  recentDrop: { detected: boolean; verdict: string | null };
}
interface ScoreSummary { name: string; count: number; mean: number | null; interval: { lower: number; upper: number } | null; categories: Record<string, number> }
interface Live { total?: number; byPolarity?: Record<string, number>; byType?: Record<string, number>; bySource?: Record<string, number> }
interface FiringAlert { id: string; severity: 'warning' | 'critical'; message: string; firedAt: string | null; ruleId: string }

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function LiveCounters() {
  const [live, setLive] = useState<Live | null>(null);
  useEffect(() => {
    let stop = false;
    const poll = async () => {
      try {
        const v = await api<Live>('GET', '/v1/stats/live');
        if (!stop) setLive(v);
      } catch {
        /* the next poll retries */
      }
    };
    void poll();
    const t = setInterval(poll, 5_000);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, []);
  // Reviewers' and judges' events count in the day's total; polarity is the users' alone (core's liveCounterFields).
  const attributed = (live?.bySource?.review ?? 0) + (live?.bySource?.judge ?? 0);
  return (
    <div class="figures" aria-live="polite">
      <Figure label="Events today" value={num(live ? (live.total ?? 0) : null)} sub={attributed > 0 ? `of which ${num(attributed)} from reviewers and judges` : undefined} />
      <Figure label="Positive" value={num(live ? (live.byPolarity?.positive ?? 0) : null)} sub={attributed > 0 ? "users' signals" : undefined} />
      <Figure label="Negative" value={num(live ? (live.byPolarity?.negative ?? 0) : null)} sub={attributed > 0 ? "users' signals" : undefined} />
      <Figure label="Corrections" value={num(live ? (live.byType?.correction ?? 0) : null)} />
    </div>
  );
}

const fixed = (x: number | null, digits = 2): string => (x === null ? '–' : x.toFixed(digits));

/**
 * One card per named score (docs/scores.md) over the range: the mean, how many, its 95 % interval
 * (kept within the config's range, so not always symmetric: no ±) and the labels given; the
 * numbers of `GET /v1/stats?groupBy=score`. Nothing when the workspace has no scores.
 */
function ScoreCards({ from }: { from: string }) {
  const [scores] = useLoad(() => api<{ scores?: ScoreSummary[] }>('GET', `/v1/stats?groupBy=score&from=${from}`), [from]);
  if (scores.state !== 'ok' || !scores.data.scores || scores.data.scores.length === 0) return null;
  return (
    <Card title="Scores" wide>
      <div class="figures" aria-label="Score cards">
        {scores.data.scores.map((s) => (
          <Figure
            key={s.name}
            label={s.name}
            value={s.mean === null ? num(s.count) : fixed(s.mean)}
            sub={`${num(s.count)} score${s.count === 1 ? '' : 's'}${s.interval ? ` · 95 % interval ${fixed(s.interval.lower)}–${fixed(s.interval.upper)}` : ''}${
              Object.keys(s.categories).length > 0 ? ` · ${Object.entries(s.categories).map(([k, n]) => `${k} ${n}`).join(', ')}` : ''
            }`}
          />
        ))}
      </div>
    </Card>
  );
}

/** The alerts firing now, at the top: what a team must see first. Nothing when none fires. */
function FiringAlerts() {
  const [alerts] = useLoad(() => api<{ alerts: FiringAlert[] }>('GET', '/v1/alerts?state=firing'), []);
  if (alerts.state !== 'ok' || alerts.data.alerts.length === 0) return null;
  const list = alerts.data.alerts;
  return (
    <section class="firing" role="alert" aria-label="Alerts firing">
      <h2>
        {list.length} alert{list.length === 1 ? '' : 's'} firing · <a href="#/alerts">see all</a>
      </h2>
      <ul>
        {list.map((a) => (
          <li key={a.id}>
            <span class={`tag ${a.severity}`}>{a.severity}</span> {a.message}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The Overview page. */
export function Overview() {
  const [days, setDays] = useState(30);
  const [stats] = useLoad(() => api<Stats>('GET', `/v1/stats?from=${day(Date.now() - (days - 1) * DAY_MS)}`), [days]);
  if (stats.state === 'ok' && stats.data.events === 0 && stats.data.responses === 0) return <FirstRun />;
  return (
    <>
      <FiringAlerts />
      <div class="toolbar">
        <label for="range">Range</label>
        <select id="range" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          <option value={7}>Last 7 days</option>
          <option value={30}>Last 30 days</option>
          <option value={90}>Last 90 days</option>
        </select>
      </div>
      <div class="grid">
        <Card title="Today, live (UTC day each event occurred)">
          <LiveCounters />
        </Card>
        <Show value={stats} height={420}>
          {(s) => (
            <>
              <Card title="Satisfaction">
                <div class="figures">
                  <Figure label="Satisfaction" value={pct(s.satisfactionRate)} sub={`95 % interval ${pct(s.satisfactionInterval.lower)}–${pct(s.satisfactionInterval.upper)} · ${num(s.total)} rated`} />
                  <Figure label="Last 7 days" value={pct(s.rolling7DaySatisfaction.rate)} />
                  <Figure
                    label="Trend"
                    value={s.trend.verdict}
                    sub={
                      s.trend.direction === 'not_enough_days'
                        ? `a verdict needs ${s.trend.requiredDays} days with ratings`
                        : `over ${s.trend.days} days: slope ${s.trend.regression.slope?.toFixed(2) ?? '–'} pts/day (p = ${s.trend.regression.pValue?.toFixed(3) ?? '–'}), Mann-Kendall p = ${s.trend.mannKendall.pValue.toFixed(3)}`
                    }
                  />
                </div>
                {s.recentDrop.detected ? <p class="warn drop" role="status">{s.recentDrop.verdict}</p> : null}
                <AttributedNote bySource={s.bySource} />
              </Card>
              <Card title="Satisfaction by day, and its 7-day rolling line" wide>
                <LineChart
                  labels={s.byDay.map((d) => d.date)}
                  series={[
                    { name: 'daily satisfaction %', values: s.byDay.map((d) => d.satisfactionRate), color: '#9db4d6' },
                    { name: '7-day rolling satisfaction %', values: s.byDay.map((d) => d.rolling7DaySatisfaction), color: '#1f4e9c' },
                  ]}
                />
                <p class="legend"><span class="sw light" /> daily <span class="sw dark" /> 7-day rolling</p>
              </Card>
              <Card title="Rated feedback per day" wide>
                <VolumeChart days={s.byDay} />
                <p class="legend"><span class="sw pos" /> positive <span class="sw neg" /> negative</p>
              </Card>
              <ScoreCards from={s.from} />
              <Card title="Quality">
                <div class="figures">
                  <Figure label="First-pass acceptance" value={pct(s.firstPassAcceptanceRate)} />
                  <Figure label="Average edit distance" value={pct(s.averageEditDistance)} />
                  <Figure label="Correction rate" value={pct(s.correctionRate)} />
                  <Figure label="Escalation rate" value={pct(s.escalationRate)} />
                  <Figure label="Time to feedback" value={duration(s.avgResponseTimeMs)} sub="mean time from an answer to its feedback" />
                  <Figure label="Responses" value={num(s.responses)} />
                </div>
              </Card>
              <Card title="Error categories">
                {s.errorCategories.length === 0 ? (
                  <p class="note">No error categories in this range.</p>
                ) : (
                  <table>
                    <thead><tr><th scope="col">Category</th><th scope="col" class="n">Count</th><th scope="col" class="n">Share</th></tr></thead>
                    <tbody>
                      {s.errorCategories.map((c) => (
                        <tr key={c.category}>
                          <td><a href={`#/responses?category=${encodeURIComponent(c.category)}`}>{c.category}</a></td>
                          <td class="n">{num(c.count)}</td>
                          <td class="n">{pct(c.share)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Card>
            </>
          )}
        </Show>
      </div>
    </>
  );
}
