/// <reference lib="dom" />
/**
 * `<feedloop-feedback>`: thumbs up/down; a thumbs down is sent at once, and its error categories
 * and comment follow as events of their own (so a user who votes and leaves is never lost); what
 * is queued goes out with `keepalive` when the page is hidden or unloaded;
 * optional 1-5 stars (`stars`) and quality sliders (`sliders`). Keyboard accessible (native
 * buttons and inputs, ARIA labels, `aria-pressed`, a live status line), themable with CSS custom
 * properties (`--feedloop-accent`, `--feedloop-bg`, `--feedloop-fg`, `--feedloop-radius`,
 * `--feedloop-font`). Implicit signals (copy, edit, retry, abandonment) only when the host sets
 * the `consent` attribute: the user's consent is the host page's to ask.
 *
 * Attributes: `endpoint` (server URL), `token` (a feedback token) or `public-key` with
 * `response-id`, `user-id`, `stars`, `sliders`, `consent`, `answer` (id of the answer element
 * in the page: copy and edit signals), `abandon-ms` (default 30000).
 */
import { FeedloopClient } from '@feedloop/client';

const CATEGORIES = ['missing_context', 'wrong_context', 'ignored_constraints', 'hallucination', 'style_mismatch', 'other'] as const;
const SCORES = ['accuracy', 'completeness', 'styleMatch'] as const;
const label = (s: string): string => s.replace(/_|(?=[A-Z])/g, ' ').toLowerCase();

// Inline icons, not emoji: a system without an emoji font (headless Chromium, some Linux
// desktops) would show empty boxes. Thumb outline after Feather icons (MIT); down is it turned.
const THUMB =
  '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3"/></svg>';

const STYLE = `:host{display:block;font:var(--feedloop-font,14px system-ui,sans-serif);color:var(--feedloop-fg,#1f2328)}
.w{background:var(--feedloop-bg,#f6f8fa);border-radius:var(--feedloop-radius,8px);padding:8px 12px;display:grid;gap:8px}
button{font:inherit;cursor:pointer;border:1px solid #0003;border-radius:var(--feedloop-radius,8px);background:#fff;color:inherit;padding:4px 10px}
button svg{display:block}button[aria-pressed=true]{background:var(--feedloop-accent,#0969da);color:#fff}
button:focus-visible,input:focus-visible,textarea:focus-visible{outline:2px solid var(--feedloop-accent,#0969da);outline-offset:2px}
.row{display:flex;gap:6px;align-items:center;flex-wrap:wrap}fieldset{border:0;margin:0;padding:0}textarea{font:inherit;width:100%;box-sizing:border-box}
[hidden]{display:none!important}.c,.more{display:grid;gap:4px}.scores{display:flex;flex-wrap:wrap;gap:6px 12px;align-items:center}.stars .on{color:var(--feedloop-accent,#0969da);border-color:currentColor}.s{min-height:1.2em;font-size:.9em}`;

