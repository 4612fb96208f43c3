/**
 * The data folder lock: a dead, zombie or unrelated owner never blocks a start, a live owner always
 * does, and of several starters racing over one stale lock exactly one wins (each in its own
 * process, as in real life).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, readDataDirLock } from '../src/db/data-dir-lock.js';
import { readLocalAdminCredential, writeLocalAdminCredential } from '../src/db/local-admin-credential.js';
import { procStartTime, procState, within } from './process-helpers.js';

const LOCK_MODULE = fileURLToPath(new URL('../dist/db/data-dir-lock.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'feedloop-lock-'));
const children: ChildProcess[] = [];
const linux = existsSync('/proc/self/stat');

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function freshDir(): string {
  return join(root, `d${n++}`);
}

/** A pid no process has: a child that ran and was reaped. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** A live process of another program (`sleep`). */
function sleeper(): number {
  const child = spawn('sleep', ['120'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

/**
 * A zombie: `sleep 0.05` backgrounded by a shell that then becomes `sleep 120` (exec keeps the pid),
 * which never waits for it, so it stays unreaped as long as its parent lives.
 */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 120'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  const pid = await within(
    new Promise<number>((resolve) => parent.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim())))),
    10_000,
    'zombie pid',
  );
  for (let i = 0; i < 200 && procState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 25));
  return pid;
}

function lockedMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { code?: string }).code).toBe('FEEDLOOP_ERR_DATA_DIR_LOCKED');
    return (err as Error).message;
  }
  throw new Error('expected FEEDLOOP_ERR_DATA_DIR_LOCKED');
}

function writeLock(dir: string, content: string): void {
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'feedloop.lock'), content);
}

