/**
 * The process's logs: JSON lines for machines (files, pipes, log collectors), readable lines
 * (pino-pretty) for a person at a terminal. `FEEDLOOP_LOG_FORMAT` decides, `auto` by whether
 * stdout is a terminal.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPrettyModule from 'pino-pretty';
import type { Config } from './config.js';

/**
 * pino-pretty (and its colour and date libraries, ~10 MB resident) is loaded only when logs are
 * pretty: a server writing JSON (under systemd, in a container, in a pipe) never needs it.
 */
function loadPinoPretty(): typeof PinoPrettyModule {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPrettyModule;
}

/** What `FEEDLOOP_LOG_FORMAT` may say. */
export type LogFormatSetting = Config['logFormat'];

/**
 * The format logs are written in: the setting when it names one, else pretty on a terminal.
 *
 * @example
 * chooseLogFormat('auto', process.stdout.isTTY); // 'pretty' in a terminal, 'json' under systemd or in a pipe
 */
export function chooseLogFormat(setting: LogFormatSetting, isTTY: boolean | undefined): 'json' | 'pretty' {
  if (setting !== 'auto') return setting;
  return isTTY === true ? 'pretty' : 'json';
}

/** pino's options, also Fastify's `logger` option (which takes pino's `stream` too). */
export interface LogOptions {
  level: string;
  stream?: DestinationStream;
}

/**
 * Logger options for a configuration: the level, and a pino-pretty stream when logs are pretty.
 * Pretty output is written synchronously: it is for people, at a person's pace, and nothing is
 * lost when the process exits.
 *
 * @example
 * const app = Fastify({ logger: logOptions(config) });
 */
export function logOptions(config: Pick<Config, 'logLevel' | 'logFormat'>, out: { isTTY?: boolean } = process.stdout): LogOptions {
  if (chooseLogFormat(config.logFormat, out.isTTY) === 'json') return { level: config.logLevel };
  return {
    level: config.logLevel,
    stream: loadPinoPretty()({ colorize: out.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  };
}

/**
 * A logger for a configuration (see {@link logOptions}).
 *
 * @example
 * const log = createLogger(config); log.info({ url }, 'feedloop listening');
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  const { stream, ...options } = logOptions(config);
  return stream ? pino(options, stream) : pino(options);
}
