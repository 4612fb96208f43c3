/**
 * Datasets (issue 27): the shapes `/v1/datasets` takes, and the limits it keeps. One definition
 * gives the server's validation and the dashboard's types. A dataset is a versioned, append-only
 * set of responses, each frozen with its expected output when it is added (docs/datasets.md).
 */
import { z } from 'zod';
import { idSchema } from '../event-schema.js';

/** Response ids one `POST /v1/datasets/:id/items` may name (each answered alone, `207`). */
export const MAX_DATASET_ITEM_IDS = 1_000;
/**
 * Responses one `{ filter }` request adds at most: a larger match is added this many at a time
 * (the answer says `truncated`; repeating the request adds the next ones, as those already in are
 * skipped).
 */
export const MAX_DATASET_FILTER_ITEMS = 10_000;
/** A dataset's name at most, in characters. */
export const MAX_DATASET_NAME_LENGTH = 200;
/** A dataset's description at most, in characters. */
export const MAX_DATASET_DESCRIPTION_LENGTH = 5_000;

/** `POST /v1/datasets`: a name unique in its workspace and a description. */
export const datasetInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(MAX_DATASET_NAME_LENGTH),
  description: z.string().max(MAX_DATASET_DESCRIPTION_LENGTH).default(''),
});
/** A new dataset, defaults applied. */
export type DatasetInput = z.output<typeof datasetInputSchema>;

/**
 * `POST /v1/datasets/:id/items`: response ids (each judged alone) or a filter of the response
 * list's vocabulary (`GET /v1/responses` query fields), checked by the server, which owns that list.
 */
export const datasetItemsInputSchema = z.union([
  z.strictObject({
    responseIds: z.array(z.unknown()).min(1).max(MAX_DATASET_ITEM_IDS).describe('Response ids; each is judged alone (a bad one is refused in its own result)'),
  }),
  z.strictObject({ filter: z.record(z.string(), z.unknown()).describe("The response list's filters (GET /v1/responses query fields)") }),
]);

/**
 * One response id of a `responseIds` list, checked alone.
 *
 * @example
 * datasetResponseIdSchema.safeParse('r-1').success // true
 */
export const datasetResponseIdSchema = idSchema;
/** What `POST /v1/datasets/:id/items` adds. */
export type DatasetItemsInput = z.output<typeof datasetItemsInputSchema>;

/** How a dataset version came to be: by ids, by a filter, by a review queue, or by a removal. */
export const DATASET_CHANGE_VIAS = ['responseIds', 'filter', 'queue', 'remove'] as const;
/** One of {@link DATASET_CHANGE_VIAS}. */
export type DatasetChangeVia = (typeof DATASET_CHANGE_VIAS)[number];
