// The store worker from the TypeScript sources (vitest runs sources; Node 20
// cannot load .ts): register ts-loader-hooks.mjs, then the worker itself.
// Running from dist/, worker-backend.ts starts store-worker.js instead.
import { register } from 'node:module';

register('./ts-loader-hooks.mjs', import.meta.url);
await import('./store-worker.ts');
