/**
 * Overview: satisfaction and its 7-day rolling line, the trend verdict with its figures, volume by
 * day, first-pass acceptance, edit distance, error categories, rates, and today's live counters
 * (polled every 5 s from `GET /v1/stats/live`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Figure, LineChart, Show, VolumeChart, num, pct, useLoad } from '../ui.js';

interface Interval { rate: number | null; lower: number | null; upper: number | null }
interface Stats {
  from: string; to: string; total: number; positive: number; negative: number; satisfactionRate: number | null;
  satisfactionInterval: Interval; rolling7DaySatisfaction: Interval; correctionRate: number | null; escalationRate: number | null;
  avgResponseTimeMs: number | null; firstPassAcceptanceRate: number | null; averageEditDistance: number | null; responses: number;
  byDay: Array<{ date: string; positive: number; negative: number; satisfactionRate: number | null; rolling7DaySatisfaction: number | null }>;
  errorCategories: Array<{ category: string; count: number; share: number }>;
  trend: { direction: string; days: number; regression: { slope: number | null; pValue: number | null }; mannKendall: { pValue: number; tau: number | null } };
}
interface Live { total?: number; byPolarity?: Record<string, number>; byType?: Record<string, number> }

const DAY_MS = 86_400_000;
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
  return (
    <div class="figures" aria-live="polite">
      <Figure label="Events received today" value={num(live?.total ?? null)} />
      <Figure label="Positive" value={num(live?.byPolarity?.positive ?? null)} />
      <Figure label="Negative" value={num(live?.byPolarity?.negative ?? null)} />
      <Figure label="Corrections" value={num(live?.byType?.correction ?? null)} />
    </div>
  );
}

/** The Overview page. */
export function Overview() {
  const [days, setDays] = useState(30);
  const [stats] = useLoad(() => api<Stats>('GET', `/v1/stats?from=${day(Date.now() - (days - 1) * DAY_MS)}`), [days]);
  return (
    <>
      <div class="toolbar">
        <label for="range">Range</label>
        <select id="range" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          <option value={7}>Last 7 days</option>
          <option value={30}>Last 30 days</option>
          <option value={90}>Last 90 days</option>
        </select>
      </div>
      <div class="grid">
        <Card title="Today, live">
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
                    value={s.trend.direction}
                    sub={`over ${s.trend.days} days: slope ${s.trend.regression.slope?.toFixed(2) ?? '–'} pts/day (p = ${s.trend.regression.pValue?.toFixed(3) ?? '–'}), Mann-Kendall p = ${s.trend.mannKendall.pValue.toFixed(3)}`}
                  />
                </div>
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
              <Card title="Quality">
                <div class="figures">
                  <Figure label="First-pass acceptance" value={pct(s.firstPassAcceptanceRate)} />
                  <Figure label="Average edit distance" value={pct(s.averageEditDistance)} />
                  <Figure label="Correction rate" value={pct(s.correctionRate)} />
                  <Figure label="Escalation rate" value={pct(s.escalationRate)} />
                  <Figure label="Response time" value={s.avgResponseTimeMs === null ? '–' : `${Math.round(s.avgResponseTimeMs)} ms`} />
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
