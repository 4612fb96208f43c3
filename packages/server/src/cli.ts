#!/usr/bin/env node
/**
 * The `feedloop` command: start the server, run workers, migrate, and manage workspaces and keys.
 * Admin commands open the database themselves; on the embedded database they refuse while a
 * server holds the data folder (two processes on one PGlite folder would corrupt it).
 */
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { loadConfig, type Config } from './config.js';
import { migrateOpened } from './db/migrate.js';
import { openDatabase } from './db/open-database.js';
import type { SqlClient } from './db/sql-client.js';
import { FeedloopError } from './errors.js';
import { createLogger } from './log.js';
import { KEY_KINDS, createApiKey, listApiKeys, reviewerNameProblem, revokeApiKey, type KeyKind } from './store/api-keys.js';
import { createWorkspace, findWorkspaceByLabel, listWorkspaces } from './store/workspaces.js';
import type { ApiTarget } from './cli/api-client.js';
import { describeImport, importFile, isImportSource } from './cli/import-command.js';
import { openExport, parseDestination, writeExport } from './cli/export-command.js';
import { formatBytes } from './cli/progress.js';
import { seedRunningServer } from './cli/demo-remote.js';
import { findRunningServer, reachableUrl, runningServerCredential } from './cli/find-server.js';
import { createKeyThroughServer } from './cli/admin-client.js';
import { submitEvent, submitFeedback } from './cli/submit-command.js';

const USAGE = `Usage: feedloop <command>

  start [--api-only]                       run the API server and the pipeline's worker (PORT, HOST, DATABASE_URL,
                                           REDIS_URL, NATS_URL, FEEDLOOP_DATA_DIR); --api-only leaves the jobs to workers
  worker                                   run a pipeline worker alone (production: DATABASE_URL and REDIS_URL)
  migrate                                  apply database migrations
  mcp                                      the MCP server on stdio (FEEDLOOP_API_KEY; the database of start, or
                                           FEEDLOOP_URL to use a running server over HTTP): see docs/mcp.md
  workspace create <name> [--tenant T]     create a workspace (idempotent by name)
  workspace list
  key create --workspace W [--kind secret|public|reviewer] [--name N]  (a reviewer key needs --name)
  key list --workspace W
  key revoke <keyId> --workspace W
  import oasst|hh-rlhf|jsonl <path> [--url U] [--key K]
                                           replay a dataset as responses and feedback through the API of a running
                                           server (U default $FEEDLOOP_URL, else http://$HOST:$PORT; K default $FEEDLOOP_API_KEY)
  export <format> --out F|s3://bucket/key [--filter k=v]... [--url U] [--key K] [--s3-endpoint E]
                                           stream GET /v1/exports/<format>?k=v… into a file or an S3 object
  export --batch <id> --out F|s3://bucket/key
                                           the same with a training batch's file
  demo [--seed-only] [--scale S]           a "demo" workspace seeded with 90 days of data, with the dashboard's address
                                           and a new secret key of it. While feedloop runs (the server holding the data
                                           folder, else one at HOST:PORT) it seeds that server through its API, with no
                                           key on the server's machine; else it starts feedloop itself (--seed-only: seeds
                                           and exits). --scale 0.2 seeds a fifth of the traffic
  demo --url U [--key K] [--scale S]       seed the server at U (or FEEDLOOP_URL); with K (or FEEDLOOP_API_KEY) into
                                           the workspace of K
  submit <responseId> --thumbs up|down | --rating 1-5 | --correction FILE [--format sql|code|json|text]
         [--comment C] [--user U] [--url U] [--key K]
                                           send one feedback event from a terminal tool

  --json   print results as JSON`;

type Out = (text: string, data: unknown) => void;

