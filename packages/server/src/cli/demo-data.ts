/**
 * The `feedloop demo` workspace's data: 90 days of responses and feedback from a seeded random
 * generator (the same data on every run), shaped to show every page of the dashboard something
 * real: three agents on four models, an experiment whose `concise` variant is truly better, a
 * quality drop in the last day and a half (a model rollout gone wrong) that fires the
 * satisfaction alert, SQL corrections, edits, retries, escalations, comments and cited documents.
 */
import { DAY_MS } from '@feedloop/core';

/** A response as `POST /v1/responses/batch` takes it. */
export interface DemoResponse {
  id: string;
  sessionId: string;
  userId: string;
  query: string;
  answer: string;
  model: string;
  agent: string;
  queryType: string;
  createdAt: string;
  experimentId?: string;
  variant?: string;
  contextDocumentIds?: string[];
  metadata?: Record<string, unknown>;
}

/** A feedback event as `POST /v1/feedback/batch` takes it. */
export interface DemoEvent {
  id: string;
  responseId: string;
  type: string;
  userId: string;
  sessionId: string;
  occurredAt: string;
  payload?: Record<string, unknown>;
}

/** The demo's responses and events, in the order they are sent. */
export interface DemoData {
  responses: DemoResponse[];
  events: DemoEvent[];
}

/** The demo's experiment id. */
export const DEMO_EXPERIMENT = 'support-prompt-v2';

/** mulberry32: a tiny seeded generator, so every demo run seeds the same workspace. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SQL_QUERIES: Array<[string, string, string]> = [
  ['What were sales last month?', "SELECT sum(amount) FROM sales WHERE month = '2026-10'", "SELECT sum(amount) FROM sales WHERE sold_at >= date '2026-10-01' AND sold_at < date '2026-11-01'"],
  ['Top 10 customers by revenue this year', 'SELECT customer_id, sum(amount) FROM orders GROUP BY customer_id LIMIT 10', "SELECT customer_id, sum(amount) AS revenue FROM orders WHERE ordered_at >= date_trunc('year', now()) GROUP BY customer_id ORDER BY revenue DESC LIMIT 10"],
  ['How many active users per region?', 'SELECT region, count(*) FROM users GROUP BY region', 'SELECT region, count(*) FROM users WHERE active GROUP BY region'],
  ['Average order value in the US', 'SELECT avg(amount) FROM orders', "SELECT avg(amount) FROM orders WHERE country = 'US'"],
  ['Churned accounts last quarter', 'SELECT * FROM accounts WHERE churned', "SELECT id, name FROM accounts WHERE churned_at >= date_trunc('quarter', now()) - interval '3 months' AND churned_at < date_trunc('quarter', now())"],
];
const SUPPORT_QUERIES = [
  ['How do I reset my password?', 'Go to Settings → Security and choose "Reset password". A link is emailed to you.'],
  ['Can I change my plan mid-cycle?', 'Yes. Upgrades apply at once and are prorated; downgrades apply at the next renewal.'],
  ['Why was I charged twice?', 'A pending authorization can look like a second charge; it disappears within 3 business days.'],
  ['How do I export my data?', 'Open Settings → Data and click "Export". You get a ZIP of CSV files by email.'],
  ['Is there an API rate limit?', 'The API allows 600 requests a minute per key; higher limits are on the Scale plan.'],
];
const SEARCH_QUERIES = [
  ['What is our refund policy for annual plans?', 'Annual plans are refundable pro rata within 30 days of renewal.', ['doc-refunds', 'doc-billing-faq']],
  ['Which regions does the EU data residency cover?', 'EU residency stores data in Frankfurt and Dublin.', ['doc-residency', 'doc-security-whitepaper']],
  ['How long are audit logs kept?', 'Audit logs are kept for 365 days on Enterprise, 90 days otherwise.', ['doc-audit-logs', 'doc-old-retention-2023']],
  ['What SSO providers are supported?', 'Okta, Azure AD and Google Workspace via SAML or OIDC.', ['doc-sso', 'doc-security-whitepaper']],
] as const;
/** How good each document is: responses citing a weak one fare worse. */
const DOC_QUALITY: Record<string, number> = {
  'doc-refunds': 0.05, 'doc-billing-faq': 0.02, 'doc-residency': 0.04, 'doc-security-whitepaper': 0.0, 'doc-audit-logs': 0.03, 'doc-old-retention-2023': -0.3, 'doc-sso': 0.06,
};
const COMMENTS_NEG = ['wrong table, should use orders', 'ignored the date filter', 'too long, just give me the number', 'this cites an outdated policy', 'did not answer the question', 'made up a setting that does not exist'];
const COMMENTS_POS = ['perfect, thanks', 'exactly what I needed', 'fast and correct', 'great answer'];
const CATEGORIES = ['missing_context', 'wrong_context', 'ignored_constraints', 'hallucination', 'style_mismatch'];

/**
 * The demo's responses and events over the 90 days before `now`.
 *
 * @example
 * const { responses, events } = demoData(new Date()); // scale: 0.2 for a fifth of the traffic
 */
