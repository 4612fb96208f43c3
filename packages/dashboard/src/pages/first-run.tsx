/**
 * The first-run panel: an empty workspace sees how to send its first response and vote, with this
 * server's own URL and the workspace's name in a snippet to copy, instead of blank axes.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Card, Show, useLoad } from '../ui.js';

interface Workspace { id: string; name: string }

/**
 * The snippet that sends a first response and a thumbs-up to `baseUrl`, with the secret key read
 * from `FEEDLOOP_API_KEY` (the name the CLI reads too), never a key on the page.
 *
 * @example
 * firstEventSnippet('http://127.0.0.1:8787') // 'export FEEDLOOP_API_KEY=fl_sk_…\ncurl -s -X POST http://127.0.0.1:8787/v1/responses …'
 */
export function firstEventSnippet(baseUrl: string): string {
  const auth = '-H "Authorization: Bearer $FEEDLOOP_API_KEY" -H "content-type: application/json"';
  return [
    'export FEEDLOOP_API_KEY=fl_sk_…   # a secret key of this workspace (Settings → Keys)',
    `curl -s -X POST ${baseUrl}/v1/responses ${auth} \\`,
    `  -d '{"id":"resp-001","query":"What is our refund policy?","answer":"30 days, receipt required.","userId":"user-1"}'`,
    `curl -s -X POST ${baseUrl}/v1/feedback ${auth} \\`,
    `  -d '{"responseId":"resp-001","type":"thumbs_up","userId":"user-1"}'`,
  ].join('\n');
}

/** The panel. */
export function FirstRun() {
  const [ws] = useLoad(() => api<Workspace>('GET', '/v1/workspace'), []);
  const [status, setStatus] = useState('');
  const base = window.location.origin;
  const snippet = firstEventSnippet(base);
  return (
    <div class="grid">
      <Card title="No feedback yet: send your first event" wide>
        <Show value={ws} height={40}>
          {(w) => (
            <p>
              Workspace <strong>{w.name}</strong> on <code class="url">{base}</code> has no responses or feedback yet. Register an answer your AI gave, then
              a vote on it; the Overview fills in within seconds.
            </p>
          )}
        </Show>
        <pre class="snippet" aria-label="First event snippet">{snippet}</pre>
        <p>
          <button onClick={() => void navigator.clipboard?.writeText(snippet).then(() => setStatus('Copied.'), () => setStatus('Copy failed: select the text instead.'))}>Copy</button>{' '}
          <span role="status">{status}</span>
        </p>
        <p class="note">
          From a browser page, the widget sends votes with a public key (<a href={`${base}/examples/widget`}>example page</a>); <code>feedloop demo</code> fills a
          workspace with 90 days of sample data.
        </p>
      </Card>
    </div>
  );
}
