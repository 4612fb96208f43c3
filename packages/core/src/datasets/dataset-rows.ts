/**
 * A dataset version's training rows (issue 27): the same builders as `GET /v1/exports/:format`,
 * run over the dataset's frozen items. Each item is a response with the one event its expected
 * output came from (a correction, or an approving review), so every format reads the dataset as
 * an export reads a workspace, and a version's rows never change.
 *
 * One format differs: `trl-kto` counts votes (thumbs, stars), which a dataset does not hold; a
 * dataset's KTO rows come from its expected outputs instead ({@link datasetKtoRows}).
 */
import { buildRows, keepRows, KTO_DEDUP_KEY } from '../training/build-rows.js';
import type { ExportFormat, ExportOptions, ExportTally } from '../training/export-formats.js';
import type { KtoRow } from '../training/kto.js';
import { corrections, responseVerdict, sameText, type PromptGroup } from '../training/training-facts.js';

/**
 * The KTO rows of a group of dataset items: an item's expected output is desirable (`label:
 * true`); a corrected item's original answer is not (`label: false`) unless it equals the
 * correction, nor is an answer whose review did not approve it. An item without a deciding event
 * gives none.
 *
 * @example
 * datasetKtoRows(group) // [{ prompt: 'sales?', completion: "SELECT … 'US'", label: true }, { prompt: 'sales?', completion: 'SELECT *', label: false }]
 */
export function datasetKtoRows(group: PromptGroup): KtoRow[] {
  const rows: KtoRow[] = [];
  for (const facts of group.responses) {
    const prompt = facts.response.query;
    const fix = corrections(facts)[0];
    if (fix) {
      rows.push({ prompt, completion: fix.corrected, label: true });
      if (!sameText(fix.corrected, fix.original)) rows.push({ prompt, completion: fix.original, label: false });
    } else {
      const verdict = responseVerdict(facts.events);
      if (verdict === 'positive' || verdict === 'negative') rows.push({ prompt, completion: facts.response.answer, label: verdict === 'positive' });
    }
  }
  return rows;
}

/**
 * The rows of one prompt group of dataset items in `format`: {@link buildRows}' rows, but for
 * `trl-kto` ({@link datasetKtoRows}), deduplicated, counted and given provenance alike.
 *
 * @example
 * const tally = emptyTally();
 * datasetRows('trl-sft', group, DEFAULT_EXPORT_OPTIONS, tally) // [{ prompt, completion, provenance }]
 */
export function datasetRows(format: ExportFormat, group: PromptGroup, options: ExportOptions, tally: ExportTally): unknown[] {
  if (format !== 'trl-kto') return buildRows(format, group, options, tally);
  const { minWeight } = options;
  const weighed =
    minWeight === undefined
      ? group
      : { key: group.key, responses: group.responses.map((f) => ({ ...f, events: f.events.filter((e) => e.weight !== null && e.weight >= minWeight) })) };
  return keepRows(datasetKtoRows(weighed), KTO_DEDUP_KEY, weighed, options, tally);
}
