/**
 * @feedloop/server: the HTTP API, store and CLI of feedloop.
 */
export { bootstrap, type BootstrapReport } from './bootstrap.js';
export { loadConfig, type Config } from './config.js';
export { loadMigrations, migrate, type MigrationReport } from './db/migrate.js';
export { openDatabase } from './db/open-database.js';
export { openPglite } from './db/pglite-client.js';
export { openPostgres } from './db/postgres-client.js';
export type { SqlClient, SqlExecutor } from './db/sql-client.js';
export { FeedloopError } from './errors.js';
export { buildApp } from './http/app.js';
export { createServices, startServer, type RunningServer } from './server.js';
