#!/usr/bin/env node
// The `feedloop` command as npm links it (node_modules/.bin/feedloop). It is committed, unlike the
// compiled CLI in dist/, so the link exists right after `npm install` (whose `prepare` script
// builds dist/); if dist/ is missing anyway (installed with --ignore-scripts, or cleaned), it says
// what to run instead of failing with a module-not-found trace.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'feedloop: the CLI is not built yet (packages/server/dist/cli.js is missing).\n' +
      'Run `npm run build` in the repository root (npm install runs it too, unless scripts are disabled).\n',
  );
  process.exit(1);
}
await import(cli.href);
