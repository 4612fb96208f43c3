import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const serverSrc = join(root, 'server/src');

/**
 * The layers of packages/server/src, lowest first, and what each may import besides itself,
 * `@feedloop/core` and outside packages. Arrows point down only:
 *
 *   entry (index.ts, cli.ts, server.ts, bootstrap.ts)
 *     → http → ingest → pipeline → emit → store → db → base (config.ts, errors.ts, log.ts, metrics.ts)
 *     (queue and rate-limit sit beside store: they need only base)
 *
 * A type or function two layers share lives in the lower one. A new folder or top-level file
 * must be placed in this table before it can import anything.
 */
const LAYERS: Record<string, readonly string[]> = {
  base: [],
  db: ['base'],
  queue: ['base'],
  'rate-limit': ['base', 'db'],
  store: ['base', 'db'],
  emit: ['base', 'db', 'store'],
  pipeline: ['base', 'db', 'store', 'queue', 'emit'],
  ingest: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline'],
  http: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest'],
  bootstrap: ['base', 'db', 'store'],
  server: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'http', 'bootstrap'],
  cli: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'http', 'bootstrap', 'server'],
  index: ['base', 'db', 'store', 'queue', 'rate-limit', 'emit', 'pipeline', 'ingest', 'http', 'bootstrap', 'server'],
};

/** Top-level files of packages/server/src and their layer; a folder is a layer of its own name. */
const TOP_LEVEL_FILES: Record<string, string> = {
  'config.ts': 'base',
  'errors.ts': 'base',
  'log.ts': 'base',
  'metrics.ts': 'base',
  'nlp.ts': 'base',
  'bootstrap.ts': 'bootstrap',
  'server.ts': 'server',
  'cli.ts': 'cli',
  'index.ts': 'index',
};

/** The layer of a file of packages/server/src, or undefined when the table does not place it. */
function layerOf(file: string): string | undefined {
  const [first, second] = relative(serverSrc, file).split(sep);
  const layer = second === undefined ? TOP_LEVEL_FILES[first ?? ''] : first;
  return layer !== undefined && layer in LAYERS ? layer : undefined;
}

/** Every import of a server file that goes against the table, as `from -> to`. */
function layerViolations(files: readonly string[], importsOf: (file: string) => string[]): string[] {
  return files.flatMap((f) => {
    const from = layerOf(f);
    if (from === undefined) return [`${relative(serverSrc, f)}: not in the layer table`];
    return importsOf(f)
      .filter((i) => i.startsWith('.'))
      .map((i) => join(f, '..', i.replace(/\.js$/, '.ts')))
      .filter((target) => {
        const to = layerOf(target);
        return to !== from && !(to !== undefined && LAYERS[from]?.includes(to));
      })
      .map((target) => `${relative(serverSrc, f)} (${from}) -> ${relative(serverSrc, target)} (${layerOf(target) ?? 'unplaced'})`);
  });
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? '');
}

describe('architecture', () => {
  it('core is pure: no node: imports, no server code, only browser-safe packages from outside', () => {
    // zod and node-sql-parser's per-dialect grammars: pure JavaScript.
    const allowed = (i: string) => i === 'zod' || i.startsWith('node-sql-parser/build/');
    const offenders = sources(join(root, 'core/src')).flatMap((f) =>
      imports(f)
        .filter((i) => !i.startsWith('.') && !allowed(i))
        .map((i) => `${f}: ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('core imports nothing of the server: every relative import stays inside core/src', () => {
    const coreSrc = join(root, 'core/src');
    const offenders = sources(coreSrc).flatMap((f) =>
      imports(f)
        .filter((i) => i.startsWith('.') && relative(coreSrc, join(f, '..', i)).startsWith('..'))
        .map((i) => `${f}: ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the server imports only down its layers (the table above)', () => {
    expect(layerViolations(sources(serverSrc), imports)).toEqual([]);
  });

  it('the layer check catches an upward import', () => {
    // Guards the guard: a store module importing the pipeline, and an ingest module importing
    // http, must be reported, and a downward import must not.
    const fake: Record<string, string[]> = {
      [join(serverSrc, 'store/a.ts')]: ['../pipeline/b.js', '../db/c.js'],
      [join(serverSrc, 'ingest/d.ts')]: ['../http/e.js', './f.js'],
      [join(serverSrc, 'db/g.ts')]: ['../store/h.js', '../config.js'],
      [join(serverSrc, 'emit/i.ts')]: ['../server.js'],
    };
    expect(layerViolations(Object.keys(fake), (f) => fake[f] ?? [])).toEqual([
      'store/a.ts (store) -> pipeline/b.ts (pipeline)',
      'ingest/d.ts (ingest) -> http/e.ts (http)',
      'db/g.ts (db) -> store/h.ts (store)',
      'emit/i.ts (emit) -> server.ts (server)',
    ]);
  });

  it('core uses no console and no process globals', () => {
    const offenders = sources(join(root, 'core/src')).filter((f) => /\b(console|process)\./.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('has no import cycles inside the server', () => {
    const files = sources(join(root, 'server/src'));
    const graph = new Map(files.map((f) => [f, imports(f).filter((i) => i.startsWith('.')).map((i) => join(f, '..', i.replace(/\.js$/, '.ts')))]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(f)), f].map((p) => p.slice(root.length)).join(' -> '));
        return;
      }
      state.set(f, 'visiting');
      for (const next of graph.get(f) ?? []) visit(next, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
