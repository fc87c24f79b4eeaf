#!/usr/bin/env node
// The `flowgate` program: compiled TypeScript lives in dist/ (built by npm install).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'ts', 'cli', 'main.js');
if (!existsSync(main)) {
  console.error('flowgate: not built yet, run `npm install` (or `npm run build`) first');
  process.exit(1);
}
const { run } = await import(main);
process.exitCode = await run(process.argv.slice(2));