export function demoData(now: Date, options: { seed?: number; scale?: number } = {}): DemoData {
  const rnd = random(options.seed ?? 14);
  const scale = options.scale ?? 1;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const responses: DemoResponse[] = [];
  const events: DemoEvent[] = [];
  const start = now.getTime() - 90 * DAY_MS;
  const dropFrom = now.getTime() - 1.5 * DAY_MS;
  let n = 0;
  for (let day = 0; day < 90; day++) {
    // Traffic grows over the quarter, with quieter weekends; but the days of the drop keep a
    // weekday's traffic whatever the calendar says, so the satisfaction rule's window holds its
    // minimum sample on a Sunday or a Monday too (a weekend's 0.6 left a half-scale demo made on a
    // Sunday or a Monday 26 ratings in its last 24 h, under the default 30: no alert).
    const weekday = new Date(start + day * DAY_MS).getUTCDay();
    const quiet = (weekday === 0 || weekday === 6) && start + (day + 1) * DAY_MS <= dropFrom;
    const count = Math.round(scale * (90 + day * 0.6) * (quiet ? 0.6 : 1));
    for (let i = 0; i < count; i++) {
      const at = start + day * DAY_MS + rnd() * DAY_MS;
      if (at > now.getTime() - 10 * 60_000) continue;
      const id = `demo-r${++n}`;
      const user = `user-${1 + Math.floor(rnd() * 80)}`;
      const session = `sess-${user}-${day}`;
      const roll = rnd();
      const agent = roll < 0.4 ? 'sql' : roll < 0.75 ? 'support' : 'search';
      const dropped = at >= dropFrom;
      let quality = 0.8;
      let model: string;
      const r: DemoResponse = { id, sessionId: session, userId: user, query: '', answer: '', model: '', agent, queryType: '', createdAt: new Date(at).toISOString() };
      let sql: [string, string, string] | undefined;
      if (agent === 'sql') {
        sql = pick(SQL_QUERIES);
        // A new model version rolled out for the SQL agent 36 hours ago, and it is worse.
        model = dropped ? 'gpt-4o-2026-11' : rnd() < 0.5 ? 'gpt-4o' : 'claude-sonnet-4';
        quality = model === 'claude-sonnet-4' ? 0.84 : model === 'gpt-4o' ? 0.76 : 0.3;
        Object.assign(r, { query: sql[0], answer: sql[1], queryType: 'sql' });
      } else if (agent === 'support') {
        const [q, a] = pick(SUPPORT_QUERIES) as [string, string];
        model = 'gpt-4o-mini';
        const variant = rnd() < 0.5 ? 'control' : 'concise';
        quality = variant === 'concise' ? 0.86 : 0.74;
        if (dropped) quality -= 0.3;
        Object.assign(r, { query: q, answer: a, queryType: 'how-to', experimentId: DEMO_EXPERIMENT, variant });
      } else {
        const [q, a, docs] = pick(SEARCH_QUERIES);
        model = 'llama-3.1-70b';
        quality = 0.78 + docs.reduce((s, d) => s + (DOC_QUALITY[d] ?? 0), 0);
        if (dropped) quality -= 0.3;
        Object.assign(r, { query: q, answer: a, queryType: 'lookup', contextDocumentIds: [...docs] });
      }
      r.model = model;
      r.metadata = { latencyMs: Math.round(400 + rnd() * 1600) };
      responses.push(r);
      const ev = (type: string, delayMin: number, payload?: Record<string, unknown>): void => {
        const t = Math.min(at + delayMin * 60_000, now.getTime() - 60_000);
        events.push({ id: `${id}-${type}`, responseId: id, type, userId: user, sessionId: session, occurredAt: new Date(t).toISOString(), ...(payload ? { payload } : {}) });
      };
      const good = rnd() < quality;
      if (rnd() < 0.65) {
        const withComment = rnd() < 0.15;
        if (good) ev('thumbs_up', 1 + rnd() * 4, withComment ? { comment: pick(COMMENTS_POS) } : undefined);
        else ev('thumbs_down', 1 + rnd() * 4, withComment || rnd() < 0.3 ? { comment: pick(COMMENTS_NEG) } : undefined);
      }
      if (!good && rnd() < 0.45) {
        // The regressed SQL model has a signature failure (it invents columns): the category spike
        // the default rule should catch, beside the satisfaction drop.
        const cats =
          agent === 'search' && r.contextDocumentIds?.includes('doc-old-retention-2023')
            ? ['wrong_context']
            : model === 'gpt-4o-2026-11' && rnd() < 0.8
              ? ['hallucination']
              : [pick(CATEGORIES)];
        ev('error_categories', 5, { categories: cats });
      }
      if (sql && !good && rnd() < 0.35) ev('correction', 8, { corrected: sql[2], format: 'sql', ...(rnd() < 0.3 ? { comment: 'fixed the filter' } : {}) });
      if (agent === 'support' && !good && rnd() < 0.12) ev('escalation', 10, { reason: 'customer asked for a human', channel: 'chat' });
      if (agent === 'support' && !good && rnd() < 0.2) ev('retry', 2, { rephrasedQuery: `${r.query} (please, a human answer)` });
      if (rnd() < 0.05) ev('rating', 6, { rating: good ? 4 + Math.round(rnd()) : 1 + Math.round(rnd() * 2) });
    }
  }
  return { responses, events };
}
