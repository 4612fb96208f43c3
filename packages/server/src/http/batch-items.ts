/**
 * Judging each item of a batch alone, before any write (issue 22): every limit a single request
 * has (depth, text length, storable text, faithful numbers: the validator's; its size: the body
 * limit of a single request) applies to each item, and a bad item is refused alone while the
 * others go on.
 */
import type { ErrorBody, Validated } from '@feedloop/core';

/**
 * Validates each item with `validate`, then refuses a valid item larger than `maxItemBytes` (as
 * JSON): a 10 MB event is refused on the single route, so it must be inside a batch too.
 *
 * @example
 * const checked = judgeItems(events, validateFeedbackEvent, config.bodyLimitBytes);
 */
export function judgeItems<T>(inputs: readonly unknown[], validate: (input: unknown) => Validated<T>, maxItemBytes: number): Validated<T>[] {
  return inputs.map((input) => {
    const checked = validate(input);
    if (!checked.ok) return checked;
    const bytes = Buffer.byteLength(JSON.stringify(input));
    if (bytes <= maxItemBytes) return checked;
    const error: ErrorBody = {
      code: 'FEEDLOOP_ERR_VALIDATION_ITEM_TOO_LARGE',
      message: `the item is ${bytes} bytes; one item may be at most ${maxItemBytes} bytes, as a single request`,
    };
    return { ok: false, error };
  });
}
