// Bundles the widget into one small ES module (dist/feedloop-widget.js) and prints its gzip size.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const out = new URL('./dist/feedloop-widget.js', import.meta.url).pathname;
await build({
  entryPoints: [new URL('./src/index.ts', import.meta.url).pathname],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  outfile: out,
  logLevel: 'warning',
});
const bytes = readFileSync(out);
console.log(`widget: ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} bytes gzipped`);
