/**
 * Phase 4.1's `QualityAlert`: a firing alert as the seed's dashboard reads it. The seed knows
 * three types; the correction and escalation rates, being shares of responses that went wrong,
 * are its `high_negative_rate` (the `metric` says which rate).
 *
 * @module
 */
import type { AlertRuleKind, AlertSeverity } from '../alerts/alert-rules.js';

/** The Phase 4.1 alert types. */
export type QualityAlertType = 'satisfaction_drop' | 'high_negative_rate' | 'category_spike';

/** Phase 4.1 `QualityAlert`, field for field. */
export interface QualityAlert {
  id: string;
  type: QualityAlertType;
  severity: AlertSeverity;
  message: string;
  metric: string;
  threshold: number;
  currentValue: number;
  /** ISO 8601: when the alert fired. */
  triggeredAt: string;
}

const TYPE_OF_KIND: Record<AlertRuleKind, QualityAlertType> = {
  satisfaction: 'satisfaction_drop',
  category_spike: 'category_spike',
  correction_rate: 'high_negative_rate',
  escalation_rate: 'high_negative_rate',
  // Phase 4.1 has no type for a named score; a mean falling is a satisfaction drop of that dimension.
  score_mean: 'satisfaction_drop',
  // Nor for a judge drifting from the humans: its agreement falling is the closest.
  judge_agreement: 'satisfaction_drop',
};

/**
 * A firing alert as a Phase 4.1 `QualityAlert`.
 *
 * @example
 * toQualityAlert({ id: 'al_1', kind: 'satisfaction', severity: 'critical', message: '…', metric: 'satisfaction_rate',
 *                  threshold: 50, value: 41.5, firedAt: new Date('2026-11-23T08:00:00Z') }).type // 'satisfaction_drop'
 */
export function toQualityAlert(alert: {
  id: string;
  kind: AlertRuleKind;
  severity: AlertSeverity;
  message: string;
  metric: string;
  threshold: number;
  value: number;
  firedAt: Date;
}): QualityAlert {
  return {
    id: alert.id,
    type: TYPE_OF_KIND[alert.kind],
    severity: alert.severity,
    message: alert.message,
    metric: alert.metric,
    threshold: alert.threshold,
    currentValue: alert.value,
    triggeredAt: alert.firedAt.toISOString(),
  };
}
