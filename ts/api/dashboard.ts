// The web dashboard's static files (built from web/ into dist/web by
// `npm install` / `npm run build`) and logout. A browser asking for `/`
// gets the dashboard; other clients keep the JSON pointer to the API. The
// pages read only the public REST API, with the session cookie that
// create/ntopng/session gives (login) and /lua/logout.lua ends.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Context, Hono } from 'hono';
import { parse } from 'hono/utils/cookie';

import { envelope, RC } from './rc.js';
import type { ApiDeps } from './route.js';

/** <root>/dist/web, whether this module runs compiled (dist/ts/api) or as source (ts/api, tests) */
const up = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEB_DIR = join(basename(up) === 'dist' ? dirname(up) : up, 'dist', 'web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

// Everything the pages load comes from here; no inline script, no other origin.
const SECURITY = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export function mountDashboard(app: Hono, deps: ApiDeps, pointer: Record<string, string>, dir = WEB_DIR): void {
  // the built files, read once: a request names one of them or nothing (no path walking)
  const files = new Map<string, { body: Buffer; type: string }>();
  if (existsSync(join(dir, 'index.html'))) {
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (type) files.set(name, { body: readFileSync(join(dir, name)), type });
    }
  }
  const index = files.get('index.html');
  const SERVICE = 'flowgate monitoring API (ntopng-compatible)';
  const send = (c: Context, f: { body: Buffer; type: string }, cache: string) =>
    c.body(new Uint8Array(f.body), 200, { 'content-type': f.type, 'cache-control': cache, ...SECURITY });

  app.get('/', (c) => {
    const html = (c.req.header('accept') ?? '').includes('text/html');
    if (html && index) return send(c, index, 'no-cache');
    return c.json({ service: SERVICE, dashboard: index ? '/ (in a browser)' : 'not built (npm run build)', ...pointer });
  });
  // the base URL the service prints: a browser goes to the dashboard, a client gets the pointer
  for (const base of ['/lua/rest/v2', '/lua/rest/v2/']) {
    app.get(base, (c) => ((c.req.header('accept') ?? '').includes('text/html') && index ? c.redirect('/', 302) : c.json(envelope(RC.OK, { service: SERVICE, ...pointer }))));
  }
  app.get('/dashboard/:file', (c) => {
    const f = files.get(c.req.param('file'));
    if (!f || c.req.param('file') === 'index.html') return c.json({ error: 'not found' }, 404);
    return send(c, f, 'no-cache');
  });
  // ntopng's logout page: the session ends and its cookie goes; back to the login
  app.on(['GET', 'POST'], '/lua/logout.lua', async (c) => {
    const cookieHeader = c.req.header('cookie');
    const cookies = cookieHeader && cookieHeader.length <= 8192 ? parse(cookieHeader) : {};
    const id = cookies.session;
    if (id && id.length <= 256) await deps.users.endSession(id);
    c.header('set-cookie', 'session=; Path=/; Max-Age=0; SameSite=Strict');
    return c.redirect('/', 302);
  });
}
