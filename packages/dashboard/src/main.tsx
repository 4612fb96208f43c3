/**
 * The dashboard's shell: the login (a workspace secret key, kept in sessionStorage), the
 * navigation and hash routing (`#/overview`, `#/responses/<id>`…, route.ts: the key never appears in a URL).
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, clearKey, saveKey, sessionKey } from './api.js';
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

const PAGES = {
  overview: ['Overview', Overview],
  responses: ['Responses', Responses],
  alerts: ['Alerts', Alerts],
  experiments: ['Experiments', Experiments],
  insights: ['Insights', Insights],
  documents: ['Documents', Documents],
  users: ['Users', Users],
  exports: ['Exports', Exports],
  settings: ['Settings', Settings],
} as const;
type PageName = keyof typeof PAGES;

const pageOf = (hash: string): PageName => {
  const name = parseRoute(hash).page as PageName;
  return name in PAGES ? name : 'overview';
};

function Login({ onLogin }: { onLogin: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api('GET', '/v1/workspace', undefined, key.trim());
      saveKey(key.trim());
      onLogin();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>feedloop</h1>
        <label for="key">Workspace secret key</label>
        <input id="key" type="password" autocomplete="off" placeholder="fl_sk_…" value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
        <button type="submit">Open dashboard</button>
        {error ? <p class="error" role="alert">{error}</p> : null}
        <p class="note">The key stays in this tab's session only and is sent to this server alone.</p>
      </form>
    </main>
  );
}

function App() {
  const [loggedIn, setLoggedIn] = useState(sessionKey() !== null);
  const [page, setPage] = useState<PageName>(pageOf(location.hash));
  useEffect(() => {
    const on = () => setPage(pageOf(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  if (!loggedIn) return <Login onLogin={() => setLoggedIn(true)} />;
  const [title, Page] = PAGES[page];
  return (
    <div class="shell">
      <header>
        <a class="brand" href="#/overview">feedloop</a>
        <nav aria-label="Pages">
          {(Object.keys(PAGES) as PageName[]).map((p) => (
            <a key={p} href={`#/${p}`} aria-current={p === page ? 'page' : undefined}>
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
