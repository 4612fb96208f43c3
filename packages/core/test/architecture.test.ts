import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

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
  it('core is pure: no node: imports, no server code, only zod from outside', () => {
    const offenders = sources(join(root, 'core/src')).flatMap((f) =>
      imports(f)
        .filter((i) => !i.startsWith('.') && i !== 'zod')
        .map((i) => `${f}: ${i}`),
    );
    expect(offenders).toEqual([]);
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