/** Opens the database for one command; admin commands migrate first, `migrate` reports its own run. */
async function withDatabase<T>(config: Config, fn: (db: SqlClient) => Promise<T>, migrateFirst = true): Promise<T> {
  const db = await openDatabase(config);
  try {
    if (migrateFirst) await migrateOpened(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function workspaceOf(db: SqlClient, nameOrId: string | undefined): Promise<string> {
  if (!nameOrId) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', '--workspace is required', { field: 'workspace' });
  const ws = await findWorkspaceByLabel(db, nameOrId);
  if (!ws) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', `no workspace ${nameOrId} (give its id, its name or tenant/name, as workspace list prints them)`, { field: 'workspace' });
  return ws.id;
}

/** A workspace as `--workspace` takes it: its name, with its tenant when not the default one. */
function workspaceLabel(ws: { tenantId: string; name: string }): string {
  return ws.tenantId === 'default' ? ws.name : `${ws.tenantId}/${ws.name}`;
}

/**
 * Stops on SIGTERM or SIGINT: finish in-flight work, then exit 0 (1 when closing failed). Past
 * `timeoutMs` (FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS) the process exits 1 whatever is still open, so
 * a shutdown never hangs (issue 22).
 */
function stopOnSignals(log: Pick<Logger, 'info' | 'error'>, close: () => Promise<void>, timeoutMs: number): void {
  const stop = (signal: string): void => {
    log.info({ signal, timeoutMs }, 'shutting down: finishing in-flight work');
    setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown did not finish within FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS: exiting anyway');
      process.exit(1);
    }, timeoutMs).unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** The server the API commands talk to: `--url` (else `FEEDLOOP_URL`, else this machine's server) and `--key` (else `FEEDLOOP_API_KEY`). */
function apiTarget(url: string | undefined, key: string | undefined, config: Config): ApiTarget {
  const k = key ?? config.client.apiKey;
  if (!k) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', '--key (or FEEDLOOP_API_KEY) is required: a secret key of the workspace', { field: 'key' });
  return { url: url ?? config.client.url ?? reachableUrl(config.host, config.port), key: k };
}

/** `--scale`: the share of the demo's traffic to seed, (0, 1]; 1 when not given. */
function demoScale(value: string | undefined): number {
  if (value === undefined) return 1;
  const scale = Number(value);
  if (!(scale > 0 && scale <= 1)) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', '--scale must be a number above 0 and at most 1', { field: 'scale' });
  return scale;
}

/** `--filter k=v` flags as the export's query string (`?k=v&…`), passed to the server as given. */
function filterQuery(filters: readonly string[]): string {
  const query = new URLSearchParams();
  for (const f of filters) {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `--filter ${f}: expected key=value`, { field: 'filter' });
    query.append(f.slice(0, eq), f.slice(eq + 1));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

async function worker(config: Config): Promise<void> {
  const log = createLogger(config);
  const { startWorker } = await import('./server.js');
  const running = await startWorker(config);
  log.info({ concurrency: config.workerConcurrency, processConcurrency: config.processConcurrency, stream: config.natsUrl ? 'nats' : 'none' }, 'feedloop worker running');
  stopOnSignals(log, () => running.close(), config.shutdownTimeoutMs);
}

/**
 * The server's modules (Fastify, the routes, the pipeline: ~0.3 s to load) are loaded while the
 * database opens: PGlite compiles and starts in its own thread, so the two overlap on a machine's
 * two cores, and `npm start` answers `/readyz` that much sooner (docs/benchmarks.md, "Fourteenth
 * session").
 */
async function start(config: Config, apiOnly: boolean): Promise<void> {
  const opening = openDatabase(config);
  // Handled below, by the await; until then a failure (the folder locked) must not count as unhandled.
  opening.catch(() => undefined);
  const { startServer } = await import('./server.js');
  const db = await opening;
  const server = await startServer(config, { worker: !apiOnly, db }).catch(async (err: unknown) => {
    await db.close();
    throw err;
  });
  const log = server.app.log;
  const applied = server.migrations.applied.map((m) => `${m.version}_${m.name}`);
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  const keys = server.bootstrap.printOnce;
  if (keys) {
    process.stdout.write(
      `\nCreated workspace "${keys.workspace}". These keys are shown only once:\n` +
        `  secret key (server side, reads and writes): ${keys.secretKey}\n` +
        `  public key (browsers, submits feedback):    ${keys.publicKey}\n\n`,
    );
  }
  log.info({ url: server.url, database: config.databaseUrl ? 'postgres' : `pglite:${config.dataDir}` }, 'feedloop listening');
  // Every start says where the dashboard is and, when the keys are not printed (every start but
  // the first), how to get one, with the workspaces' names: never the key itself again. The
  // command works while this server runs (through its local admin credential when embedded).
  const dashboard = config.publicUrlGiven ? config.publicUrl : server.url;
  const names = keys ? [] : (await listWorkspaces(server.services.db)).map(workspaceLabel);
  process.stdout.write(
    `\nDashboard: ${dashboard}/\n` +
      (keys
        ? ''
        : `Sign in with a secret key of your workspace. Lost it? Make a new one (shown once), in another terminal:\n` +
          `  npx --no-install feedloop key create --workspace ${names[0] ?? '<name>'}` +
          (names.length > 1 ? `   (workspaces: ${names.join(', ')})` : '') +
          '\n'),
  );
  stopOnSignals(log, () => server.close(), config.shutdownTimeoutMs);
}

async function run(argv: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      tenant: { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      'api-only': { type: 'boolean' },
      url: { type: 'string' },
      key: { type: 'string' },
      out: { type: 'string' },
      batch: { type: 'string' },
      filter: { type: 'string', multiple: true },
      's3-endpoint': { type: 'string' },
      'seed-only': { type: 'boolean' },
      scale: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      thumbs: { type: 'string' },
      rating: { type: 'string' },
      correction: { type: 'string' },
      format: { type: 'string' },
      comment: { type: 'string' },
      user: { type: 'string' },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || command === undefined) return out(USAGE, { usage: USAGE });
  const config = loadConfig();
  switch (`${command}${sub ? ` ${sub}` : ''}`) {
    case 'start':
      return start(config, values['api-only'] === true);
    case 'worker':
      return worker(config);
    case 'mcp':
      // Stdout is the protocol's: the in-process server logs nothing.
      return (await import('./cli/mcp-command.js')).runMcp(Object.freeze({ ...config, logLevel: 'silent' as const }));
    case 'migrate':
      return withDatabase(config, async (db) => {
        const report = await migrateOpened(db);
        out(report.applied.length ? `applied ${report.applied.map((m) => `${m.version}_${m.name}`).join(', ')}` : `up to date (version ${report.current})`, report);
      }, false);
    case 'workspace create':
      if (!arg) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'workspace create needs a name', { field: 'name' });
      return withDatabase(config, async (db) => {
        const { workspace, created } = await createWorkspace(db, { name: arg, ...(values.tenant ? { tenantId: values.tenant } : {}) });
        out(`${created ? 'created' : 'exists'}: ${workspace.id} ${workspace.name} (tenant ${workspace.tenantId})`, { ...workspace, created });
      });
    case 'workspace list':
      return withDatabase(config, async (db) => {
        const all = await listWorkspaces(db);
        out(all.map((w) => `${w.id}  ${w.tenantId}/${w.name}`).join('\n') || '(no workspaces)', all);
      });
    case 'key create': {
      const kind = (values.kind ?? 'secret') as KeyKind;
      if (!(KEY_KINDS as readonly string[]).includes(kind)) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', '--kind must be secret, public or reviewer', { field: 'kind' });
      }
      // Checked before the server or the database is reached: a reviewer key is a reviewer's name.
      const nameProblem = kind === 'reviewer' ? reviewerNameProblem(values.name) : undefined;
      if (nameProblem) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `--name: ${nameProblem}`, { field: 'name' });
      // The embedded folder's server makes it when one runs: this process may not open the folder then.
      const admin = config.databaseUrl ? undefined : runningServerCredential(config.dataDir);
      if (admin) {
        if (!values.workspace) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', '--workspace is required', { field: 'workspace' });
        const made = await createKeyThroughServer(admin, { workspace: values.workspace, kind, ...(values.name ? { name: values.name } : {}) });
        return out(`${kind} key ${made.id} (shown once): ${made.key}`, made);
      }
      return withDatabase(config, async (db) => {
        const created = await createApiKey(db, await workspaceOf(db, values.workspace), kind, values.name ? { name: values.name } : {});
        out(`${kind} key ${created.info.id} (shown once): ${created.key}`, { ...created.info, key: created.key });
      });
    }
    case 'key list':
      return withDatabase(config, async (db) => {
        const keys = await listApiKeys(db, await workspaceOf(db, values.workspace));
        out(keys.map((k) => `${k.id}  ${k.kind.padEnd(6)}  ${k.prefix}…  ${k.revokedAt ? 'revoked' : 'active'}  ${k.name ?? ''}`).join('\n') || '(no keys)', keys);
      });
    case 'key revoke':
      if (!arg) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'key revoke needs a key id', { field: 'keyId' });
      return withDatabase(config, async (db) => {
        const info = await revokeApiKey(db, await workspaceOf(db, values.workspace), arg);
        out(`revoked ${info.id}`, info);
      });
    case `import ${sub}`: {
      if (!isImportSource(sub) || !arg) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'import needs a format (oasst, hh-rlhf or jsonl) and a path', { field: 'format' });
      }
      const report = await importFile(sub, arg, apiTarget(values.url, values.key, config));
      return out(describeImport(report) + report.errors.map((e) => `\n  ${e.id}: ${e.code}: ${e.message}`).join(''), report);
    }
    case 'export':
    case `export ${sub}`: {
      if (!values.out) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'export needs --out (a file or s3://bucket/key)', { field: 'out' });
      if ((sub === undefined) === (values.batch === undefined)) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'export needs a format or --batch <id>, not both', { field: 'format' });
      }
      const destination = parseDestination(values.out);
      const path = values.batch
        ? `/v1/training-batches/${encodeURIComponent(values.batch)}/file`
        : `/v1/exports/${encodeURIComponent(sub ?? '')}${filterQuery(values.filter ?? [])}`;
      const source = await openExport(apiTarget(values.url, values.key, config), path);
      const written = await writeExport(source, destination, { ...config.s3, ...(values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] } : {}) }, process.stderr);
      return out(`wrote ${written.rows} rows (${formatBytes(written.bytes)}) to ${values.out}`, { ...written, out: values.out });
    }
    case 'demo': {
      const scale = demoScale(values.scale);
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      const key = values.key ?? config.client.apiKey;
      // A running server (given, holding the data folder, or at HOST:PORT) is seeded through its
      // API; with none, the demo starts its own. A key with no server found is meant for one:
      // the configured address is tried, and the error names it.
      const running =
        (await findRunningServer(config, { url: values.url })) ??
        (key !== undefined ? { url: reachableUrl(config.host, config.port), via: 'HOST and PORT' } : undefined);
      if (running) {
        const report = await seedRunningServer(running, { config, key, scale, log });
        return out(
          (report.seeded
            ? `Seeded workspace "${report.workspace}" with the demo's data (${report.responses} responses, ${report.events} events${report.failed ? `, ${report.failed} failed: GET /v1/pipeline lists them` : ''}) in ${report.seconds} s; the server has processed it.\n`
            : `The demo workspace exists already on ${report.url}; its data is left as it is.\n`) +
            `Its trends fill at the server's next rollup (every FEEDLOOP_ROLLUP_INTERVAL_SECONDS, 60 by default).\n` +
            `Dashboard: ${report.url}/\n` +
            (report.secretKey ? `Secret key of workspace "${report.workspace}" (new, shown once): ${report.secretKey}` : `Sign in with the key you gave (a secret key of "${report.workspace}").`),
          report,
        );
      }
      const { runDemo } = await import('./cli/demo-command.js');
      const { report, server } = await runDemo(config, { seedOnly: values['seed-only'] === true, scale, log });
      out(
        `${report.seeded ? `Seeded the demo workspace (${report.responses} responses, ${report.events} events) in ${report.seconds} s.` : 'The demo workspace exists already; its data is left as it is.'}\n` +
          `Dashboard: ${report.url}/\nSecret key (new, shown once): ${report.secretKey}` +
          (values['seed-only'] ? '\nStart it with: npm start' : '\nPress Ctrl-C to stop.'),
        report,
      );
      if (!values['seed-only']) stopOnSignals(server.app.log, () => server.close(), config.shutdownTimeoutMs);
      return;
    }
    case 'submit':
    case `submit ${sub}`: {
      if (!sub) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'submit needs a response id', { field: 'responseId' });
      const event = await submitEvent({
        responseId: sub,
        ...(values.thumbs !== undefined ? { thumbs: values.thumbs } : {}),
        ...(values.rating !== undefined ? { rating: values.rating } : {}),
        ...(values.correction !== undefined ? { correctionFile: values.correction } : {}),
        ...(values.format !== undefined ? { format: values.format } : {}),
        ...(values.comment !== undefined ? { comment: values.comment } : {}),
        ...(values.user !== undefined ? { userId: values.user } : {}),
      });
      const outcome = await submitFeedback(apiTarget(values.url, values.key, config), event);
      return out(`${event.type as string} ${outcome.id}: ${outcome.status}`, outcome);
    }
    default:
      throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `unknown command "${positionals.join(' ')}"\n\n${USAGE}`, { field: 'command' });
  }
}

const json = process.argv.includes('--json');
run(process.argv.slice(2), (text, data) => process.stdout.write(`${json ? JSON.stringify(data, null, 2) : text}\n`)).catch((err: unknown) => {
  const e = err instanceof FeedloopError ? err : undefined;
  process.stderr.write(json && e ? `${JSON.stringify({ error: e.toBody() })}\n` : `feedloop: ${e ? `${e.code}: ${e.message}` : String(err)}\n`);
  process.exit(1);
});
