// The flow decoder from the TypeScript sources (vitest runs sources; Node 20
// cannot load .ts): register ts-loader-hooks.mjs, then the worker itself.
// Running from dist/, store-worker.ts starts flow-decoder.js instead.
import { register } from 'node:module';

register('./ts-loader-hooks.mjs', import.meta.url);
await import('./flow-decoder.ts');
