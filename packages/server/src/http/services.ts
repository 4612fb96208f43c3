/**
 * The shared services every route plugin receives as its options: created once by the server,
 * never module singletons.
 */
import type { Config } from '../config.js';
import type { SqlClient } from '../db/sql-client.js';
import type { IngestService } from '../ingest/ingest-service.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { MemoryWindowReader } from '../store/user-memory-window.js';
import type { KeyCache } from './key-cache.js';
import type { Metrics } from '../metrics.js';

/** What routes may use. */
export interface AppServices {
  config: Config;
  db: SqlClient;
  ingest: IngestService;
  keys: KeyCache;
  metrics: Metrics;
  /** Users' memory windows (GET /v1/users/:userId/context), with their decoded snapshots cached. */
  memory: MemoryWindowReader;
  pipeline: Pipeline;
}
