/**
 * The rubric form of the reviewing screen: for a single item the fields its queue's rubric turns
 * on (verdict, issues, quality scores, correction, named scores, comment); for a pairwise item the
 * preference between the two answers, named by response id (never by position), and a reason.
 * The form's values live in the screen, so its keyboard shortcuts set them too.
 */
import { ISSUES, QUALITY, VERDICTS, VERDICT_LABELS, type Reserved, type Rubric, type RubricScore, type SingleReviewBody } from '../review-types.js';

/** What the reviewer has filled in so far. */
export interface Draft {
  verdict: string; issues: string[]; quality: Record<string, string>; correction: string; comment: string;
  scores: Record<string, string>; preferred: string; reason: string;
}

/** An empty draft. */
export const EMPTY_DRAFT: Draft = { verdict: '', issues: [], quality: {}, correction: '', comment: '', scores: {}, preferred: '', reason: '' };

const QUALITY_LABELS: Record<string, string> = { accuracy: 'Accuracy', completeness: 'Completeness', styleMatch: 'Style match' };

/**
 * The review body of a draft: only what was filled in, numbers as numbers; null when it says
 * nothing yet (the submit button waits).
 */
export function reviewBody(draft: Draft, kind: 'single' | 'pairwise', rubric: Rubric, configs: RubricScore[]): Record<string, unknown> | null {
  if (kind === 'pairwise') return draft.preferred ? { preferred: draft.preferred, ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}) } : null;
  const body: SingleReviewBody = {};
  if (rubric.verdict && draft.verdict) body.verdict = draft.verdict as SingleReviewBody['verdict'];
  if (rubric.issues && draft.issues.length > 0 && body.verdict) body.issues = draft.issues;
  if (rubric.qualityScores) {
    const q = Object.fromEntries(QUALITY.flatMap((k) => (draft.quality[k] ? [[k, Number(draft.quality[k])]] : [])));
    if (Object.keys(q).length > 0) body.qualityScores = q;
  }
  if (rubric.correction && draft.correction.trim()) body.correction = draft.correction;
  if (rubric.comment && draft.comment.trim()) body.comment = draft.comment.trim();
  const scores = configs.flatMap((c) => {
    const v = draft.scores[c.name];
    if (!v) return [];
    return [c.dataType === 'categorical' ? { name: c.name, stringValue: v } : { name: c.name, value: Number(v) }];
  });
  if (scores.length > 0) body.scores = scores;
  return Object.keys(body).length > 0 ? (body as Record<string, unknown>) : null;
}

/**
 * The form's fields for the reserved item. `set` takes a change of the latest draft (not of the
 * rendered one): keys come faster than renders, and a change must not undo the one before it.
 */
export function RubricFields({ r, draft, set }: { r: Reserved; draft: Draft; set: (change: (d: Draft) => Draft) => void }) {
  const { rubric, kind } = r.queue;
  if (kind === 'pairwise') {
    const [first, second] = r.responses;
    const choices: Array<[string, string, string]> = [[first?.id ?? '', 'A', 'a'], [second?.id ?? '', 'B', 'b'], ['tie', 'Tie', 't']];
    return (
      <>
        <fieldset class="choices">
          <legend>Which answer is better?</legend>
          {choices.map(([value, label, key]) => (
            <label key={label} class="choice">
              <input type="radio" name="preferred" value={value} data-position={label} checked={draft.preferred === value} onChange={() => set((d) => ({ ...d, preferred: value }))} />
              <kbd>{key}</kbd> {label === 'Tie' ? 'Tie: neither is better' : `Answer ${label}`}
            </label>
          ))}
        </fieldset>
        <label class="field">Reason (optional)<textarea name="reason" rows={3} value={draft.reason} onInput={(e) => set((d) => ({ ...d, reason: e.currentTarget.value }))} /></label>
      </>
    );
  }
  const configs = r.scoreConfigs ?? [];
  return (
    <>
      {rubric.verdict ? (
        <fieldset class="choices">
          <legend>Verdict</legend>
          {VERDICTS.map((v, i) => (
            <label key={v} class="choice">
              <input type="radio" name="verdict" value={v} checked={draft.verdict === v} onChange={() => set((d) => ({ ...d, verdict: v }))} />
              <kbd>{i + 1}</kbd> {VERDICT_LABELS[v]}
            </label>
          ))}
        </fieldset>
      ) : null}
      {rubric.issues ? (
        <fieldset class="choices issues">
          <legend>Issues {draft.verdict ? '' : <span class="note">(with a verdict)</span>}</legend>
          {ISSUES.map((x) => (
            <label key={x} class="choice">
              <input type="checkbox" name="issues" value={x} checked={draft.issues.includes(x)}
                onChange={(e) => set((d) => ({ ...d, issues: e.currentTarget.checked ? [...d.issues, x] : d.issues.filter((y) => y !== x) }))} /> {x.replace(/_/g, ' ')}
            </label>
          ))}
        </fieldset>
      ) : null}
      {rubric.qualityScores ? (
        <fieldset class="choices quality">
          <legend>Quality scores (0–100)</legend>
          {QUALITY.map((k) => (
            <label key={k} class="field">{QUALITY_LABELS[k]}
              <input type="number" name={k} min={0} max={100} step={1} value={draft.quality[k] ?? ''} onInput={(e) => set((d) => ({ ...d, quality: { ...d.quality, [k]: e.currentTarget.value } }))} />
            </label>
          ))}
        </fieldset>
      ) : null}
      {configs.map((c) => (
        <label key={c.id} class="field">{c.name}
          {c.dataType === 'categorical' && c.categories ? (
            <select name={`score-${c.name}`} value={draft.scores[c.name] ?? ''} onChange={(e) => set((d) => ({ ...d, scores: { ...d.scores, [c.name]: e.currentTarget.value } }))}>
              <option value="">not given</option>
              {c.categories.map((x) => <option key={x.label} value={x.label}>{x.label}</option>)}
            </select>
          ) : (
            <input type="number" name={`score-${c.name}`} step="any" min={c.min ?? undefined} max={c.max ?? undefined} value={draft.scores[c.name] ?? ''}
              onInput={(e) => set((d) => ({ ...d, scores: { ...d.scores, [c.name]: e.currentTarget.value } }))} />
          )}
        </label>
      ))}
      {rubric.correction ? (
        <label class="field">Correction (the answer as it should be; optional)
          <textarea name="correction" rows={4} value={draft.correction} onInput={(e) => set((d) => ({ ...d, correction: e.currentTarget.value }))} />
        </label>
      ) : null}
      {rubric.comment ? (
        <label class="field">Comment (optional)<textarea name="comment" rows={2} value={draft.comment} onInput={(e) => set((d) => ({ ...d, comment: e.currentTarget.value }))} /></label>
      ) : null}
    </>
  );
}
