/**
 * Users: the workspace's end users (`GET /v1/users`, searchable by id: responses, events sent,
 * last seen, satisfaction, consent), and one user at `#/users/<id>`: their figures, consent as
 * labelled switches (`GET/PUT /v1/users/:userId/consent`), memory with why each item is there
 * (`GET /v1/users/:userId/context?explain=true`), what feedloop holds about them as sections
 * (`GET /v1/users/:userId/data`: responses, events, daily figures, derived signals; the whole
 * document downloadable as JSON) and erasure after typing the user id (`DELETE /v1/users/:userId`).
 * The user's figures here are computed from the same rows as the list's, so the two agree.
 */
import { useState } from 'preact/hooks';
import { api, NotAvailable } from '../api.js';
import { routeHash, useRoute } from '../route.js';
import { Card, Figure, Show, num, pct, useLoad } from '../ui.js';

type Source = 'explicit' | 'implicit' | 'outcome';
interface ConsentView { explicit: boolean | null; implicit: boolean | null; outcome: boolean | null; types: Record<string, boolean>; updatedAt: string | null }
interface ListedUser { userId: string; responses: number; events: number; lastSeenAt: string | null; ratings: { positive: number; negative: number }; satisfaction: number | null; consent: ConsentView }
interface DataEvent { id: string; responseId: string; type: string; userId: string | null; payload: Record<string, unknown> | null; occurredAt: string }
interface DataResponse { id: string; query: string; agent: string | null; model: string | null; createdAt: string }
interface DataDocument {
  userId: string; consent: ConsentView; responses: DataResponse[]; events: DataEvent[]; signals: Array<{ eventId: string; status: string }>;
  scores: unknown[]; dailyStats: Array<{ day: string; sums: { events: number; responses: number; positiveRatings: number; negativeRatings: number } }>; truncated: boolean;
}
interface MemoryItem { kind: string; text: string; support: number; weight: number; eventIds?: string[] }
interface Workspace { settings: { implicitConsent?: 'required' | 'assumed' } }

const SOURCES: Array<{ source: Source; label: string; what: string }> = [
  { source: 'explicit', label: 'Explicit feedback', what: 'votes, ratings, comments, corrections' },
  { source: 'implicit', label: 'Implicit signals', what: 'edits, copies, retries, abandonment' },
  { source: 'outcome', label: 'Outcomes', what: 'results reported by connected systems' },
];
/** Rows a section shows before "show all". */
const SECTION_ROWS = 20;

const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : '–');

/**
 * Whether a source is collected for the user: what they stated, else the default (core's
 * `consentDecision`: explicit and outcome allowed, implicit only when the workspace assumes it).
 */
export function effectiveConsent(consent: ConsentView, source: Source, implicitDefault: 'required' | 'assumed'): boolean {
  const stated = consent[source];
  if (stated !== null) return stated;
  return source !== 'implicit' || implicitDefault === 'assumed';
}

/** A user's consent in a few words, for the list. */
function consentWords(c: ConsentView, implicitDefault: 'required' | 'assumed'): string {
  return SOURCES.map(({ source }) => `${source} ${effectiveConsent(c, source, implicitDefault) ? 'on' : 'off'}${c[source] === null ? '*' : ''}`).join(' · ');
}

