/**
 * The architecture, checked (issue 25; STYLE.md "Architecture checked in CI"): SQL only in
 * `store/` and `db/`, the environment read only in `config.ts`, imports only down DESIGN.md's
 * layers (ingest, pipeline and emit are peers), no import cycle in any package, and no `node:`
 * import in the packages that run in browsers (core, client, widget).
 *
 * Each rule has an explicit list of what still breaks it, marked "issue 25: to move": the lists
 * only shrink. A file that no longer breaks a rule must leave its list (the test says so), and a
 * new offender fails at once.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = new URL('../../', import.meta.url).pathname;
const serverSrc = join(packages, 'server/src');

/**
 * The layers of packages/server/src, lowest first, and what each may import besides itself,
 * `@feedloop/core` and outside packages (DESIGN.md: core ← db/store ← ingest/pipeline/emit ←
 * http/cli, ingest, pipeline and emit being peers that share types placed below them):
 *
 *   entry (cli.ts, index.ts)
 *     → http, cli/  (peers; cli/ may use server.ts, the composition root, which uses http)
 *     → mcp/  (the MCP tools over an API call, which both edges serve)
 *     → ingest, pipeline, emit  (peers)
 *     → store, queue, rate-limit
 *     → db → base (config.ts, errors.ts, log.ts, metrics.ts, nlp.ts, redis-connections.ts)
 *
 * A new folder or top-level file must be placed in this table before it can import anything.
 */
const LAYERS: Record<string, readonly string[]> = {
  base: [],
  db: ['base'],
  queue: ['base'],
  'rate-limit': ['base', 'db'],
  store: ['base', 'db'],
  emit: ['base', 'db', 'store', 'queue'],
  pipeline: ['base', 'db', 'store', 'queue'],
  ingest: ['base', 'db', 'store', 'queue', 'rate-limit'],
  // The MCP tools call the API through an ApiCall: they know no layer of the server.
  mcp: ['base'],
  http: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'mcp'],
  // A command starts processes, so it may use the composition root (server.ts); never http.
  cli: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'mcp', 'bootstrap', 'server'],
  bootstrap: ['base', 'db', 'store'],
  server: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'mcp', 'http', 'bootstrap'],
  entry: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'mcp', 'http', 'cli', 'bootstrap', 'server'],
};

/** Top-level files of packages/server/src and their layer; a folder is a layer of its own name. */
const TOP_LEVEL_FILES: Record<string, string> = {
  'config.ts': 'base',
  'errors.ts': 'base',
  'log.ts': 'base',
  'metrics.ts': 'base',
  'nlp.ts': 'base',
  'redis-connections.ts': 'base',
  'bootstrap.ts': 'bootstrap',
  'server.ts': 'server',
  'cli.ts': 'entry',
  'index.ts': 'entry',
};

/** Imports against the layers, `from -> to` (server-relative paths) (issue 25: none left). */
const LAYER_EXCEPTIONS: readonly string[] = [];

/** Files outside `store/` and `db/` that still run SQL, with how many calls (issue 25: none left). */
const SQL_EXCEPTIONS: Readonly<Record<string, number>> = {};

/**
 * Import cycles allowed, each as its files in order (package-relative). Both are type-only in
 * core: a type's module and a module that uses it import each other's types, which vanish at
 * build time.
 */
const CYCLE_EXCEPTIONS: readonly string[] = [
  'core/src/workspace-settings.ts -> core/src/signals/signal-weights.ts -> core/src/workspace-settings.ts',
  'core/src/stats/experiment-analysis.ts -> core/src/stats/experiment-facts.ts -> core/src/stats/experiment-analysis.ts',
];

