/**
 * The classify stage: what one event says about its response. Every event type maps to a
 * polarity, a severity, an ADR-004 signal class and a value in [-1, 1] that is also the learning
 * signal's reward. The rules are tabled in docs/signals.md.
 */
import type { FeedbackEventType } from '../event-types.js';
import type { WorkspaceSettings } from '../workspace-settings.js';
import type { Classification, EnrichedEvent, Polarity, Severity, SignalClass } from './signal-types.js';

/** Percent as a share: 100 % is 1. */
const PERCENT = 100;
/** The middle of a 1-5 star scale, a neutral rating. */
const NEUTRAL_STARS = 3;
/** Stars from the middle to either end of the scale, so (stars - 3) / 2 spans [-1, 1]. */
const STARS_HALF_RANGE = 2;
/** The lowest star rating, the one that asks for attention most. */
const LOWEST_STARS = 1;
/** The middle of a 0-100 quality score, value 0. */
const QUALITY_MIDPOINT = 50;
/** Mean quality score from which the scores say the response is good. */
const QUALITY_POSITIVE_FROM = 70;
/** Mean quality score under which the scores say the response is bad. */
const QUALITY_NEGATIVE_BELOW = 40;
/**
 * Changed characters (percent) under which an edit is a refinement, not a correction (ADR-004:
 * an immediate edit "could be refinement, not correction").
 */
export const REFINEMENT_EDIT_PERCENT = 10;
/** A correction always costs at least this much: the user had to fix something. */
const CORRECTION_BASE_PENALTY = 0.25;
/** What the rest of the penalty scales with the changed share, so a full rewrite gives -1. */
const CORRECTION_SCALED_PENALTY = 1 - CORRECTION_BASE_PENALTY;
/** A correction with no measured distance counts as a full rewrite. */
const UNMEASURED_CORRECTION_PERCENT = 100;
/** An edit with no measured distance counts as no change. */
const UNMEASURED_EDIT_PERCENT = 0;
/** A relabelled, irrelevant or missing part: half wrong. */
const LABEL_FIX_VALUE = -0.5;
/** A wrong or missing citation: the answer may be right, its sourcing is not. */
const CITATION_FIX_VALUE = -0.3;
/** A "changes requested" review: the response was usable with work. */
const CHANGES_REQUESTED_VALUE = -0.5;
/** Error categories and review issues that always make a signal urgent. */
const HIGH_SEVERITY_ISSUES: ReadonlySet<string> = new Set(['hallucination', 'security_concern']);

/** A classification's optional parts, with their defaults. */
interface Details {
  severity?: Severity;
  categories?: readonly string[];
  firstPass?: boolean | null;
}

function classification(polarity: Polarity, signalClass: SignalClass, value: number, details: Details = {}): Classification {
  return {
    polarity,
    severity: details.severity ?? 'none',
    categories: [...new Set(details.categories ?? [])],
    signalClass,
    // -0 (an unchanged edit, an outcome of -0) would compare unequal to 0 in Object.is checks.
    value: Object.is(value, -0) ? 0 : value,
    firstPass: details.firstPass ?? null,
  };
}

/** A 1-5 star rating (a `rating` or a `rate_usefulness`): value (stars - 3) / 2. */
function stars(rating: number): Classification {
  const value = (rating - NEUTRAL_STARS) / STARS_HALF_RANGE;
  if (rating > NEUTRAL_STARS) return classification('positive', 'explicit_positive', value, { firstPass: true });
  if (rating === NEUTRAL_STARS) return classification('neutral', 'explicit_neutral', value);
  const severity = rating <= LOWEST_STARS ? 'medium' : 'low';
  return classification('negative', 'explicit_negative', value, { severity, firstPass: false });
}

/** A label action's fix: a negative, low-severity explicit signal that says nothing of first-pass acceptance. */
function labelFix(value: number): Classification {
  return classification('negative', 'explicit_negative', value, { severity: 'low' });
}

/** Severity `high` when a named category is among {@link HIGH_SEVERITY_ISSUES}, else `otherwise`. */
function severityOf(categories: readonly string[], otherwise: Severity): Severity {
  return categories.some((c) => HIGH_SEVERITY_ISSUES.has(c)) ? 'high' : otherwise;
}

/**
 * The percentage of characters an edit or correction changed, with the defaults classify uses
 * when ingest measured none (a correction counts as a full rewrite, an edit as no change); null
 * for other types. The composite score uses it to tell heavy edits.
 *
 * @example
 * changedPercent('correction', null) // 100
 * changedPercent('edit', 60) // 60
 * changedPercent('thumbs_up', null) // null
 */
export function changedPercent(type: FeedbackEventType, editDistance: number | null): number | null {
  if (type === 'correction') return editDistance ?? UNMEASURED_CORRECTION_PERCENT;
  if (type === 'edit') return editDistance ?? UNMEASURED_EDIT_PERCENT;
  return null;
}

/**
 * What one event says about its response. Pure and total: every event type has a rule (an
 * exhaustive switch, so a new type fails to compile until it gets one).
 *
 * The settings matter only for edits: one changing at least `heavyEditPercent` of the characters
 * rejects the response as it was (`firstPass: false`).
 *
 * @example
 * classify(enrich(correctionOfOneThird, response), settings).value // -0.5
 * classify(enrich(thumbsUp, response), settings)
 * // { polarity: 'positive', severity: 'none', categories: [], signalClass: 'explicit_positive', value: 1, firstPass: true }
 */