function UserList({ search, implicitDefault }: { search: string; implicitDefault: 'required' | 'assumed' }) {
  const [draft, setDraft] = useState(search);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const qs = new URLSearchParams({ limit: '50', ...(search ? { search } : {}), ...(cursor ? { cursor } : {}) }).toString();
  const [list] = useLoad(() => api<{ data: ListedUser[]; nextCursor: string | null }>('GET', `/v1/users?${qs}`), [qs]);
  return (
    <>
      <form class="toolbar" role="search" onSubmit={(e) => { e.preventDefault(); setCursors([]); location.hash = routeHash('users', null, { q: draft.trim() }); }}>
        <label for="user-search">Search users</label>
        <input id="user-search" type="search" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} placeholder="a piece of the user id" />
        <button type="submit">Search</button>
        {search ? <a href={routeHash('users')}>Clear</a> : null}
      </form>
      <Show value={list} height={500}>
        {(l) => (l.data.length === 0 ? <p class="note">{search ? `No user id contains “${search}”.` : 'No users yet: send responses or feedback with a userId.'}</p> : (
          <>
            <div class="table-wrap">
              <table class="users stack">
                <thead><tr><th scope="col">User</th><th scope="col" class="n">Responses</th><th scope="col" class="n">Events sent</th><th scope="col">Last seen</th><th scope="col" class="n">Satisfaction</th><th scope="col">Consent</th></tr></thead>
                <tbody>
                  {l.data.map((u) => (
                    <tr key={u.userId}>
                      <td data-label="User"><a href={routeHash('users', u.userId)}>{u.userId}</a></td>
                      <td data-label="Responses" class="n">{num(u.responses)}</td>
                      <td data-label="Events sent" class="n">{num(u.events)}</td>
                      <td data-label="Last seen">{when(u.lastSeenAt)}</td>
                      <td data-label="Satisfaction" class="n">{pct(u.satisfaction)} <span class="note">of {num(u.ratings.positive + u.ratings.negative)}</span></td>
                      <td data-label="Consent">{consentWords(u.consent, implicitDefault)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="legend">Satisfaction: positive share of the user's counted ratings (the figure of the Overview for this user). Consent: * not stated, the default applies (implicit signals: {implicitDefault} by the workspace).</p>
            <p class="pager">
              <span role="status">{num(l.data.length)} shown</span>
              {l.nextCursor ? <button onClick={() => setCursors([...cursors, l.nextCursor as string])}>Next</button> : null}
              {cursors.length > 0 ? <button onClick={() => setCursors(cursors.slice(0, -1))}>Previous</button> : null}
            </p>
          </>
        ))}
      </Show>
    </>
  );
}

function ConsentSwitches({ userId, implicitDefault }: { userId: string; implicitDefault: 'required' | 'assumed' }) {
  const u = encodeURIComponent(userId);
  const [consent, reload] = useLoad(() => api<ConsentView>('GET', `/v1/users/${u}/consent`), [userId]);
  const [status, setStatus] = useState('');
  const change = async (body: Partial<Record<Source, boolean | null>>, words: string) => {
    try {
      await api('PUT', `/v1/users/${u}/consent`, body);
      setStatus(words);
      reload();
    } catch (e) {
      setStatus(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <Show value={consent}>
      {(c) => (
        <>
          <ul class="switches">
            {SOURCES.map(({ source, label, what }) => {
              const on = effectiveConsent(c, source, implicitDefault);
              return (
                <li key={source}>
                  <button type="button" role="switch" class="switch" aria-checked={on} id={`consent-${source}`} onClick={() => change({ [source]: !on }, `${label}: ${on ? 'off' : 'on'}.`)}>
                    <span class="track" aria-hidden="true"><span class="knob" /></span>
                    <span class="switch-label">{label}</span>
                    <span class="state">{on ? 'On' : 'Off'}</span>
                  </button>
                  <span class="note">
                    {what}; {c[source] === null ? `not stated: the default applies${source === 'implicit' ? ` (${implicitDefault} by the workspace)` : ''}` : 'stated by the user'}
                    {c[source] !== null ? <> · <button class="link" onClick={() => change({ [source]: null }, `${label}: back to the default.`)}>use the default</button></> : null}
                  </span>
                </li>
              );
            })}
          </ul>
          <p class="note">{c.updatedAt ? `Last changed ${when(c.updatedAt)}.` : 'Never stated.'} Every change is in the audit log.</p>
          <p role="status" class="note">{status}</p>
        </>
      )}
    </Show>
  );
}

/** A section's table rows, the first {@link SECTION_ROWS} until asked for all. */
function useMore<T>(rows: T[]): [T[], preact.JSX.Element | null] {
  const [all, setAll] = useState(false);
  if (rows.length <= SECTION_ROWS) return [rows, null];
  return [all ? rows : rows.slice(0, SECTION_ROWS), <button class="link" onClick={() => setAll(!all)}>{all ? 'Show fewer' : `Show all ${num(rows.length)}`}</button>];
}

function DataSections({ d }: { d: DataDocument }) {
  const own = d.events.filter((e) => e.userId === d.userId);
  const events = [...d.events].sort((a, b) => b.occurredAt.localeCompare(a.occurredAt));
  const responses = [...d.responses].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const days = [...d.dailyStats].reverse();
  const [shownEvents, moreEvents] = useMore(events);
  const [shownResponses, moreResponses] = useMore(responses);
  const [shownDays, moreDays] = useMore(days);
  const positive = d.dailyStats.reduce((n, x) => n + x.sums.positiveRatings, 0);
  const negative = d.dailyStats.reduce((n, x) => n + x.sums.negativeRatings, 0);
  const times = [...own.map((e) => e.occurredAt), ...d.responses.map((r) => r.createdAt)].sort();
  const signals = Object.entries(d.signals.reduce<Record<string, number>>((m, s) => ({ ...m, [s.status]: (m[s.status] ?? 0) + 1 }), {}));
  const download = () => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([JSON.stringify(d, null, 2)], { type: 'application/json' }));
    a.download = `feedloop-user-${d.userId}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };
  return (
    <>
      <Card title="Figures" wide>
        <div class="figures">
          <Figure label="Responses" value={num(d.responses.length)} />
          <Figure label="Events sent" value={num(own.length)} sub={d.events.length > own.length ? `and ${num(d.events.length - own.length)} by others on their responses` : undefined} />
          <Figure label="Last seen" value={times.length ? new Date(times[times.length - 1] as string).toLocaleDateString() : '–'} sub={times.length ? when(times[times.length - 1] as string) : undefined} />
          <Figure label="Satisfaction" value={pct(positive + negative === 0 ? null : Math.round((positive / (positive + negative)) * 1000) / 10)} sub={`${num(positive)} positive, ${num(negative)} negative counted ratings`} />
        </div>
        {d.truncated ? <p class="warn">More than 10,000 rows of one kind: the sections show the first 10,000 (the download too).</p> : null}
      </Card>
      <Card title={`Events (${num(d.events.length)})`} wide>
        {events.length === 0 ? <p class="note">No events.</p> : (
          <div class="table-wrap">
            <table class="stack">
              <thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">Response</th><th scope="col">By</th><th scope="col">Said</th></tr></thead>
              <tbody>
                {shownEvents.map((e) => (
                  <tr key={e.id}>
                    <td data-label="When">{when(e.occurredAt)}</td>
                    <td data-label="Type"><span class={`tag ${e.type}`}>{e.type}</span></td>
                    <td data-label="Response"><a href={routeHash('responses', e.responseId)}>{e.responseId}</a></td>
                    <td data-label="By">{e.userId === d.userId ? 'this user' : (e.userId ?? 'anonymous')}</td>
                    <td data-label="Said">{typeof e.payload?.comment === 'string' ? <q>{e.payload.comment}</q> : Array.isArray(e.payload?.categories) ? (e.payload.categories as string[]).join(', ') : typeof e.payload?.rating === 'number' ? `${e.payload.rating} stars` : typeof e.payload?.corrected === 'string' ? 'a correction' : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {moreEvents}
      </Card>
      <Card title={`Responses (${num(d.responses.length)})`} wide>
        {responses.length === 0 ? <p class="note">No responses.</p> : (
          <div class="table-wrap">
            <table class="stack">
              <thead><tr><th scope="col">When</th><th scope="col">Query</th><th scope="col">Agent · model</th></tr></thead>
              <tbody>
                {shownResponses.map((r) => (
                  <tr key={r.id}>
                    <td data-label="When">{when(r.createdAt)}</td>
                    <td data-label="Query"><a href={routeHash('responses', r.id)}>{r.query.slice(0, 100) || r.id}</a></td>
                    <td data-label="Agent · model">{r.agent ?? '–'} · {r.model ?? '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {moreResponses}
      </Card>
      <Card title={`Daily figures (${num(d.dailyStats.length)} days)`}>
        {days.length === 0 ? <p class="note">No rolled-up days yet.</p> : (
          <div class="table-wrap">
            <table class="stack">
              <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="n">Responses</th><th scope="col" class="n">Counted events</th><th scope="col" class="n">Positive</th><th scope="col" class="n">Negative</th></tr></thead>
              <tbody>
                {shownDays.map((x) => (
                  <tr key={x.day}>
                    <td data-label="Day (UTC)">{x.day}</td>
                    <td data-label="Responses" class="n">{num(x.sums.responses)}</td>
                    <td data-label="Counted events" class="n">{num(x.sums.events)}</td>
                    <td data-label="Positive" class="n">{num(x.sums.positiveRatings)}</td>
                    <td data-label="Negative" class="n">{num(x.sums.negativeRatings)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {moreDays}
      </Card>
      <Card title="Derived by the pipeline">
        <p>{num(d.signals.length)} signals{signals.length ? ` (${signals.map(([s, n]) => `${num(n)} ${s}`).join(', ')})` : ''} and {num(d.scores.length)} composite scores of their responses.</p>
        <p><button onClick={download}>Download everything as JSON</button> <span class="note">the document of <code>GET /v1/users/:userId/data</code> (GDPR art. 15)</span></p>
      </Card>
    </>
  );
}

function UserView({ userId, implicitDefault }: { userId: string; implicitDefault: 'required' | 'assumed' }) {
  const u = encodeURIComponent(userId);
  const [data] = useLoad(() => api<DataDocument>('GET', `/v1/users/${u}/data`), [userId]);
  const [memory] = useLoad(() => api<{ text: string; items: MemoryItem[] }>('GET', `/v1/users/${u}/context?explain=true`), [userId]);
  const [confirm, setConfirm] = useState('');
  const [status, setStatus] = useState('');
  return (
    <>
      <p><a href={routeHash('users')}>← All users</a></p>
      <h2 class="subject">{userId}</h2>
      <div class="grid">
        <Card title="Consent">
          <ConsentSwitches userId={userId} implicitDefault={implicitDefault} />
        </Card>
        <Card title="Memory, with why each item is there">
          <Show value={memory}>
            {(m) => (m.items.length === 0 ? <p class="note">Nothing remembered.</p> : (
              <>
                {/* Each item once, with its evidence; the prompt block (the same items as text) folded away. */}
                <ul class="memory-items">
                  {m.items.map((it, i) => (
                    <li key={i}>
                      {it.text}
                      <div class="note">
                        {it.kind}: {num(it.support)} events, weight {it.weight.toFixed(1)}
                        {it.eventIds && it.eventIds.length > 0 ? <details><summary>the events</summary><code class="ids">{it.eventIds.join(', ')}</code></details> : null}
                      </div>
                    </li>
                  ))}
                </ul>
                <details>
                  <summary>As given to the model (<code>GET /v1/users/:userId/context</code>)</summary>
                  <pre class="small">{m.text}</pre>
                </details>
              </>
            ))}
          </Show>
        </Card>
      </div>
      <Show value={data} height={400}>{(d) => <div class="grid sections"><DataSections d={d} /></div>}</Show>
      <div class="grid sections">
        <Card title="Erase this user" wide>
          <p>Deletes every response, event and memory of <strong>{userId}</strong>. This cannot be undone. Type the user id to confirm.</p>
          <div class="toolbar">
            <label for="erase-confirm">Confirm user id</label>
            <input id="erase-confirm" value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} />
            <button
              class="danger"
              disabled={confirm !== userId}
              onClick={async () => {
                try {
                  await api('DELETE', `/v1/users/${u}`);
                  setStatus('Erased.');
                } catch (e) {
                  setStatus(e instanceof NotAvailable ? 'Not available on this server.' : e instanceof Error ? e.message : String(e));
                }
              }}
            >
              Erase
            </button>
            <span role="status">{status}</span>
          </div>
        </Card>
      </div>
    </>
  );
}

/** The Users page: the list, or one user at `#/users/<id>`. */
export function Users() {
  const route = useRoute();
  const [ws] = useLoad(() => api<Workspace>('GET', '/v1/workspace'), []);
  const implicitDefault = ws.state === 'ok' && ws.data.settings.implicitConsent === 'assumed' ? 'assumed' : 'required';
  if (ws.state === 'loading') return <Show value={ws} height={500}>{() => null}</Show>;
  return route.id !== null ? <UserView userId={route.id} implicitDefault={implicitDefault} /> : <UserList key={route.params.get('q') ?? ''} search={route.params.get('q') ?? ''} implicitDefault={implicitDefault} />;
}