/** A SQL call: `.query(`, `.query<…>(` or `.exec(` on a database handle (a regex's `.exec` is not one). */
const SQL_CALL = /\b(?:db|tx|ex|client|prepared|executor)\s*\.\s*(?:query|exec)\s*[<(]/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

/** The modules a file imports: static, re-exported, bare and dynamic imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] ?? '');
}

/** A relative import resolved to its source file. */
function resolveImport(from: string, spec: string): string {
  return join(from, '..', spec.replace(/\.js$/, '.ts'));
}

/** The layer of a file of packages/server/src, or undefined when the table does not place it. */
function layerOf(file: string): string | undefined {
  const [first, second] = relative(serverSrc, file).split(sep);
  const layer = second === undefined ? TOP_LEVEL_FILES[first ?? ''] : first;
  return layer !== undefined && layer in LAYERS ? layer : undefined;
}

/** Every import of a server file that goes against the table, as `from -> to` (server-relative). */
function layerViolations(files: readonly string[], importsOfFile: (file: string) => string[]): string[] {
  return files.flatMap((f) => {
    const from = layerOf(f);
    if (from === undefined) return [`${relative(serverSrc, f)}: not in the layer table`];
    return importsOfFile(f)
      .filter((i) => i.startsWith('.'))
      .map((i) => resolveImport(f, i))
      .filter((target) => {
        const to = layerOf(target);
        return to !== from && !(to !== undefined && LAYERS[from]?.includes(to));
      })
      .map((target) => `${relative(serverSrc, f)} -> ${relative(serverSrc, target)}`);
  });
}

/** Every import cycle among `files`, each once, as its files in order starting from the first met. */
function cyclesAmong(files: readonly string[], base: string): string[] {
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((i) => i.startsWith('.')).map((i) => resolveImport(f, i))]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, path: string[]): void => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(base, p)).join(' -> '));
      return;
    }
    state.set(f, 'visiting');
    for (const next of graph.get(f) ?? []) visit(next, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of files) visit(f, []);
  return cycles;
}

/** The offenders of a rule against its exception list: new ones, and listed ones that no longer offend (to take off the list). */
function againstList(found: readonly string[], listed: readonly string[]): { new: string[]; fixed: string[] } {
  return { new: found.filter((f) => !listed.includes(f)), fixed: listed.filter((l) => !found.includes(l)) };
}

const serverFiles = sources(serverSrc);

