/**
 * Child process entry: creates a PGlite data folder (initdb), applies the migrations and exits.
 * Run by `ensurePgliteDataDir`, never imported. Argument: the data folder. Both grow PGlite's
 * WebAssembly memory, which never shrinks: done here, that peak is returned when the child exits
 * instead of staying in the server (12 migrations on a new folder left the server's first idle
 * RSS at 263-272 MB).
 */
import { migrate } from './migrate.js';
import { openPglite } from './pglite-client.js';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: pglite-initdb-main <dataDir>\n');
  process.exit(2);
}
const db = await openPglite(dataDir);
const { applied } = await migrate(db);
await db.close();
// The parent reports these as applied (`feedloop migrate`, the start-up log).
process.stdout.write(`${JSON.stringify(applied)}\n`);
