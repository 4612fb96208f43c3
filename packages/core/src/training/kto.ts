/**
 * KTO's unpaired preference rows: one answer and whether it was desirable, straight from each
 * thumbs vote and star rating.
 */
import type { ExcludedCounts } from './export-formats.js';
import { eventVerdict, type PromptGroup } from './training-facts.js';

/** A `trl-kto` row: TRL's standard unpaired preference (`prompt`, `completion`, boolean `label`). */
export interface KtoRow {
  prompt: string;
  completion: string;
  label: boolean;
}

/**
 * The KTO rows of a prompt group: thumbs_up → `label: true`, thumbs_down → `false`, a rating of
 * 4-5 stars → true, 1-2 → false; a 3-star rating is a tie, counted in `excluded`.
 *
 * @example
 * ktoRows(group, tally.excluded) // [{ prompt: 'sales?', completion: 'SELECT * FROM sales', label: false }]
 */
export function ktoRows(group: PromptGroup, excluded: ExcludedCounts): KtoRow[] {
  const rows: KtoRow[] = [];
  for (const { response, events } of group.responses) {
    for (const event of events) {
      if (event.type !== 'thumbs_up' && event.type !== 'thumbs_down' && event.type !== 'rating') continue;
      const verdict = eventVerdict(event);
      if (verdict === 'tie') excluded.tie++;
      else rows.push({ prompt: response.query, completion: response.answer, label: verdict === 'positive' });
    }
  }
  return rows;
}