/** The widget element. */
export class FeedloopFeedback extends HTMLElement {
  #client: FeedloopClient | undefined;
  /** The attributes the client was made with. */
  #clientConfig = '';
  #root: ShadowRoot;
  #interacted = false;
  #shownAt = Date.now();
  #cleanup: Array<() => void> = [];

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
  }

  /** The response the feedback is about (`response-id`; with a token, the token's). */
  get responseId(): string {
    return this.getAttribute('response-id') ?? '';
  }

  /** Attributes that configure the client: a change (re)connects it. */
  static get observedAttributes(): string[] {
    return ['endpoint', 'token', 'public-key', 'response-id'];
  }

  connectedCallback(): void {
    this.#shownAt = Date.now();
    this.#render();
    this.#watchImplicit();
    // Made now, not at the first click: what a previous page left queued (offline) goes out on load.
    this.#clientOf();
  }

  attributeChangedCallback(_name: string, old: string | null, value: string | null): void {
    if (old === value || !this.isConnected) return;
    // Hosts often set the token after the element is defined: connect with the new configuration.
    this.#clientOf();
  }

  disconnectedCallback(): void {
    for (const undo of this.#cleanup.splice(0)) undo();
    void this.#client?.flush();
  }

  /** The host calls this when the user asks again (consent required): a `retry` signal. */
  retry(newQuery: string): void {
    if (!this.#consent() || !newQuery) return;
    this.#interacted = true;
    this.#send((c, r) => c.retry(r, { payload: { rephrasedQuery: newQuery, elapsedMs: this.#elapsed() } }));
  }

  /** Sends what is queued now (tests, and hosts about to navigate). */
  flush(): Promise<unknown> {
    return this.#clientOf()?.flush() ?? Promise.resolve();
  }

  #consent(): boolean {
    return this.hasAttribute('consent');
  }

  #elapsed(): number {
    return Math.max(0, Date.now() - this.#shownAt);
  }

  #clientOf(): FeedloopClient | undefined {
    const url = this.getAttribute('endpoint') ?? location.origin;
    const token = this.getAttribute('token');
    const key = this.getAttribute('public-key');
    const config = JSON.stringify([url, token, key, this.responseId]);
    if (this.#client && config === this.#clientConfig) return this.#client;
    // A changed configuration: the old client sends what it still holds, then stops.
    void this.#client?.shutdown().catch(() => undefined);
    this.#client = undefined;
    this.#clientConfig = config;
    if (!token && !key) return undefined;
    this.#client = new FeedloopClient({
      url,
      ...(token ? { token } : { key: key as string }),
      flushIntervalMs: 300,
      storageKey: `feedloop:widget:${token ? token.slice(-16) : this.responseId}`,
      onOutcome: (o) => {
        this.#status(o.status === 'rejected' ? `Not sent: ${o.error?.message ?? 'refused'}` : 'Thanks for your feedback!');
        this.dispatchEvent(new CustomEvent('feedloop-outcome', { detail: o, bubbles: true, composed: true }));
      },
    });
    return this.#client;
  }

  #send(fn: (client: FeedloopClient, responseId: string) => string): void {
    const c = this.#clientOf();
    if (!c) {
      this.#status('Feedback is not configured (no token or key).');
      return;
    }
    fn(c, this.getAttribute('token') ? '' : this.responseId);
  }

  #status(text: string): void {
    const s = this.#root.querySelector('.s');
    if (s) s.textContent = text;
  }

  #render(): void {
    const stars = this.hasAttribute('stars');
    const sliders = this.hasAttribute('sliders');
    this.#root.innerHTML = `<style>${STYLE}</style><div class="w" part="container">
<div class="row" role="group" aria-label="Was this answer helpful?"><span>Helpful?</span>
<button type="button" class="up" aria-label="Thumbs up: helpful" aria-pressed="false">${THUMB}</button>
<button type="button" class="down" aria-label="Thumbs down: not helpful" aria-pressed="false">${THUMB.replace('<path', '<path transform="rotate(180 12 12)"')}</button></div>
<form class="more" hidden aria-label="What went wrong?"><fieldset><legend>What went wrong?</legend><div class="row">${CATEGORIES.map(
      (c) => `<label><input type="checkbox" name="cat" value="${c}"> ${label(c)}</label>`,
    ).join('')}</div></fieldset>
<label class="c">Comment <textarea name="comment" rows="2" maxlength="2000" aria-label="Comment"></textarea></label>
<div class="row"><button type="submit" class="send">Send</button></div></form>
${stars ? `<div class="row stars" role="radiogroup" aria-label="Rate this answer from 1 to 5 stars">${[1, 2, 3, 4, 5]
      .map((n) => `<button type="button" role="radio" aria-checked="false" data-n="${n}" aria-label="${n} star${n > 1 ? 's' : ''}">★</button>`)
      .join('')}</div>` : ''}
${sliders ? `<form class="scores" aria-label="Quality scores">${SCORES.map(
      (k) => `<label>${label(k)} <input type="range" name="${k}" min="0" max="100" value="50" aria-label="${label(k)} (0-100)"></label>`,
    ).join('')}<button type="submit">Send scores</button></form>` : ''}
