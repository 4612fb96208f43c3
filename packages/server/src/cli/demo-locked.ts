/**
 * What `feedloop demo` says when a running feedloop holds the embedded data folder. The demo
 * cannot seed a new workspace there (creating one needs the database, and a second process on a
 * PGlite folder corrupts it), so it refuses and names the two commands that work: stop the server
 * and run the demo, or seed a workspace of the running server through its API.
 */
import type { Config } from '../config.js';
import { FeedloopError } from '../errors.js';

/** How long the running server's address is given to answer. */
const PROBE_MS = 1_000;

/** Whether a feedloop answers at `url` (its `/healthz`). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(PROBE_MS) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The refusal for `err` when it is the data folder's lock, else `err` unchanged. The message
 * keeps the lock's own text (which process holds the folder) and adds the commands to use, with
 * the running server's address when it answers at the configured one.
 *
 * @example
 * try { await runDemo(config, options); } catch (err) { throw await explainLockedDemo(err, config); }
 */
export async function explainLockedDemo(err: unknown, config: Pick<Config, 'dataDir' | 'publicUrl'>): Promise<unknown> {
  if (!(err instanceof FeedloopError) || err.code !== 'FEEDLOOP_ERR_DATA_DIR_LOCKED') return err;
  const url = (await answers(config.publicUrl)) ? config.publicUrl : '<its address>';
  return new FeedloopError(
    'FEEDLOOP_ERR_DATA_DIR_LOCKED',
    `${err.message.replace(/; stop it first, or use its HTTP API$/, '')}.\n` +
      `The demo starts its own server on that folder. Either stop the running one (Ctrl-C in its terminal) and run:\n` +
      `  npx --no-install feedloop demo\n` +
      `or seed the demo's data into a workspace of the running server through its API (into the workspace of the key):\n` +
      `  npx --no-install feedloop demo --url ${url} --key <a secret key of that workspace>`,
    { cause: err },
  );
}
