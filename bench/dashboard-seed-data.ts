/**
 * The dashboard benchmark's data shapes (bench/dashboard-seed.ts writes them set-based): the
 * responses' texts per agent, the documents, and the event templates — every kind of event the
 * workspace holds (type and payload), how often each comes in each group of responses, and what
 * the server's own classifier (core `classify`, `signalWeight`) makes of it, so the signals the
 * seed writes are the pipeline's.
 *
 * Groups (a response's `grp`): bit 0 the SQL agent (SQL corrections, no documents), bit 1 the last
 * 20 days (new comment themes rise), bit 2 the `concise` variant of the experiment (it does better).
 */
import {
  classify,
  editDistancePercent,
  ERROR_CATEGORIES,
  PAYLOAD_SCHEMAS,
  RAG_CATEGORIES,
  RATING_TYPES,
  signalWeight,
  sourceOfType,
  workspaceSettingsSchema,
  type EnrichedEvent,
  type FeedbackEventType,
} from '../packages/core/src/index.js';

/** Responses of each agent: question, answer. */
export const AGENT_TEXTS: Record<string, Array<[string, string]>> = {
  sql: [
    ['What were sales last month?', "SELECT sum(amount) FROM sales WHERE month = '2026-10'"],
    ['Top 10 customers by revenue this year', 'SELECT customer_id, sum(amount) FROM orders GROUP BY customer_id LIMIT 10'],
    ['How many active users per region?', 'SELECT region, count(*) FROM users GROUP BY region'],
    ['Average order value in the US', 'SELECT avg(amount) FROM orders'],
    ['Churned accounts last quarter', 'SELECT * FROM accounts WHERE churned'],
    ['Orders shipped late this week', 'SELECT id FROM orders WHERE shipped_at > promised_at'],
    ['Revenue by product line', 'SELECT product_line, sum(amount) FROM order_items GROUP BY product_line'],
    ['New signups per day in March', "SELECT created_at::date, count(*) FROM users WHERE created_at >= '2026-03-01' GROUP BY 1"],
    ['Which invoices are overdue?', "SELECT id, customer_id FROM invoices WHERE status = 'open'"],
    ['Median ticket resolution time', 'SELECT avg(resolved_at - opened_at) FROM tickets'],
  ],
  support: [
    ['How do I reset my password?', 'Go to Settings → Security and choose "Reset password". A link is emailed to you.'],
    ['Can I change my plan mid-cycle?', 'Yes. Upgrades apply at once and are prorated; downgrades apply at the next renewal.'],
    ['Why was I charged twice?', 'A pending authorization can look like a second charge; it disappears within 3 business days.'],
    ['How do I export my data?', 'Open Settings → Data and click "Export". You get a ZIP of CSV files by email.'],
    ['Is there an API rate limit?', 'The API allows 600 requests a minute per key; higher limits are on the Scale plan.'],
    ['How do I add a teammate?', 'Open Settings → Members, click "Invite" and enter their email address.'],
    ['Can I undo a deleted project?', 'Deleted projects stay in the trash for 30 days; restore them from Settings → Trash.'],
    ['Why is the sync stuck?', 'A sync waits for the previous one; if it has run for over an hour, cancel it and start again.'],
    ['How do I turn on two-factor authentication?', 'Settings → Security → Two-factor: scan the QR code with an authenticator app.'],
    ['Where do I find my invoices?', 'Billing → Invoices lists every invoice; each can be downloaded as a PDF.'],
  ],
  search: [
    ['What is our refund policy for annual plans?', 'Annual plans are refundable pro rata within 30 days of renewal.'],
    ['Which regions does the EU data residency cover?', 'EU residency stores data in Frankfurt and Dublin.'],
    ['How long are audit logs kept?', 'Audit logs are kept for 365 days on Enterprise, 90 days otherwise.'],
    ['What SSO providers are supported?', 'Okta, Azure AD and Google Workspace via SAML or OIDC.'],
    ['Is customer data encrypted at rest?', 'Yes, with AES-256; keys are rotated every 90 days.'],
    ['What is the uptime commitment?', 'The Enterprise SLA commits to 99.95 % monthly uptime.'],
    ['Do you support SCIM provisioning?', 'SCIM 2.0 is supported on the Enterprise plan for Okta and Azure AD.'],
    ['Where are backups stored?', 'Backups are stored in a second region of the same jurisdiction for 35 days.'],
  ],
  billing: [
    ['Why did my invoice go up?', 'Seats added during the month are billed prorated on the next invoice.'],
    ['Can I pay by bank transfer?', 'Bank transfer is available on annual plans above 10 seats.'],
    ['How do I update my VAT number?', 'Billing → Details: enter the VAT number; it applies from the next invoice.'],
    ['When is my card charged?', 'Cards are charged on the renewal date shown under Billing → Plan.'],
    ['Do you offer nonprofit discounts?', 'Registered nonprofits get 50 % off; apply from Billing → Discounts.'],
    ['How do I cancel my subscription?', 'Billing → Plan → Cancel; the workspace stays active until the end of the period.'],
  ],
  onboarding: [
    ['How do I connect my database?', 'Add a connection under Sources, paste the connection string and test it.'],
    ['What should I set up first?', 'Invite your team, connect a source, then create your first dashboard.'],
    ['How do I import a CSV?', 'Sources → Upload: drop the CSV file; columns are detected automatically.'],
    ['Can I try it without a credit card?', 'Yes, the 14-day trial needs no card.'],
    ['How do I create a dashboard?', 'Click "New dashboard", add a chart and pick a saved query for it.'],
  ],
};

