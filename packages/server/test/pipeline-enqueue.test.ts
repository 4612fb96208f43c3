import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openPglite } from '../src/db/pglite-client.js';
import { deliverDueWebhooks } from '../src/emit/webhook-delivery.js';
import { Pipeline } from '../src/pipeline/pipeline.js';
import type { EventKey, PipelineJobs } from '../src/pipeline/pipeline-jobs.js';
import { MemoryQueue } from '../src/queue/memory-queue.js';

/** A memory queue that records what is added to it. */
class RecordingQueue extends MemoryQueue<PipelineJobs> {
  readonly bulks: Array<Array<{ name: string; data: unknown }>> = [];
  override async addBulk(jobs: Parameters<MemoryQueue<PipelineJobs>['addBulk']>[0]): Promise<void> {
    this.bulks.push(jobs.map((j) => ({ name: j.name, data: j.data })));
    return super.addBulk(jobs);
  }
}

const config = { ...loadConfig({}), pipelineBatch: 4 };
const keys = (from: number, n: number): EventKey[] => Array.from({ length: n }, (_, i) => ['ws', `e${from + i}`]);

describe('Pipeline.enqueue', () => {
  it('gathers flushes a moment apart into shared jobs of up to pipelineBatch events, and hands them over before close', async () => {
    const db = await openPglite(undefined);
    const queue = new RecordingQueue();
    const pipeline = new Pipeline({ db, config, queue, deliverWebhooks: (selection) => deliverDueWebhooks(db, selection) });
    try {
      pipeline.enqueue(keys(0, 1));
      pipeline.enqueue(keys(1, 2));
      expect(queue.bulks).toEqual([]); // waiting for more
      pipeline.enqueue(keys(3, 3)); // 6 >= 4: sent at once, as jobs of 4 and 2
      expect(queue.bulks.map((b) => b.map((j) => (j.data as PipelineJobs['process']).events.length))).toEqual([[4, 2]]);
      pipeline.enqueue(keys(6, 1));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(queue.bulks.at(-1)).toEqual([{ name: 'process', data: { events: keys(6, 1) } }]);
      pipeline.enqueue(keys(7, 1));
      await pipeline.close();
      expect(queue.bulks.at(-1)).toEqual([{ name: 'process', data: { events: keys(7, 1) } }]);
    } finally {
      await db.close();
    }
  });
});
