/**
 * Child process entry: creates a PGlite data folder (initdb) and exits. Run by
 * `ensurePgliteDataDir`, never imported. Argument: the data folder.
 */
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: pglite-initdb-main <dataDir>\n');
  process.exit(2);
}
const db = await PGlite.create({ dataDir });
await db.close();
