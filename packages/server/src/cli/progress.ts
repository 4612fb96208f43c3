/**
 * A progress line for long exports on a terminal: rows, bytes and rate, redrawn in place on
 * stderr at most ten times a second. Only when stderr is a terminal: in a pipe, a file or CI the
 * output stays clean.
 */
import { Transform } from 'node:stream';

/** Where the line is drawn: stderr in the CLI. */
export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

const REDRAW_MS = 100;
const NEWLINE = 0x0a;

/** `1536` → `1.5 KiB`. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/**
 * A pass-through stream that counts the JSONL rows and bytes going through it and, on a terminal,
 * draws `⠋ 12,345 rows · 4.2 MiB · 3,100 rows/s` on `output`. `counts()` is exact either way.
 *
 * @example
 * const progress = progressMeter(process.stderr, 'exporting');
 * await pipeline(source, progress, destination);
 */
export function progressMeter(output: ProgressOutput, label: string): Transform & { counts(): { rows: number; bytes: number } } {
  const draw = output.isTTY === true;
  const started = performance.now();
  let rows = 0;
  let bytes = 0;
  let lastDraw = 0;
  let frame = 0;
  const line = (done: boolean): string => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
    const spin = done ? '✔' : '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[frame++ % 10];
    return `\r\u001b[2K${spin} ${label}: ${rows.toLocaleString('en-US')} rows · ${formatBytes(bytes)} · ${rate.toLocaleString('en-US')} rows/s`;
  };
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) rows++;
      const now = performance.now();
      if (draw && now - lastDraw >= REDRAW_MS) {
        lastDraw = now;
        output.write(line(false));
      }
      done(null, chunk);
    },
    flush(done) {
      if (draw) output.write(`${line(true)}\n`);
      done();
    },
  });
  return Object.assign(meter, { counts: () => ({ rows, bytes }) });
}