describe('architecture', () => {
  it('SQL runs only in store/ and db/ (issue 25: the listed files are to move)', () => {
    const found: Record<string, number> = {};
    for (const f of serverFiles) {
      const where = relative(serverSrc, f);
      if (where.startsWith(`store${sep}`) || where.startsWith(`db${sep}`)) continue;
      const calls = readFileSync(f, 'utf8').match(SQL_CALL)?.length ?? 0;
      if (calls > 0) found[where.split(sep).join('/')] = calls;
    }
    // A listed file may lose calls (the count only goes down) and must leave the list at zero.
    const grown = Object.entries(found).filter(([f, n]) => n > (SQL_EXCEPTIONS[f] ?? 0));
    const gone = Object.keys(SQL_EXCEPTIONS).filter((f) => found[f] === undefined);
    expect({ grown, gone }).toEqual({ grown: [], gone: [] });
  });

  it('the environment is read only in config.ts', () => {
    const offenders = serverFiles
      .filter((f) => relative(serverSrc, f) !== 'config.ts')
      .filter((f) => /\bprocess\.env\b/.test(readFileSync(f, 'utf8').replace(/^\s*(?:\/\/|\*).*$/gm, '')))
      .map((f) => relative(serverSrc, f));
    expect(offenders).toEqual([]);
  });

  it('the server imports only down its layers; ingest, pipeline and emit are peers', () => {
    const found = layerViolations(serverFiles, importsOf);
    expect(againstList(found, LAYER_EXCEPTIONS)).toEqual({ new: [], fixed: [] });
  });

  it('the layer check catches an upward or sideways import', () => {
    // Guards the guard: upward imports and an import between peers must be reported, a downward one must not.
    const fake: Record<string, string[]> = {
      [join(serverSrc, 'store/a.ts')]: ['../pipeline/b.js', '../db/c.js'],
      [join(serverSrc, 'ingest/d.ts')]: ['../http/e.js', './f.js', '../pipeline/pipeline-jobs.js'],
      [join(serverSrc, 'db/g.ts')]: ['../store/h.js', '../config.js'],
      [join(serverSrc, 'emit/i.ts')]: ['../server.js'],
      [join(serverSrc, 'http/j.ts')]: ['../cli/k.js', '../ingest/l.js'],
    };
    expect(layerViolations(Object.keys(fake), (f) => fake[f] ?? [])).toEqual([
      'store/a.ts -> pipeline/b.ts',
      'ingest/d.ts -> http/e.ts',
      'ingest/d.ts -> pipeline/pipeline-jobs.ts',
      'db/g.ts -> store/h.ts',
      'emit/i.ts -> server.ts',
      'http/j.ts -> cli/k.ts',
    ]);
  });

  it('the layer check catches a command reaching into http (the edges are peers)', () => {
    // Guards the guard: `feedloop mcp` once imported http/app.ts; a command goes through server.ts and mcp/.
    const fake: Record<string, string[]> = {
      [join(serverSrc, 'cli/m.ts')]: ['../http/app.js', '../server.js', '../mcp/mcp-server.js'],
      [join(serverSrc, 'mcp/n.ts')]: ['../http/services.js', '../errors.js'],
    };
    expect(layerViolations(Object.keys(fake), (f) => fake[f] ?? [])).toEqual(['cli/m.ts -> http/app.ts', 'mcp/n.ts -> http/services.ts']);
  });

  it('no import cycle in any package (the listed type-only ones in core excepted)', () => {
    const found = ['core', 'server', 'client', 'widget', 'dashboard'].flatMap((p) => cyclesAmong(sources(join(packages, p, 'src')), packages));
    expect(againstList(found, CYCLE_EXCEPTIONS)).toEqual({ new: [], fixed: [] });
  });

  it('the cycle check finds a cycle', () => {
    // Guards the guard: two files that import each other.
    const dir = mkdtempSync(join(tmpdir(), 'feedloop-cycle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
      writeFileSync(join(dir, 'b.ts'), "import type { a } from './a.js';\nexport const b = 1 as typeof a;\n");
      expect(cyclesAmong([join(dir, 'a.ts'), join(dir, 'b.ts')], dir)).toEqual(['a.ts -> b.ts -> a.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a shared constant is defined once: DAY_MS in core/src/time.ts', () => {
    // The dashboard imports it as `@feedloop/core/time`, that module alone (issue 25).
    const listed: string[] = [];
    const found = ['core', 'server', 'client', 'widget', 'dashboard']
      .flatMap((p) => sources(join(packages, p, 'src')))
      .filter((f) => /\bconst DAY_MS\s*=/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(packages, f))
      .filter((f) => f !== 'core/src/time.ts');
    expect(againstList(found, listed)).toEqual({ new: [], fixed: [] });
  });

  it('core, client and widget import nothing from node: (they run in browsers)', () => {
    const offenders = ['core', 'client', 'widget'].flatMap((p) =>
      sources(join(packages, p, 'src')).flatMap((f) =>
        importsOf(f)
          .filter((i) => i.startsWith('node:'))
          .map((i) => `${relative(packages, f)}: ${i}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('core is pure: only browser-safe packages from outside, nothing of the server, no console or process', () => {
    const coreSrc = join(packages, 'core/src');
    // zod and node-sql-parser's per-dialect grammars: pure JavaScript.
    const allowed = (i: string) => i === 'zod' || i.startsWith('node-sql-parser/build/');
    const files = sources(coreSrc);
    const outside = files.flatMap((f) =>
      importsOf(f)
        .filter((i) => (i.startsWith('.') ? relative(coreSrc, resolveImport(f, i)).startsWith('..') : !allowed(i)))
        .map((i) => `${relative(packages, f)}: ${i}`),
    );
    const globals = files.filter((f) => /\b(console|process)\./.test(readFileSync(f, 'utf8'))).map((f) => relative(packages, f));
    expect({ outside, globals }).toEqual({ outside: [], globals: [] });
  });
});
