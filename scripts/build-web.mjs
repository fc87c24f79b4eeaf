// Builds the dashboard (web/) into dist/web: one bundle of the pages with
// Preact and uPlot (esbuild, minified, ES2020 for current browsers), its
// CSS, and index.html. Run by `npm install` / `npm run build` (install.mjs).
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(root, 'web', 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(join(root, 'web', 'index.html'), join(out, 'index.html'));
console.log('flowgate: dashboard built in dist/web');
