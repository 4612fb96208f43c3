/**
 * Insights (`GET /v1/insights`): correction patterns, the weakest agents and models, the query
 * types that escalate most, and rising comment themes, each linking to the responses behind it
 * (and naming sample event ids).
 */
import { api } from '../api.js';
import { Card, Show, num, pct, useLoad } from '../ui.js';

interface Theme { phrase: string; variants?: string[]; current: number; previous: number; users?: number; rose?: boolean; pValue?: number | null; events: Sample }
interface Sample { count: number; sample: string[] }
interface Rank { name: string; rated?: number; satisfaction?: { rate: number; lower: number; upper: number }; escalation?: { rate: number }; sessions?: number; events: Sample }
interface Report {
  from: string; to: string;
  correctionPatterns: { corrections: number; patterns: Array<{ format: string; kind: string; count: number; share: number; events: Sample; tables?: Array<{ table: string; count: number }> }> };
  lowestSatisfaction: { agents: { ranked: Rank[] }; models: { ranked: Rank[] } };
  highestEscalation: { queryTypes: { ranked: Rank[] } };
  risingThemes: { comments: number; themes: Theme[]; praise?: Theme[] };
}

const ids = (s: Sample) => (s.sample.length ? <span class="ids" title={s.sample.join(', ')}>events: {s.sample.slice(0, 3).join(', ')}{s.count > 3 ? '…' : ''}</span> : null);

function Ranked({ items, dim }: { items: Rank[]; dim: 'agent' | 'model' }) {
  if (items.length === 0) return <p class="note">Not enough rated responses yet.</p>;
  return (
    <ol>
      {items.map((r) => (
        <li key={r.name}>
          <a href={`#/responses?${dim}=${encodeURIComponent(r.name)}&rating=negative`}>{r.name}</a>: {pct(r.satisfaction?.rate ?? null)} satisfied ({num(r.rated ?? 0)} rated) {ids(r.events)}
        </li>
      ))}
    </ol>
  );
}

/** The Insights page. */
export function Insights() {
  const [report] = useLoad(() => api<Report>('GET', '/v1/insights'), []);
  return (
    <Show value={report} height={400}>
      {(r) => (
        <div class="grid">
          <Card title={`Correction patterns (${num(r.correctionPatterns.corrections)} corrections)`} wide>
            {r.correctionPatterns.patterns.length === 0 ? <p class="note">No corrections in the last 30 days.</p> : (
              <ul>
                {r.correctionPatterns.patterns.map((p) => (
                  <li key={`${p.format}-${p.kind}`}>
                    <strong>{p.kind.replaceAll('_', ' ')}</strong> ({p.format}): {num(p.count)} ({pct(p.share, 0)} of corrections)
                    {p.tables?.length ? ` · tables ${p.tables.slice(0, 3).map((t) => t.table).join(', ')}` : ''} {ids(p.events)}
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <Card title="Weakest agents"><Ranked items={r.lowestSatisfaction.agents.ranked} dim="agent" /></Card>
          <Card title="Weakest models"><Ranked items={r.lowestSatisfaction.models.ranked} dim="model" /></Card>
          <Card title="Escalating query types">
            {r.highestEscalation.queryTypes.ranked.length === 0 ? <p class="note">No escalations.</p> : (
              <ol>{r.highestEscalation.queryTypes.ranked.map((q) => <li key={q.name}>{q.name}: {pct(q.escalation?.rate ?? null)} of sessions {ids(q.events)}</li>)}</ol>
            )}
          </Card>
          <Card title={`Rising complaints in comments (${num(r.risingThemes.comments)} comments)`}>
            <ThemeList themes={r.risingThemes.themes} ids={ids} />
          </Card>
          <Card title="Rising praise in comments">
            <ThemeList themes={r.risingThemes.praise ?? []} ids={ids} />
          </Card>
        </div>
      )}
    </Show>
  );
}

/**
 * Themes as phrases: each with its comments now and before, its distinct users, and whether its
 * rise is significant (one-sided two-proportion test, p < 0.05, two users at least). The link
 * searches the comments for the phrase's last word (phrases are lemmas: "cite outdated policy").
 */
function ThemeList({ themes, ids }: { themes: Theme[]; ids: (s: Sample) => preact.ComponentChildren }) {
  if (themes.length === 0) return <p class="note">No rising themes.</p>;
  return (
    <ul>
      {themes.map((t) => {
        const last = t.phrase.split(' ').at(-1) ?? t.phrase;
        return (
          <li key={t.phrase}>
            {last.length >= 3 ? <a href={`#/responses?comment=${encodeURIComponent(last)}`}>“{t.phrase}”</a> : `“${t.phrase}”`}: {t.current} comments from {t.users ?? '–'} users, {t.previous} before{' '}
            {t.rose ? <span class="tag warning" title={`p = ${t.pValue?.toFixed(3) ?? '–'}`}>risen</span> : <span class="note" title="not a significant rise yet">not significant</span>} {ids(t.events)}
            {t.variants && t.variants.length > 1 ? <div class="note">also: {t.variants.slice(1).join(', ')}</div> : null}
          </li>
        );
      })}
    </ul>
  );
}
