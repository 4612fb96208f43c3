/**
 * `/examples/widget`: a page showing the `<feedloop-feedback>` widget against this server, and
 * the widget's bundle (`/examples/widget/feedloop-widget.js`, built by `npm run build` into
 * packages/widget/dist). Public like the docs: the page holds no key; it takes a feedback token
 * in its query (`?token=…`, made with `POST /v1/responses/:id/feedback-tokens`) and shows the
 * response that token names (`GET /v1/feedback/token/:token`).
 */
import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import { FeedloopError } from '../../errors.js';
import type { AppServices } from '../services.js';

/** Where the monorepo's widget build lands, from this file in packages/server/{src,dist}/http/routes. */
const WIDGET_BUNDLE = new URL('../../../../widget/dist/feedloop-widget.js', import.meta.url);

// The empty icon link keeps browsers from asking for /favicon.ico (a 404 in every console).
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>feedloop widget example</title><link rel="icon" href="data:,">
<style>body{font:15px system-ui,sans-serif;max-width:720px;margin:32px auto;padding:0 16px;color:#1f2328}
pre,textarea{font:13px ui-monospace,monospace}pre{white-space:pre-wrap;overflow-wrap:anywhere}#answer{width:100%;min-height:5em;box-sizing:border-box}
feedloop-feedback{margin-top:12px;--feedloop-accent:#8250df}code{background:#f6f8fa;padding:1px 4px}</style></head>
<body><h1>feedloop widget</h1>
<p id="help">Make a token for a response with your secret key, then open this page with <code>?token=…</code>:</p>
<pre id="make">curl -s -X POST $URL/v1/responses/resp-001/feedback-tokens -H "Authorization: Bearer $FEEDLOOP_API_KEY"</pre>
<p><strong>Question:</strong> <span id="query">(open this page with a token to see its response)</span></p>
<label for="answer"><strong>Answer</strong> (editable; copy it or edit it to send implicit signals)</label>
<textarea id="answer"></textarea>
<feedloop-feedback id="fb" answer="answer" stars sliders consent></feedloop-feedback>
<p><button type="button" id="retry">Ask again (retry)</button></p>
<script type="module">
import '/examples/widget/feedloop-widget.js';
const q = new URLSearchParams(location.search);
const fb = document.getElementById('fb');
fb.setAttribute('endpoint', location.origin);
if (q.get('consent') === 'no') fb.removeAttribute('consent');
document.getElementById('retry').onclick = () => fb.retry('What were sales in October 2026?');
const answerBox = document.getElementById('answer');
if (q.get('answer')) answerBox.value = q.get('answer');
if (q.get('token')) {
  fb.setAttribute('token', q.get('token'));
  document.getElementById('help').hidden = true;
  document.getElementById('make').hidden = true;
  // The response the token names, not a made-up one (GET /v1/feedback/token/:token).
  const res = await fetch(location.origin + '/v1/feedback/token/' + encodeURIComponent(q.get('token')));
  const body = await res.json();
  if (res.ok) {
    document.getElementById('query').textContent = body.query;
    if (!q.get('answer')) answerBox.value = body.answer;
  } else document.getElementById('query').textContent = 'This token does not open a response: ' + (body.error ? body.error.message : res.status);
}
</script></body></html>
`;

/** The example routes. */
export const exampleRoutes: FastifyPluginAsync<AppServices> = async (app) => {
  app.get('/examples/widget', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(PAGE),
  );
  app.get('/examples/widget/feedloop-widget.js', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) => {
    let code: Buffer;
    try {
      code = await readFile(WIDGET_BUNDLE);
    } catch {
      throw new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', 'the widget is not built: run npm run build');
    }
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(code);
  });
};
