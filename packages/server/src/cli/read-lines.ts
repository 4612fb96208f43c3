/**
 * Reads a JSON-lines file one parsed line at a time, in constant memory; `.gz` files are
 * decompressed on the fly (the HH-RLHF dataset ships gzipped).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

/**
 * Yields each non-blank line of `path` parsed as JSON, with its 1-based line number.
 *
 * @throws Error naming the file and line when a line is not JSON.
 * @example
 * for await (const { value, line } of readJsonLines('data.jsonl.gz')) console.log(line, value);
 */
export async function* readJsonLines(path: string): AsyncGenerator<{ value: unknown; line: number }> {
  const file = createReadStream(path);
  const input = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${path}:${line}: not JSON (${(err as Error).message})`);
    }
    yield { value, line };
  }
}