/** Appended to every answer so a stored answer is a realistic length (about 500 characters). */
export const ANSWER_TAIL =
  ' If this does not answer your question, reply with more detail about what you tried and what you saw, and include the ' +
  'workspace name and the time it happened. Our documentation covers this topic in more depth, with screenshots and ' +
  'examples for each plan; links are in the sources below this answer. This answer was generated from the current ' +
  'documentation and may not reflect changes made in the last 24 hours.';

/** What a question may be about (the distinct queries the issue counts group). */
export const QUERY_SUBJECTS = Array.from({ length: 60 }, (_, i) => `team ${['north', 'south', 'east', 'west', 'emea', 'apac'][i % 6]}-${Math.floor(i / 6) + 1}`);

/** The agents and their share of the responses (cumulative bounds are built from these). */
export const AGENTS: Array<[string, number]> = [
  ['sql', 0.35],
  ['support', 0.3],
  ['search', 0.2],
  ['billing', 0.1],
  ['onboarding', 0.05],
];
/** The models and their share. */
export const MODELS: Array<[string, number]> = [
  ['gpt-4o', 0.35],
  ['claude-sonnet-4', 0.3],
  ['gpt-4o-mini', 0.2],
  ['llama-3.1-70b', 0.15],
];

/** 400 context documents from three sources (a URL host, a `kb:` prefix, another host). */
export const DOCUMENTS: string[] = Array.from({ length: 400 }, (_, i) => {
  const topic = ['billing', 'security', 'api', 'account', 'reports', 'sso', 'exports', 'retention'][i % 8] ?? 'misc';
  if (i % 10 < 7) return `https://docs.example.com/${topic}/article-${i}`;
  if (i % 10 < 9) return `kb:${topic}-${i}`;
  return `https://help.example.org/${topic}/${i}`;
});

const SQL_CORRECTIONS: Array<[string, string]> = [
  ["SELECT sum(amount) FROM sales WHERE month = '2026-10'", "SELECT sum(amount) FROM sales WHERE sold_at >= date '2026-10-01' AND sold_at < date '2026-11-01'"],
  ['SELECT customer_id, sum(amount) FROM orders GROUP BY customer_id LIMIT 10', 'SELECT customer_id, sum(amount) AS revenue FROM orders GROUP BY customer_id ORDER BY revenue DESC LIMIT 10'],
  ['SELECT region, count(*) FROM users GROUP BY region', 'SELECT region, count(*) FROM users WHERE active GROUP BY region'],
  ['SELECT avg(amount) FROM orders', "SELECT avg(amount) FROM orders WHERE country = 'US'"],
  ['SELECT * FROM accounts WHERE churned', "SELECT id, name FROM accounts WHERE churned_at >= now() - interval '3 months'"],
  ['SELECT id FROM orders WHERE shipped_at > promised_at', "SELECT id FROM orders WHERE shipped_at > promised_at AND shipped_at >= date_trunc('week', now())"],
  ['SELECT product_line, sum(amount) FROM order_items GROUP BY product_line', 'SELECT p.line, sum(i.amount) FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY p.line'],
  ["SELECT id, customer_id FROM invoices WHERE status = 'open'", "SELECT id, customer_id FROM invoices WHERE status = 'open' AND due_at < now()"],
];
const TEXT_CORRECTIONS: Array<[string, string]> = [
  ['Upgrades apply at once and are prorated; downgrades apply at the next renewal.', 'Upgrades and downgrades both apply at the next renewal.'],
  ['Annual plans are refundable pro rata within 30 days of renewal.', 'Annual plans are refundable in full within 14 days of renewal.'],
  ['Audit logs are kept for 365 days on Enterprise, 90 days otherwise.', 'Audit logs are kept for 400 days on Enterprise and 180 days on Business.'],
  ['The API allows 600 requests a minute per key.', 'The API allows 1,000 requests a minute per key.'],
  ['Bank transfer is available on annual plans above 10 seats.', 'Bank transfer is available on every annual plan.'],
  ['Deleted projects stay in the trash for 30 days.', 'Deleted projects stay in the trash for 60 days.'],
];
const COMMENTS = [
  'wrong table, should use orders',
  'ignored the date filter',
  'too long, just give me the number',
  'this cites an outdated policy',
  'did not answer the question',
  'made up a setting that does not exist',
  'perfect, thanks',
  'exactly what I needed',
  'fast and correct',
  'great answer',
  'the refund policy is outdated',
  'missing the EU region',
  'please link the docs page',
  'the numbers do not match the report',
  'good but the query is slow',
  'confusing steps',
];
/** Comments that only appear in the last 20 days: the rising themes of the Insights page. */
const RISING_COMMENTS = ['the export button is gone', 'the new pricing page is wrong', 'login with okta fails'];

