/**
 * Picks the job queue of the running profile: BullMQ when Redis is configured (several processes
 * share the work), the in-process queue otherwise (the embedded profile).
 */
import type { RedisConnections } from '../redis-connections.js';
import { BullmqQueue } from './bullmq-queue.js';
import type { JobQueue } from './job-queue.js';
import { MemoryQueue, type MemoryQueueOptions } from './memory-queue.js';

/** The part of the server config the choice depends on (`Config` fits). */
export interface JobQueueConfig {
  /** Redis URL; absent means the in-process queue. */
  redisUrl?: string | undefined;
  /** Prefix of the queue's Redis keys, so that deployments can share a Redis. */
  redisPrefix?: string | undefined;
}

/**
 * A BullMQ queue named `name` when `config.redisUrl` is set, else a memory queue. A server passes
 * its process's connections (`redis`), which the queue borrows; without them it makes its own.
 * `urgentJobs` applies to the memory queue only.
 *
 * @example
 * const effects = createJobQueue<EffectJobs>(config, 'effects', { concurrency: 8 });
 * effects.kind // 'bullmq' when REDIS_URL is set
 */
export function createJobQueue<M extends Record<string, unknown>>(
  config: JobQueueConfig,
  name: string,
  options: MemoryQueueOptions = {},
  redis?: RedisConnections,
): JobQueue<M> {
  if (config.redisUrl === undefined || config.redisUrl === '') return new MemoryQueue<M>(options);
  const { urgentJobs: _memoryOnly, ...shared } = options;
  return new BullmqQueue<M>(name, redis ?? config.redisUrl, {
    ...shared,
    ...(config.redisPrefix === undefined ? {} : { prefix: config.redisPrefix }),
  });
}
