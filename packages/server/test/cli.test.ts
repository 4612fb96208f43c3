/**
 * The `feedloop` command as a user runs it: a real process on a real data folder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../src/db/migrate.js';

const CLI = new URL('../dist/cli.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'feedloop-cli-'));
const env = { ...process.env, FEEDLOOP_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' };

function feedloop(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('feedloop CLI (embedded database)', () => {
  it('migrates, then reports it is up to date', () => {
    expect(feedloop('migrate').stdout).toMatch(/applied 1_init, 2_pipeline/);
    const latest = Math.max(...loadMigrations().map((m) => m.version));
    expect(feedloop('migrate').stdout).toMatch(new RegExp(`up to date \\(version ${latest}\\)`));
  });

  it('refuses to run a worker alone on the embedded database, saying why', () => {
    const r = feedloop('worker');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/feedloop worker needs DATABASE_URL and REDIS_URL/);
  });

  it('creates and lists workspaces, idempotently by name', () => {
    const created = JSON.parse(feedloop('workspace', 'create', 'support', '--json').stdout);
    expect(created).toMatchObject({ name: 'support', created: true, tenantId: 'default' });
    const again = JSON.parse(feedloop('workspace', 'create', 'support', '--json').stdout);
    expect(again).toMatchObject({ id: created.id, created: false });
    const list = JSON.parse(feedloop('workspace', 'list', '--json').stdout);
    expect(list.map((w: { name: string }) => w.name)).toContain('support');
  });

  it('creates, lists and revokes keys', () => {
    const key = JSON.parse(feedloop('key', 'create', '--workspace', 'support', '--kind', 'public', '--name', 'widget', '--json').stdout);
    expect(key.key).toMatch(/^fl_pk_/);
    const listed = JSON.parse(feedloop('key', 'list', '--workspace', 'support', '--json').stdout);
    // The tenant/name form `workspace list` prints works as well as the name and the id.
    expect(feedloop('workspace', 'list').stdout).toContain('default/support');
    expect(JSON.parse(feedloop('key', 'list', '--workspace', 'default/support', '--json').stdout)).toEqual(listed);
    expect(listed).toEqual([expect.objectContaining({ id: key.id, kind: 'public', revokedAt: null, name: 'widget' })]);
    expect(JSON.stringify(listed)).not.toContain(key.key);
    expect(feedloop('key', 'revoke', key.id, '--workspace', 'support').stdout).toMatch(/revoked/);
    const after = JSON.parse(feedloop('key', 'list', '--workspace', 'support', '--json').stdout);
    expect(after[0].revokedAt).not.toBeNull();
  });

  it('creates a reviewer key named for its reviewer', () => {
    const made = feedloop('key', 'create', '--workspace', 'support', '--kind', 'reviewer', '--name', 'cli-reviewer', '--json');
    expect(made.status, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout);
    expect(key).toMatchObject({ kind: 'reviewer', name: 'cli-reviewer' });
    expect(key.key).toMatch(/^fl_rk_/);
    const listed = JSON.parse(feedloop('key', 'list', '--workspace', 'support', '--json').stdout);
    expect(listed).toContainEqual(expect.objectContaining({ id: key.id, kind: 'reviewer', name: 'cli-reviewer', revokedAt: null }));
  });

  it('fails clearly on bad use', () => {
    const badKind = feedloop('key', 'create', '--workspace', 'support', '--kind', 'admin');
    expect(badKind.status).toBe(1);
    expect(badKind.stderr).toMatch(/FEEDLOOP_ERR_VALIDATION_INVALID_FIELD: --kind must be secret, public or reviewer/);
    const nameless = feedloop('key', 'create', '--workspace', 'support', '--kind', 'reviewer');
    expect(nameless.status).toBe(1);
    expect(nameless.stderr).toMatch(/FEEDLOOP_ERR_VALIDATION_INVALID_FIELD: --name: a reviewer key needs the name of its reviewer/);
    const spaced = feedloop('key', 'create', '--workspace', 'support', '--kind', 'reviewer', '--name', 'Ann Smith');
    expect(spaced.stderr).toMatch(/--name: a reviewer's name is at most 64/);
    const reviewers = JSON.parse(feedloop('key', 'list', '--workspace', 'support', '--json').stdout).filter((k: { kind: string }) => k.kind === 'reviewer');
    expect(reviewers.map((k: { name: string }) => k.name)).toEqual(['cli-reviewer']);
    const noWs = feedloop('key', 'list', '--workspace', 'nope');
    expect(noWs.stderr).toMatch(/FEEDLOOP_ERR_WORKSPACE_NOT_FOUND/);
    expect(feedloop('frobnicate').stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('refuses to open the data folder while a live process holds it, and takes over a dead one', () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(join(dir, 'data', 'feedloop.lock'), String(holder.pid));
      const locked = feedloop('workspace', 'list');
      expect(locked.status).toBe(1);
      expect(locked.stderr).toMatch(/FEEDLOOP_ERR_DATA_DIR_LOCKED: the data folder .* is in use by feedloop process/);
    } finally {
      holder.kill('SIGKILL');
    }
    writeFileSync(join(dir, 'data', 'feedloop.lock'), '999999');
    expect(feedloop('workspace', 'list').status).toBe(0);
  });
});