describe('data folder lock', () => {
  it('is held until released, also against this very process', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(lockedMessage(() => acquireDataDirLock(dir))).toMatch(new RegExp(`in use by feedloop process ${process.pid}\\b`));
    lock.release();
    expect(existsSync(join(dir, 'feedloop.lock'))).toBe(false);
    acquireDataDirLock(dir).release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('records the owner: pid, start time, boot and a token', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    try {
      const owner = JSON.parse(readFileSync(join(dir, 'feedloop.lock'), 'utf8'));
      expect(owner).toMatchObject({ pid: process.pid, token: expect.stringMatching(/^[0-9a-f]{24}$/) });
      if (linux) expect(owner.start).toBe(procStartTime(process.pid));
    } finally {
      lock.release();
    }
  });

  it("announces its owner's address, read back as live; a dead owner's address reads as stale", () => {
    const dir = freshDir();
    expect(readDataDirLock(dir)).toBeUndefined();
    const lock = acquireDataDirLock(dir);
    const token = (JSON.parse(readFileSync(lock.path, 'utf8')) as { token: string }).token;
    expect(readDataDirLock(dir)).toEqual({ pid: process.pid, live: true, url: undefined });
    lock.announce({ url: 'http://127.0.0.1:8787' });
    expect(readDataDirLock(dir)).toEqual({ pid: process.pid, live: true, url: 'http://127.0.0.1:8787' });
    // The same lock (its token), still refusing a second starter; no temporary file left.
    expect((JSON.parse(readFileSync(lock.path, 'utf8')) as { token: string }).token).toBe(token);
    lockedMessage(() => acquireDataDirLock(dir));
    expect(readdirSync(dir)).toEqual(['feedloop.lock']);
    lock.release();
    expect(readDataDirLock(dir)).toBeUndefined();
    // A released lock is not announced again.
    lock.announce({ url: 'http://127.0.0.1:9999' });
    expect(existsSync(join(dir, 'feedloop.lock'))).toBe(false);

    const pid = deadPid();
    writeLock(dir, JSON.stringify({ pid, token: 'abc', url: 'http://127.0.0.1:8787/' }));
    expect(readDataDirLock(dir)).toEqual({ pid, live: false, url: 'http://127.0.0.1:8787' });
    // Anyone may write a lock: an address that is not http(s) is none.
    writeLock(dir, JSON.stringify({ pid: process.pid, token: 'abc', url: 'file:///etc/passwd' }));
    expect(readDataDirLock(dir)?.url).toBeUndefined();
  });

  it('keeps the local admin credential owner-only, and a stopping server removes only its own', () => {
    const dir = freshDir();
    spawnSync('mkdir', ['-p', dir]);
    const remove = writeLocalAdminCredential(dir, { url: 'http://127.0.0.1:8787', token: 'fl_admin_first' });
    const path = join(dir, 'admin-credential.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readLocalAdminCredential(dir)).toEqual({ url: 'http://127.0.0.1:8787', token: 'fl_admin_first' });
    // A later server (the first was killed) wrote its own: the first's removal leaves it.
    const removeLater = writeLocalAdminCredential(dir, { url: 'http://127.0.0.1:8788', token: 'fl_admin_later' });
    remove();
    expect(readLocalAdminCredential(dir)?.token).toBe('fl_admin_later');
    removeLater();
    expect(readLocalAdminCredential(dir)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over a lock whose owner is dead, or that is empty or unreadable', () => {
    for (const content of [String(deadPid()), JSON.stringify({ pid: deadPid(), start: '1', token: 'abc' }), '', 'garbage']) {
      const dir = freshDir();
      writeLock(dir, content);
      acquireDataDirLock(dir).release();
    }
  });

  it.runIf(linux)('takes over a lock whose owner is a zombie (dead, not yet reaped), in either format', async () => {
    const pid = await zombie();
    expect(procState(pid)).toBe('Z');
    const legacy = freshDir();
    writeLock(legacy, String(pid));
    acquireDataDirLock(legacy).release();
    const current = freshDir();
    writeLock(current, JSON.stringify({ pid, start: procStartTime(pid), token: 'aaaaaaaaaaaaaaaaaaaaaaaa' }));
    acquireDataDirLock(current).release();
  });

  it.runIf(linux)('takes over a lock whose pid now belongs to another program, and respects a live owner', () => {
    const pid = sleeper();
    const reused = freshDir();
    writeLock(reused, JSON.stringify({ pid, start: String(Number(procStartTime(pid)) - 1), token: 'bbbbbbbbbbbbbbbbbbbbbbbb' }));
    acquireDataDirLock(reused).release();
    // The same pid with its real start time is a live owner: refused.
    const live = freshDir();
    writeLock(live, JSON.stringify({ pid, start: procStartTime(pid), token: 'cccccccccccccccccccccccc' }));
    expect(lockedMessage(() => acquireDataDirLock(live))).toMatch(new RegExp(`in use by feedloop process ${pid}\\b`));
  });

  it.runIf(linux)('takes over a lock written before the last boot', () => {
    const pid = sleeper();
    const dir = freshDir();
    writeLock(dir, JSON.stringify({ pid, start: procStartTime(pid), boot: '00000000-0000-0000-0000-000000000000', token: 'dddddddddddddddddddddddd' }));
    acquireDataDirLock(dir).release();
  });

  /**
   * Starts `count` processes that take each folder of `dirs` in turn, all at the same moment (a
   * shared clock, one slot per folder); each prints, per folder, `won` or its error code. Winners
   * hold their locks until their stdin closes, so every loser meets a live owner.
   */
  async function race(dirs: string[], count: number): Promise<string[][]> {
    const slotMs = 25;
    const at = Date.now() + 1_500 + count * 200;
    const script = `
      const { acquireDataDirLock } = await import(${JSON.stringify(LOCK_MODULE)});
      const dirs = ${JSON.stringify(dirs)};
      const held = [], results = [];
      for (let i = 0; i < dirs.length; i++) {
        while (Date.now() < ${at} + i * ${slotMs}) {}
        try { held.push(acquireDataDirLock(dirs[i])); results.push('won'); }
        catch (err) { results.push(err.code ?? String(err)); }
      }
      process.stdout.write(JSON.stringify(results) + '\\n');
      process.stdin.resume();
      process.stdin.on('end', () => { for (const lock of held) lock.release(); process.exit(0); });`;
    const racers = Array.from({ length: count }, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      return child;
    });
    const results = await within(
      Promise.all(
        racers.map(
          (c) =>
            new Promise<string[]>((resolve) => {
              let out = '';
              c.stdout?.on('data', (d: Buffer) => {
                out += d.toString();
                if (out.endsWith('\n')) resolve(JSON.parse(out) as string[]);
              });
            }),
        ),
      ),
      60_000,
      'racers',
    );
    for (const c of racers) c.stdin?.end();
    await Promise.all(racers.map((c) => new Promise((resolve) => c.once('exit', resolve))));
    // Per folder, what each racer got.
    return dirs.map((_, i) => results.map((r) => r[i] as string));
  }

  it('lets exactly one of several processes racing over a stale lock win', async () => {
    expect(existsSync(LOCK_MODULE), `${LOCK_MODULE} is missing: build first`).toBe(true);
    const dirs = Array.from({ length: 40 }, (_, i) => {
      const dir = freshDir();
      writeLock(dir, i % 2 === 0 ? String(deadPid()) : JSON.stringify({ pid: deadPid(), start: '1', token: `stale${i}` }));
      return dir;
    });
    const perDir = await race(dirs, 5);
    for (const [i, results] of perDir.entries()) {
      expect(results.filter((r) => r === 'won'), `folder ${i}: ${results.join(', ')}`).toHaveLength(1);
      expect(results.filter((r) => r === 'FEEDLOOP_ERR_DATA_DIR_LOCKED'), `folder ${i}: ${results.join(', ')}`).toHaveLength(4);
      // The winner released on exit; nothing of the race is left behind.
      expect(readdirSync(dirs[i] as string)).toEqual([]);
    }
  }, 120_000);

  it('lets exactly one win although an earlier starter died in the middle of a takeover', async () => {
    const dir = freshDir();
    const stale = { pid: deadPid(), start: '1', token: 'eeeeeeeeeeeeeeeeeeeeeeee' };
    writeLock(dir, JSON.stringify(stale));
    // What a starter killed between claiming the takeover and finishing it leaves behind.
    writeFileSync(join(dir, `feedloop.lock.takeover-${stale.token}-0`), JSON.stringify({ pid: deadPid(), start: '1', token: 'ffffffffffffffffffffffff' }));
    const [results = []] = await race([dir], 4);
    expect(results.filter((r) => r === 'won'), results.join(', ')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);
});