<div class="s" role="status" aria-live="polite"></div></div>`;
    const $ = <T extends Element>(sel: string): T => this.#root.querySelector(sel) as T;
    const up = $<HTMLButtonElement>('.up');
    const down = $<HTMLButtonElement>('.down');
    const more = $<HTMLFormElement>('.more');
    up.onclick = () => {
      this.#interacted = true;
      up.setAttribute('aria-pressed', 'true');
      down.setAttribute('aria-pressed', 'false');
      more.hidden = true;
      this.#send((c, r) => c.thumbsUp(r));
    };
    down.onclick = () => {
      this.#interacted = true;
      const already = down.getAttribute('aria-pressed') === 'true';
      down.setAttribute('aria-pressed', 'true');
      up.setAttribute('aria-pressed', 'false');
      more.hidden = false;
      // The vote goes at once: a user who clicks 👎 and leaves is the most valuable signal. The
      // form's categories and comment follow as events of their own.
      if (!already) {
        this.#send((c, r) => c.thumbsDown(r));
        void this.#client?.flush().catch(() => undefined);
      }
      $<HTMLInputElement>('input[name=cat]').focus();
    };
    more.onsubmit = (e) => {
      e.preventDefault();
      const data = new FormData(more);
      const comment = String(data.get('comment') ?? '').trim();
      const categories = data.getAll('cat').map(String) as Array<(typeof CATEGORIES)[number]>;
      if (categories.length > 0) this.#send((c, r) => c.errorCategories(r, { payload: { categories, ...(comment ? { comment } : {}) } }));
      else if (comment) this.#send((c, r) => c.comment(r, { payload: { comment } }));
      more.hidden = true;
    };
    this.#root.querySelectorAll<HTMLButtonElement>('.stars button').forEach((b, i, all) => {
      b.onclick = () => {
        this.#interacted = true;
        all.forEach((x, j) => {
          x.setAttribute('aria-checked', String(j === i));
          // The chosen star and those before it are lit.
          x.classList.toggle('on', j <= i);
        });
        this.#send((c, r) => c.rating(r, { payload: { rating: i + 1 } }));
      };
    });
    const scores = this.#root.querySelector<HTMLFormElement>('.scores');
    if (scores) {
      scores.onsubmit = (e) => {
        e.preventDefault();
        this.#interacted = true;
        const data = new FormData(scores);
        const payload = Object.fromEntries(SCORES.map((k) => [k, Number(data.get(k))])) as Record<(typeof SCORES)[number], number>;
        this.#send((c, r) => c.qualityScores(r, { payload }));
      };
    }
  }

  /** Copy, edit and abandonment, with the host's consent only. */
  #watchImplicit(): void {
    // Consent is read at each signal: the host may grant or withdraw it after the widget starts.
    const on = (target: EventTarget, type: string, fn: EventListener): void => {
      const guarded: EventListener = (e) => {
        if (this.#consent()) fn(e);
      };
      target.addEventListener(type, guarded);
      this.#cleanup.push(() => target.removeEventListener(type, guarded));
    };
    const answerId = this.getAttribute('answer');
    const answer = answerId ? document.getElementById(answerId) : null;
    if (answer) {
      on(answer, 'copy', () => {
        this.#interacted = true;
        this.#send((c, r) => c.continueUse(r, { payload: { action: 'copy', elapsedMs: this.#elapsed() } }));
      });
      const text = (): string => (answer instanceof HTMLTextAreaElement || answer instanceof HTMLInputElement ? answer.value : (answer.textContent ?? ''));
      let before = text();
      on(answer, 'focus', () => {
        before = text();
      });
      on(answer, 'blur', () => {
        const after = text();
        if (after === before) return;
        this.#interacted = true;
        const original = before;
        before = after;
        this.#send((c, r) => c.edit(r, { payload: { original, edited: after, phase: 'immediate', elapsedMs: this.#elapsed() } }));
      });
    }
    const abandonMs = Number(this.getAttribute('abandon-ms') ?? 30_000);
    on(document, 'visibilitychange', () => {
      if (document.visibilityState !== 'hidden') return;
      if (!this.#interacted && this.#elapsed() <= abandonMs) {
        this.#interacted = true;
        this.#send((c, r) => c.abandon(r, { payload: { stage: 'page_hidden', elapsedMs: this.#elapsed() } }));
      }
      // The page may not come back: send now (keepalive), the queue in storage covers the rest.
      void this.#client?.flush().catch(() => undefined);
    });
    // A page being unloaded (closed, navigated away) may skip visibilitychange: pagehide always fires.
    const onPageHide = (): void => void this.#client?.flush().catch(() => undefined);
    window.addEventListener('pagehide', onPageHide);
    this.#cleanup.push(() => window.removeEventListener('pagehide', onPageHide));
  }
}
