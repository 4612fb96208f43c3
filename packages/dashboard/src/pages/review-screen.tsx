/**
 * The reviewing screen (`#/review/<queueId>`, issue 27): `POST …/next` reserves an item for this
 * reviewer and answers all it shows (the query, the answer or the two answers of a pair in this
 * reviewer's order, sources and context documents, feedback so far, the queue's instructions and
 * rubric). The reviewer answers with the keyboard alone (review-keys.ts; `?` lists the keys),
 * submits, and the next item opens. Skip gives the item back for others; leaving the screen (or
 * closing the tab) releases the reservation, so an item never waits out a reservation nobody holds.
 */
import { Fragment } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, apiOrNone, sendLast } from '../api.js';
import { Markdown } from '../markdown-view.js';
import { routeHash } from '../route.js';
import type { ItemResponse, PriorFeedback, Reserved } from '../review-types.js';
import { VERDICTS } from '../review-types.js';
import { num } from '../ui.js';
import { EMPTY_DRAFT, RubricFields, reviewBody, type Draft } from './review-form.js';
import { SHORTCUTS, keyAction } from './review-keys.js';

type State = { t: 'loading' } | { t: 'item'; r: Reserved } | { t: 'empty' } | { t: 'error'; message: string };

const itemPath = (queueId: string, itemId: string, what: string): string => `/v1/review-queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(itemId)}/${what}`;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Sources and context documents, as given at registration (URLs become links). */
function Sources({ r }: { r: ItemResponse }) {
  const shown = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x));
  if (r.sources.length === 0 && r.contextDocumentIds.length === 0) return null;
  return (
    <div class="sources">
      {r.sources.length > 0 ? (
        <>
          <h4>Sources ({num(r.sources.length)})</h4>
          <ul>{r.sources.map((s, i) => <li key={i}>{typeof s === 'string' && /^https?:\/\//.test(s) ? <a href={s} target="_blank" rel="noopener noreferrer">{s}</a> : <code>{shown(s)}</code>}</li>)}</ul>
        </>
      ) : null}
      {r.contextDocumentIds.length > 0 ? (
        <>
          <h4>Context documents ({num(r.contextDocumentIds.length)})</h4>
          <ul>{r.contextDocumentIds.map((d, i) => <li key={i}><code>{shown(d)}</code></li>)}</ul>
        </>
      ) : null}
    </div>
  );
}

/** One feedback event in words: its type, who, and what it said. */
function FeedbackLine({ f }: { f: PriorFeedback }) {
  const p = (f.payload ?? {}) as Record<string, unknown>;
  const said = [p.verdict, p.rating, p.value, p.stringValue, Array.isArray(p.categories) ? (p.categories as string[]).join(', ') : undefined].filter((x) => x !== undefined && x !== null && x !== '');
  return (
    <li>
      <span class={`tag ${f.type}`}>{f.type}</span> {said.length ? <strong>{said.map(String).join(' · ')}</strong> : null} <span class="note">{f.userId ?? 'anonymous'} · {f.source} · {new Date(f.occurredAt).toLocaleDateString()}</span>
      {typeof p.comment === 'string' ? <q>{p.comment}</q> : null}
      {typeof p.corrected === 'string' ? <pre class="small">{p.corrected}</pre> : null}
    </li>
  );
}

function PriorFeedbackList({ responses }: { responses: ItemResponse[] }) {
  const total = responses.reduce((n, r) => n + r.feedback.length, 0);
  return (
    <details class="card prior">
      <summary><h2>Feedback so far ({num(total)})</h2></summary>
      {total === 0 ? <p class="note">None yet (this queue's own reviews are not shown).</p> : responses.map((r, i) => (
        <div key={r.id}>
          {responses.length > 1 ? <h3>Answer {i === 0 ? 'A' : 'B'} ({num(r.feedback.length)})</h3> : null}
          <ul class="feedback">{r.feedback.map((f) => <FeedbackLine key={f.id} f={f} />)}</ul>
        </div>
      ))}
    </details>
  );
}

/** The item itself: the query and the answer, or the two answers side by side. */
function Subject({ r }: { r: Reserved }) {
  const [first] = r.responses;
  const sameQuery = r.responses.every((x) => x.query === first?.query);
  return (
    <section class="card subject" aria-label="Item">
      {sameQuery ? <><h2>Query</h2><pre class="query">{first?.query}</pre></> : null}
      <div class={r.responses.length > 1 ? 'answers pair' : 'answers'}>
        {r.responses.map((x, i) => (
          <article key={x.id} class="answer" tabindex={0} data-response={x.id} aria-label={r.responses.length > 1 ? `Answer ${i === 0 ? 'A' : 'B'}` : 'Answer'}>
            <h3>{r.responses.length > 1 ? `Answer ${i === 0 ? 'A' : 'B'}` : 'Answer'}</h3>
            {sameQuery ? null : <pre class="query">{x.query}</pre>}
            <pre>{x.answer}</pre>
            <Sources r={x} />
          </article>
        ))}
      </div>
    </section>
  );
}

function Help({ close }: { close: () => void }) {
  return (
    <div class="help" role="dialog" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <dl class="facts">{SHORTCUTS.map(([k, what]) => <Fragment key={k}><dt><kbd>{k}</kbd></dt><dd>{what}</dd></Fragment>)}</dl>
      <button onClick={close}>Close</button>
    </div>
  );
}

/** The reviewing screen of one queue. */
export function ReviewScreen({ queueId, as }: { queueId: string; as: string | null }) {
  // A secret key reviews for a member it names; a reviewer key is its own reviewer.
  const who = as === null ? {} : { reviewer: as };
  const [state, setState] = useState<State>({ t: 'loading' });
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  // The latest draft, ahead of the render: a key press right after a change (Space on an issue,
  // then Ctrl+Enter) must see that change, and renders are batched.
  const latest = useRef<Draft>(EMPTY_DRAFT);
  const change = (f: (d: Draft) => Draft) => {
    latest.current = f(latest.current);
    setDraft(latest.current);
  };
  const [help, setHelp] = useState(false);
  const [busy, setBusyState] = useState(false);
  // A second Ctrl+Enter before the first one's answer must not send the review twice.
  const busyNow = useRef(false);
  const setBusy = (b: boolean) => {
    busyNow.current = b;
    setBusyState(b);
  };
  const [status, setStatus] = useState('');
  const [reviewed, setReviewed] = useState(0);
  const held = useRef<string | null>(null);
  const form = useRef<HTMLFormElement>(null);

  const next = async () => {
    setState({ t: 'loading' });
    change(() => EMPTY_DRAFT);
    try {
      const r = await apiOrNone<Reserved>('POST', `/v1/review-queues/${encodeURIComponent(queueId)}/next`, who);
      held.current = r?.item.id ?? null;
      setState(r ? { t: 'item', r } : { t: 'empty' });
    } catch (err) {
      setState({ t: 'error', message: message(err) });
    }
  };

  useEffect(() => {
    void next();
    // Leaving the screen or closing the tab gives the held item back at once.
    const release = () => {
      if (held.current) sendLast('POST', itemPath(queueId, held.current, 'release'), who);
      held.current = null;
    };
    addEventListener('pagehide', release);
    return () => {
      removeEventListener('pagehide', release);
      release();
    };
  }, [queueId, as]);

  const r = state.t === 'item' ? state.r : null;
  const bodyOf = (d: Draft) => (r ? reviewBody(d, r.queue.kind, r.queue.rubric, r.scoreConfigs ?? []) : null);
  const body = bodyOf(draft);

  const submit = async () => {
    const body = bodyOf(latest.current);
    if (!r || !body || busyNow.current) return;
    setBusy(true);
    try {
      await api('POST', itemPath(queueId, r.item.id, 'reviews'), { ...body, ...who });
      held.current = null;
      setReviewed((n) => n + 1);
      setStatus(`Saved your review of item ${r.item.id}.`);
    } catch (err) {
      // 409: the reservation lapsed and others completed the item meanwhile; the review is not kept.
      setStatus(err instanceof ApiError && err.status === 409 ? 'Your reservation lapsed and the item was completed by others: your review was not needed. Here is the next item.' : message(err));
      if (!(err instanceof ApiError && err.status === 409)) {
        setBusy(false);
        return;
      }
      held.current = null;
    }
    setBusy(false);
    await next();
  };

  const skip = async () => {
    if (!r || busyNow.current) return;
    setBusy(true);
    try {
      await api('POST', itemPath(queueId, r.item.id, 'skip'), who);
      held.current = null;
      setStatus(`Skipped item ${r.item.id}.`);
    } catch (err) {
      setStatus(message(err));
    }
    setBusy(false);
    await next();
  };

  // Attached as the screen draws, not after its paint: an effect left the last item's handler in
  // place between drawing a new item and the next paint, so a key pressed then set the old item's
  // draft and a submit sent nothing (CI's two-reviewer race test, under load).
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      const inText = !!el && (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || (el.tagName === 'INPUT' && !['radio', 'checkbox', 'button', 'submit'].includes((el as HTMLInputElement).type)));
      const action = keyAction({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, inText });
      if (!action) return;
      if (action.t === 'help') setHelp((h) => !h);
      else if (action.t === 'leave') {
        if (inText) el?.blur();
        setHelp(false);
      } else if (!r) return;
      else if (action.t === 'submit') void submit();
      else if (action.t === 'skip') void skip();
      else if (action.t === 'verdict' && r.queue.kind === 'single' && r.queue.rubric.verdict) change((d) => ({ ...d, verdict: VERDICTS[action.index] }));
      else if (action.t === 'prefer' && r.queue.kind === 'pairwise') {
        const id = action.which === 'tie' ? 'tie' : r.responses[action.which === 'first' ? 0 : 1]?.id;
        if (id) change((d) => ({ ...d, preferred: id }));
      } else if (action.t === 'move') {
        const stops = [...document.querySelectorAll<HTMLElement>('.answer[tabindex], form.rubric :is(input, textarea, select, button):not(:disabled)')];
        const at = stops.indexOf(document.activeElement as HTMLElement);
        const to = stops[Math.max(0, Math.min(stops.length - 1, at < 0 ? 0 : at + action.by))];
        to?.focus();
        to?.scrollIntoView({ block: 'nearest' });
      } else return;
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });

  return (
    <div class="review-screen" data-state={state.t} data-item={r?.item.id ?? ''}>
      <div class="toolbar review-head">
        <a href={routeHash('review')}>← Queues</a>
        {r ? <strong>{r.queue.name}</strong> : null}
        {r ? <span class="note">{r.queue.kind} · item <code class="ids">{r.item.id}</code> · {num(r.item.reviews)} of {num(r.queue.reviewersPerItem)} reviews so far{r.reservation ? ` · ${r.reviewer}'s until ${new Date(r.reservation.expiresAt).toLocaleTimeString()}` : ''}</span> : null}
        <span class="note" data-figure="reviewed">{num(reviewed)} reviewed in this session</span>
        <button class="link" onClick={() => setHelp((h) => !h)} aria-expanded={help}>Shortcuts (?)</button>
      </div>
      <p role="status" class="note">{status}</p>
      {help ? <Help close={() => setHelp(false)} /> : null}
      {state.t === 'loading' ? <div class="placeholder" style={{ minHeight: '320px' }} aria-busy="true" /> : null}
      {state.t === 'error' ? <p class="error" role="alert">{state.message}</p> : null}
      {state.t === 'empty' ? <div class="card"><h2>Nothing left to review</h2><p>Every item of this queue is reviewed, held by other reviewers, or skipped by you. <a href={routeHash('review')}>Back to the queues</a></p></div> : null}
      {r ? (
        <div class="review-grid">
          <Subject r={r} />
          <aside class="review-side">
            <form ref={form} class="card rubric" aria-label="Review" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
              <h2>Your review</h2>
              <RubricFields r={r} draft={draft} set={change} />
              <div class="actions">
                <button type="submit" class="primary" disabled={!body || busy}>Submit <kbd>Ctrl+Enter</kbd></button>
                <button type="button" onClick={() => void skip()} disabled={busy}>Skip <kbd>s</kbd></button>
              </div>
            </form>
            {r.queue.instructions.trim() ? (
              <details class="card instructions" open>
                <summary><h2>Instructions</h2></summary>
                <Markdown text={r.queue.instructions} />
              </details>
            ) : null}
            <PriorFeedbackList responses={r.responses} />
          </aside>
        </div>
      ) : null}
    </div>
  );
}
