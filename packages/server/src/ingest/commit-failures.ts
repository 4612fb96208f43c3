/**
 * How ingest answers a failed commit: a database that cannot take writes is a 503 the client
 * retries; a batch that fails for one item's value is split until that item is refused alone.
 */
import type { ErrorBody } from '@feedloop/core';
import { classifyWriteFailure } from '../db/write-failure.js';
import { FeedloopError } from '../errors.js';
import type { GroupCommitOptions } from './group-commit.js';

/**
 * A write that failed because the database cannot take writes is answered 503, so the client
 * retries. Any other failure that reaches a caller (one its own item caused alone and that is
 * no refused value, i.e. a bug) goes on as it is: a 500, logged.
 */
export async function unavailableOnFailure<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof FeedloopError || classifyWriteFailure(err) !== 'unavailable') throw err;
    throw new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the database did not take the write; retry', { cause: err });
  }
}

/**
 * How the committers treat a failed flush: unless the database is unavailable, the batch is
 * split to find the items at fault; an item the database refuses alone is rejected with
 * `FEEDLOOP_ERR_VALIDATION_UNSTORABLE` (its sender's fault), and everyone else is written.
 */
export function isolateFailures<I, O>(rejected: (item: I, error: ErrorBody) => O): Pick<GroupCommitOptions<I, O>, 'splitOnFailure' | 'failedAlone'> {
  return {
    splitOnFailure: (err) => classifyWriteFailure(err) !== 'unavailable',
    failedAlone: (item, err) => {
      if (classifyWriteFailure(err) !== 'data') throw err;
      const sqlstate = (err as { code?: unknown }).code;
      return rejected(item, {
        code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE',
        message: `the database refused a value of this item (SQLSTATE ${String(sqlstate)}); nothing of it was stored`,
      });
    },
  };
}