/** One kind of event: its type, payload and edit distance, and its share within a group. */
interface Kind {
  type: FeedbackEventType;
  payload: Record<string, unknown>;
  editDistance: number | null;
  share: number;
}

/** The event mix of a group (shares in percent, any total: they are normalised). */
function mixOf(group: number): Kind[] {
  const sql = (group & 1) !== 0;
  const recent = (group & 2) !== 0;
  const concise = (group & 4) !== 0;
  const kinds: Kind[] = [];
  const add = (type: FeedbackEventType, share: number, payload: Record<string, unknown> = {}, editDistance: number | null = null): void => {
    if (share > 0) kinds.push({ type, payload, editDistance, share });
  };
  const better = concise ? 3 : 0;
  // Votes: a fifth of the ups and half the downs name a Phase 4.1 category; a few carry a comment.
  add('thumbs_up', (34 + better) * 0.8);
  for (const c of RAG_CATEGORIES) add('thumbs_up', ((34 + better) * 0.2) / RAG_CATEGORIES.length, { category: c });
  add('thumbs_down', (12 - better) * 0.47);
  for (const c of RAG_CATEGORIES) add('thumbs_down', ((12 - better) * 0.5) / RAG_CATEGORIES.length, { category: c });
  add('thumbs_down', (12 - better) * 0.03, { comment: 'the numbers do not match the report' });
  for (const [stars, share] of [[5, 0.4], [4, 0.3], [3, 0.12], [2, 0.1], [1, 0.08]] as const) add('rating', 7 * share, { rating: stars });
  for (const stars of [5, 4, 2]) add('rate_usefulness', 1 / 3, { rating: stars, aspect: 'relevance' });
  const categorySets: string[][] = [['hallucination'], ['missing_context'], ['wrong_context'], ['ignored_constraints'], ['style_mismatch'], ['other'], ['missing_context', 'wrong_context'], ['hallucination', 'ignored_constraints']];
  for (const categories of categorySets) add('error_categories', 4 / categorySets.length, { categories: categories.filter((c) => (ERROR_CATEGORIES as readonly string[]).includes(c)) });
  const corrections = sql ? SQL_CORRECTIONS : TEXT_CORRECTIONS;
  for (const [original, corrected] of corrections) {
    add('correction', 4 / corrections.length, { original, corrected, format: sql ? 'sql' : 'text' }, editDistancePercent(original, corrected));
  }
  for (const comment of COMMENTS) add('comment', 5 / COMMENTS.length, { comment });
  if (recent) for (const comment of RISING_COMMENTS) add('comment', 1.5 / RISING_COMMENTS.length, { comment });
  add('escalation', 0.6);
  add('escalation', 0.6, { reason: 'needs a human to approve the refund', channel: 'support-desk' });
  add('skip', 2);
  add('continue', 12, { action: 'follow_up' });
  add('retry', 5, { rephrasedQuery: 'let me ask that differently' });
  add('abandon', 3);
  for (const [distance, share] of [[5, 1.5], [15, 1], [30, 1], [60, 0.5]] as const) add('edit', share, { edited: 'an edited answer', phase: 'immediate' }, distance);
  add('implicit_accept', sql ? 5 : 1, { action: sql ? 'ran_query' : 'copied' });
  if (!sql) {
    add('flag_irrelevant', 0.5, { reason: 'this document is about another product' });
    add('flag_missing', 0.3, { missing_text: 'the enterprise limits' });
  }
  add('add_note', 0.5, { note: 'check with the billing team' });
  add('outcome', 0.6, { metric: 'ticket_resolved', value: 1, source: 'integration' });
  add('outcome', 0.4, { metric: 'ticket_resolved', value: -1, source: 'integration' });
  return kinds;
}