export function classify(enriched: EnrichedEvent, settings: WorkspaceSettings): Classification {
  const event = enriched.event;
  switch (event.type) {
    case 'thumbs_up':
      // Phase 4.1's byCategory counts categories on positive feedback too ("accurate", "relevant").
      return classification('positive', 'explicit_positive', 1, {
        categories: event.payload.category === undefined ? [] : [event.payload.category],
        firstPass: true,
      });
    case 'thumbs_down':
      return classification('negative', 'explicit_negative', -1, {
        severity: 'medium',
        categories: event.payload.category === undefined ? [] : [event.payload.category],
        firstPass: false,
      });
    case 'rating':
    case 'rate_usefulness':
      return stars(event.payload.rating);
    case 'skip':
    case 'comment':
    case 'add_note':
    // A named score has no polarity of its own: its meaning is its config's (a score mapped to
    // thumbs or a rating is stored as that type). It reaches the composite score only through its
    // config's weight (docs/scores.md).
    case 'score':
    // A preference compares two answers; it says neither is good or bad on its own, so it is
    // neutral for each. It counts as a pair in the preference exports (docs/exports.md).
    case 'preference':
      return classification('neutral', 'explicit_neutral', 0);
    case 'error_categories':
      return classification('negative', 'explicit_negative', -1, {
        severity: severityOf(event.payload.categories, 'medium'),
        categories: event.payload.categories,
        firstPass: false,
      });
    case 'quality_scores': {
      const { accuracy, completeness, styleMatch } = event.payload;
      const given = [accuracy, completeness, styleMatch].filter((s): s is number => s !== undefined);
      const mean = given.reduce((sum, s) => sum + s, 0) / given.length;
      const value = (mean - QUALITY_MIDPOINT) / QUALITY_MIDPOINT;
      if (mean >= QUALITY_POSITIVE_FROM) return classification('positive', 'explicit_positive', value);
      if (mean < QUALITY_NEGATIVE_BELOW) return classification('negative', 'explicit_negative', value, { severity: 'low' });
      return classification('neutral', 'explicit_neutral', value);
    }
    case 'review': {
      const issues = event.payload.issues;
      if (event.payload.verdict === 'approved') {
        return classification('positive', 'explicit_positive', 1, { severity: severityOf(issues, 'none'), categories: issues, firstPass: true });
      }
      const rejected = event.payload.verdict === 'rejected';
      return classification('negative', 'explicit_negative', rejected ? -1 : CHANGES_REQUESTED_VALUE, {
        severity: severityOf(issues, rejected ? 'high' : 'medium'),
        categories: issues,
        firstPass: false,
      });
    }
    case 'correction': {
      const share = (changedPercent(event.type, event.editDistance) ?? UNMEASURED_CORRECTION_PERCENT) / PERCENT;
      const value = -(CORRECTION_BASE_PENALTY + CORRECTION_SCALED_PENALTY * share);
      return classification('negative', 'explicit_negative', value, { severity: 'medium', firstPass: false });
    }
    case 'escalation':
      return classification('negative', 'explicit_negative', -1, { severity: 'high', firstPass: false });
    case 'correct_label':
    case 'flag_irrelevant':
    case 'flag_missing':
      return labelFix(LABEL_FIX_VALUE);
    case 'correct_citation':
      return labelFix(CITATION_FIX_VALUE);
    case 'edit': {
      const signalClass = event.payload.phase === 'long_term' ? 'long_term_edit' : 'immediate_edit';
      const percent = changedPercent(event.type, event.editDistance) ?? UNMEASURED_EDIT_PERCENT;
      const value = -percent / PERCENT;
      if (percent < REFINEMENT_EDIT_PERCENT) return classification('neutral', signalClass, value);
      return classification('negative', signalClass, value, {
        severity: 'low',
        firstPass: percent >= settings.heavyEditPercent ? false : null,
      });
    }
    case 'retry':
    case 'implicit_reject':
      // A reformulated question (the RLHF seed's implicit reject) is a retry by another name.
      return classification('negative', 'retry', -1, { severity: 'low', firstPass: false });
    case 'abandon':
      return classification('negative', 'abandonment', -1, { severity: 'low' });
    case 'continue':
      return classification('positive', 'continued_use', 1);
    case 'implicit_accept':
      // The RLHF seed's "user uses the generated SQL": the response worked as it was.
      return classification('positive', 'continued_use', 1, { firstPass: true });
    case 'outcome': {
      const value = Math.min(1, Math.max(-1, event.payload.value));
      const polarity: Polarity = value > 0 ? 'positive' : value < 0 ? 'negative' : 'neutral';
      return classification(polarity, 'outcome', value, { severity: polarity === 'negative' ? 'low' : 'none' });
    }
    default:
      return unreachable(event);
  }
}

/** Compile-time proof that the switch covers every event type. */
function unreachable(event: never): never {
  throw new Error(`classify: no rule for event ${JSON.stringify(event)}`);
}
