/**
 * `@feedloop/client`: send responses and feedback to feedloop from a browser or Node.
 */
export { FeedloopClient, type ClientOptions, type EventFields, type FlushResult, type ItemOutcome } from './client.js';
export { backoffDelay, retryAfterMs, DEFAULT_RETRY, type RetryPolicy } from './backoff.js';
export { PersistentQueue, type QueueStorage, type QueuedItem } from './queue-store.js';