/** Groups of responses (see the module comment). */
export const GROUPS = 8;
/** Slots per group: an event picks a slot at random, the slot names its template. */
export const SLOTS = 10_000;

/** One event template as written to the staging table: the event and its signal. */
export interface TemplateRow {
  k: number;
  type: string;
  source: string;
  payload: Record<string, unknown>;
  editDistance: number | null;
  targetsDocument: boolean;
  isRating: boolean;
  polarity: string;
  severity: string;
  categories: string[];
  signalClass: string;
  value: number;
  weight: number;
  firstPass: boolean | null;
}

/**
 * Every template (deduplicated across groups) and each group's slots (group, slot, template):
 * each template gets a number of a group's {@link SLOTS} proportional to its share there.
 *
 * @example
 * const { templates, slots } = eventTemplates(); // slots.length === GROUPS * SLOTS
 */
export function eventTemplates(): { templates: TemplateRow[]; slots: Array<[number, number, number]> } {
  const settings = workspaceSettingsSchema.parse({});
  const byKey = new Map<string, TemplateRow>();
  const slots: Array<[number, number, number]> = [];
  for (let group = 0; group < GROUPS; group++) {
    const kinds = mixOf(group);
    const total = kinds.reduce((s, k) => s + k.share, 0);
    // Largest remainder, so the slots add up to SLOTS exactly.
    const exact = kinds.map((k) => (k.share / total) * SLOTS);
    const counts = exact.map(Math.floor);
    const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
    for (let left = SLOTS - counts.reduce((s, c) => s + c, 0), i = 0; left > 0; left--, i++) {
      const at = order[i % order.length]?.[1] ?? 0;
      counts[at] = (counts[at] ?? 0) + 1;
    }
    let slot = 0;
    kinds.forEach((kind, i) => {
      const template = templateOf(kind, byKey, settings);
      for (let c = 0; c < (counts[i] ?? 0); c++) slots.push([group, slot++, template.k]);
    });
  }
  return { templates: [...byKey.values()], slots };
}

function templateOf(kind: Kind, byKey: Map<string, TemplateRow>, settings: ReturnType<typeof workspaceSettingsSchema.parse>): TemplateRow {
  const key = JSON.stringify([kind.type, kind.payload, kind.editDistance]);
  const known = byKey.get(key);
  if (known) return known;
  // The payload as ingest would store it (defaults filled), and the classifier's verdict on it.
  const payload = PAYLOAD_SCHEMAS[kind.type].parse(kind.payload) as Record<string, unknown>;
  const event = { type: kind.type, payload, editDistance: kind.editDistance } as unknown as EnrichedEvent['event'];
  const c = classify({ event, response: {}, sessionId: null, userId: null } as unknown as EnrichedEvent, settings);
  const row: TemplateRow = {
    k: byKey.size + 1,
    type: kind.type,
    source: sourceOfType(kind.type),
    payload,
    editDistance: kind.editDistance,
    targetsDocument: kind.type === 'flag_irrelevant' || kind.type === 'flag_missing',
    isRating: (RATING_TYPES as readonly string[]).includes(kind.type),
    polarity: c.polarity,
    severity: c.severity,
    categories: c.categories,
    signalClass: c.signalClass,
    value: c.value,
    weight: signalWeight(c.signalClass, c.polarity, settings),
    firstPass: c.firstPass,
  };
  byKey.set(key, row);
  return row;
}

/** Cumulative bounds as a CASE over `r`: `CASE WHEN r < 0.35 THEN 'sql' … END`. */
export function pickCase(r: string, shares: Array<[string, number]>): string {
  let at = 0;
  const whens = shares.map(([name, share]) => {
    at += share;
    return `WHEN ${r} < ${at.toFixed(4)} THEN '${name}'`;
  });
  return `CASE ${whens.join(' ')} ELSE '${shares[shares.length - 1]?.[0] ?? ''}' END`;
}
