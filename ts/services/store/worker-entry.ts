// ⑧ Where a store thread starts: the compiled `<name>.js` beside this file
// (dist/), or, when running from the TypeScript sources (vitest), the small
// `<name>.source.mjs` that registers a TypeScript loader first.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function workerEntry(name: 'store-worker' | 'flow-decoder'): URL {
  const js = new URL(`./${name}.js`, import.meta.url);
  return existsSync(fileURLToPath(js)) ? js : new URL(`./${name}.source.mjs`, import.meta.url);
}
