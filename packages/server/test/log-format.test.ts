/**
 * Log format: readable lines for a person at a terminal, JSON lines for everything else, or what
 * `FEEDLOOP_LOG_FORMAT` asks for. (That a server's output in a pipe is JSON lines is checked on a
 * real worker process in readme-commands.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { chooseLogFormat, logOptions } from '../src/log.js';

const LOG_MODULE = fileURLToPath(new URL('../dist/log.js', import.meta.url));

/** Logs one line from a child process whose stdout is a pipe, with FEEDLOOP_LOG_FORMAT=`format`. */
function logInChild(format: string | undefined): string {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOG_MODULE)});
    const { loadConfig } = await import(${JSON.stringify(fileURLToPath(new URL('../dist/config.js', import.meta.url)))});
    createLogger(loadConfig()).info({ port: 8787 }, 'feedloop listening');`;
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  if (format) env.FEEDLOOP_LOG_FORMAT = format;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('log format', () => {
  it('is pretty on a terminal and JSON elsewhere, unless told', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('auto', false)).toBe('json');
    expect(chooseLogFormat('auto', undefined)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });

  it('is configured by FEEDLOOP_LOG_FORMAT, auto by default', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ FEEDLOOP_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ FEEDLOOP_LOG_FORMAT: 'xml' })).toThrow(/FEEDLOOP_LOG_FORMAT/);
  });

  it('gives the logger a pretty stream only when the format is pretty', () => {
    const config = { logLevel: 'info' as const, logFormat: 'auto' as const };
    expect(logOptions(config, { isTTY: true }).stream).toBeDefined();
    expect(logOptions(config, { isTTY: false })).toEqual({ level: 'info' });
    expect(logOptions({ ...config, logFormat: 'json' }, { isTTY: true })).toEqual({ level: 'info' });
  });

  it('writes JSON lines to a pipe, and readable lines when asked', () => {
    const json = logInChild(undefined).trim().split('\n');
    expect(json).toHaveLength(1);
    expect(JSON.parse(json[0] as string)).toMatchObject({ level: 30, port: 8787, msg: 'feedloop listening' });

    const pretty = logInChild('pretty');
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: feedloop listening\n\s+port: 8787\n$/);
  });
});
