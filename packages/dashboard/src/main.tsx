/**
 * The dashboard's shell: the login (a workspace secret key, or a reviewer key that sees only the
 * Review pages; kept in sessionStorage), the navigation and hash routing (`#/overview`,
 * `#/responses/<id>`…, route.ts: the key never appears in a URL).
 */
import { render, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, clearKey, saveKey, saveRole, sessionKey, sessionRole, type Role } from './api.js';
import { parseRoute } from './route.js';
import { Alerts } from './pages/alerts.js';
import { Documents } from './pages/documents.js';
import { Experiments } from './pages/experiments.js';
import { Exports } from './pages/exports.js';
import { Insights } from './pages/insights.js';
import { Overview } from './pages/overview.js';
import { Responses } from './pages/responses.js';
import { Settings } from './pages/settings.js';
import { Users } from './pages/users.js';
import './style.css';

/**
 * A page loaded when first opened: the review pages (a reviewer's whole dashboard), Datasets
 * and Judges are chunks of their own, so the other pages' first load does not carry them, and a
 * reviewer's does not carry the rest.
 */
function lazy(load: () => Promise<FunctionComponent>): FunctionComponent {
  let loaded: FunctionComponent | null = null;
  return function Lazy() {
    const [Page, setPage] = useState<FunctionComponent | null>(() => loaded);
    useEffect(() => {
      if (!loaded) void load().then((p) => setPage(() => (loaded = p)));
    }, []);
    return Page ? <Page /> : <div class="placeholder" style={{ minHeight: '320px' }} aria-busy="true" />;
  };
}

const Review = lazy(() => import('./pages/review.js').then((m) => m.Review));
const Queues = lazy(() => import('./pages/queue-settings.js').then((m) => m.Queues));
const Datasets = lazy(() => import('./pages/datasets.js').then((m) => m.Datasets));
const Judges = lazy(() => import('./pages/judges.js').then((m) => m.Judges));

const PAGES = {
  overview: ['Overview', Overview],
  responses: ['Responses', Responses],
  alerts: ['Alerts', Alerts],
  experiments: ['Experiments', Experiments],
  insights: ['Insights', Insights],
  documents: ['Documents', Documents],
  users: ['Users', Users],
  review: ['Review', Review],
  datasets: ['Datasets', Datasets],
  judges: ['Judges', Judges],
  exports: ['Exports', Exports],
  settings: ['Settings', Settings],
  // A queue's settings and agreement (`#/queues/<id>`): reached from Review, not a tab of its own.
  queues: ['Review queue', Queues],
} as const;
type PageName = keyof typeof PAGES;

/** The tabs of each role: a reviewer key sees the Review pages only (the server refuses it the rest). */
const TABS: Record<Role, PageName[]> = {
  secret: ['overview', 'responses', 'alerts', 'experiments', 'insights', 'documents', 'users', 'review', 'datasets', 'judges', 'exports', 'settings'],
  reviewer: ['review'],
};
/** The tab a page is under (a queue's settings are under Review). */
const TAB_OF: Partial<Record<PageName, PageName>> = { queues: 'review' };

const pageOf = (hash: string, role: Role): PageName => {
  const name = parseRoute(hash).page as PageName;
  if (role === 'reviewer') return 'review';
  return name in PAGES ? name : 'overview';
};

/**
 * Checks a key and finds its role: a reviewer key (`fl_rk_…`) lists its review queues; a secret
 * key reads the workspace. A key refused there as a reviewer's is tried as one, whatever its
 * prefix, so the prefix only saves a refused request (and its console error).
 */
async function roleOf(key: string): Promise<Role> {
  if (key.startsWith('fl_rk_')) {
    await api('GET', '/v1/review-queues', undefined, key);
    return 'reviewer';
  }
  try {
    await api('GET', '/v1/workspace', undefined, key);
    return 'secret';
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'FEEDLOOP_ERR_REVIEWER_FORBIDDEN') throw err;
    await api('GET', '/v1/review-queues', undefined, key);
    return 'reviewer';
  }
}

function Login({ onLogin }: { onLogin: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const role = await roleOf(key.trim());
      saveKey(key.trim());
      saveRole(role);
      if (role === 'reviewer') location.hash = '#/review';
      onLogin();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>feedloop</h1>
        <label for="key">Workspace secret key or reviewer key</label>
        <input id="key" type="password" autocomplete="off" placeholder="fl_sk_… or fl_rk_…" value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
        <button type="submit">Open dashboard</button>
        {error ? <p class="error" role="alert">{error}</p> : null}
        <p class="note">The key stays in this tab's session only and is sent to this server alone.</p>
      </form>
    </main>
  );
}

function App() {
  const [loggedIn, setLoggedIn] = useState(sessionKey() !== null);
  const [role, setRole] = useState<Role>(sessionRole());
  const [page, setPage] = useState<PageName>(pageOf(location.hash, role));
  useEffect(() => {
    const on = () => setPage(pageOf(location.hash, role));
    on();
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, [role]);
  if (!loggedIn) return <Login onLogin={() => { setRole(sessionRole()); setLoggedIn(true); }} />;
  const [title, Page] = PAGES[page];
  const tab = TAB_OF[page] ?? page;
  return (
    <div class="shell">
      <header>
        <a class="brand" href={role === 'reviewer' ? '#/review' : '#/overview'}>feedloop</a>
        <nav aria-label="Pages">
          {TABS[role].map((p) => (
            <a key={p} href={`#/${p}`} aria-current={p === tab ? 'page' : undefined}>
              {PAGES[p][0]}
            </a>
          ))}
        </nav>
        <button
          class="link"
          onClick={() => {
            clearKey();
            setLoggedIn(false);
          }}
        >
          Log out
        </button>
      </header>
      <main>
        <h1>{title}</h1>
        <Page />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
