// The monitoring API as a Hono app built from the route table: for each
// request, authenticate, check the permission, read and check parameters,
// select the interface, run the handler, and shape the answer per version
// (v0 bare JSON; v1/v2 the {rc, rc_str, rc_str_hr, rsp} envelope).
import { Hono, type Context } from 'hono';
import { z } from 'zod';

import { authenticate } from './auth.js';
import { mountDashboard } from './dashboard.js';
import { metricsText } from './metrics.js';
import { openapi } from './openapi.js';
import { parseParams, readParams } from './params.js';
import { ApiError, envelope, RC, rcInfo, SuccessAnswer } from './rc.js';
import { routeUrls, selectInterface, type ApiCtx, type ApiDeps, type RouteDef, type Version } from './route.js';
import { routes } from './routes.js';
import { okSerializer } from './serialize.js';
import { RowStream, streamAnswer } from './stream.js';
import { loginFailedAlert } from '../services/checks/user-activity.js';
import { isCommitError } from '../services/config-store.js';
import { systemError } from '../services/system-errors.js';
import { isLoopback, peerAddress } from '../services/login-guard.js';
import { seesEverything } from '../services/users.js';
import { Extractions } from '../services/recording/index.js';

export interface ServerOptions {
  log?: (line: string) => void;
  /** log every request (method, path, user, rc, ms) */
  debug?: boolean;
  /** GET /metrics without credentials for clients on a loopback address (a local Prometheus); others still authenticate */
  metricsOpenLoopback?: boolean;
}

export function createMonitoringApp(apiDeps: ApiDeps, opts: ServerOptions = {}): Hono {
  const log = opts.log ?? ((l: string) => console.error(l));
  const app = new Hono();
  // Endpoints that run other endpoints (pro lightview/aggregate) go through the app itself.
  const deps: ApiDeps = { ...apiDeps, extractions: apiDeps.extractions ?? new Extractions(), forward: async (url, init) => app.request(url, init) };
  for (const r of routes) {
    const schema = z.object(r.params);
    for (const { version, url } of routeUrls(r)) {
      const response = r.response?.[version];
      const write = response ? okSerializer(version, response) : JSON.stringify;
      const handle = async (c: Context) => {
        const res = await serve(c, r, schema, version, write, deps, log);
        await afterIo();
        return res;
      };
      app.on(['GET', 'POST'], url, !opts.debug ? handle : async (c) => {
        const t0 = performance.now();
        const res = await handle(c);
        log(`flowgate: api: ${c.req.method} ${c.req.path} -> ${res.status} (${(performance.now() - t0).toFixed(1)} ms)`);
        return res;
      });
    }
  }
  // Prometheus' scrape target: the engines' counters, with the API's credentials
  app.get('/metrics', async (c) => {
    let only: string | undefined;
    // credentials sent are checked even from loopback (a bound user stays bound)
    const open = opts.metricsOpenLoopback && isLoopback(peerAddress(c.env)) && !c.req.header('authorization') && !c.req.header('cookie');
    if (!open) {
      const auth = await authenticate(c, deps.users);
      if (!auth.user) {
        if (auth.failedLogin !== undefined) deps.alerts?.emit(loginFailedAlert(auth.failedLogin));
        challenge(c);
        return c.text(`${auth.reason}\n`, 401);
      }
      only = auth.user.allowed_interface;
    }
    const list = deps.interfaces.list.filter((i) => !only || i.ifname === only);
    const fx = deps.flowExport, al = deps.alerts;
    const text = metricsText(list, {
      exportCounters: fx ? (ifid) => fx.counters(ifid) : undefined,
      flowAlertDrops: fx ? (ifid) => fx.flowAlertDrops(ifid) : undefined,
      alerts: al ? (ifid) => al.counters(ifid) : undefined,
    });
    return c.body(text, 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  });
  const doc = openapi(routes);
  app.get('/lua/rest/v2/openapi.json', (c) => c.json(doc));
  // Where to go, for a first visit and for a path that is not an endpoint: every
  // endpoint is in the OpenAPI document (the README says which part of ntopng's API is served).
  const WHERE = { openapi: '/lua/rest/v2/openapi.json', endpoints: '/lua/rest/v2/<action>/<subject>.lua (v0: /lua/rest/, v1: /lua/rest/v1/, pro: /lua/pro/rest/v2/)', readme: 'README.md of flowgate: the served part of the ntopng REST API', metrics: '/metrics (Prometheus text format)', logout: '/lua/logout.lua' };
  mountDashboard(app, deps, WHERE);
  app.notFound((c) => {
    const v2ish = /\/rest\/v[12]\//.test(c.req.path);
    const hint = `no endpoint ${c.req.path}: the endpoints are listed in ${WHERE.openapi}`;
    return v2ish ? c.json(envelope(RC.NOT_FOUND, [], hint), 404) : c.json({ error: 'not found', hint, ...WHERE }, 404);
  });
  app.onError((err, c) => {
    internalError(c, err, log);
    // a write the configuration store could not commit (full disk …): nothing changed, reads go on
    return c.json(envelope(RC.INTERNAL_ERROR, [], storeMessage(err)), 500);
  });
  return app;
}

/** A request that failed inside: logged with its stack, and queued for the system_error check. */
function internalError(c: Context, e: unknown, log: (l: string) => void): void {
  const where = `${c.req.method} ${c.req.path}`;
  log(`flowgate: api: ${where}: ${(e as Error)?.stack ?? e}`);
  systemError(`api: ${where}: ${(e as Error)?.message ?? e}`);
}

/** Asks for basic auth, except from the dashboard's own requests (it shows its login, not the browser's prompt). */
function challenge(c: Context): void {
  if (c.req.header('x-requested-with') !== 'XMLHttpRequest') c.header('WWW-Authenticate', 'Basic realm="flowgate"');
}

/** -6's message: a write the configuration store could not commit (a full disk …) says so; nothing changed, reads go on. */
const storeMessage = (e: unknown) => (isCommitError(e) ? 'the change could not be stored (the configuration store refused the write: see the service log)' : 'internal error');

// Answers leave after the event loop's I/O phase (setImmediate): requests
// read in one turn are answered in one burst, so a client polling on many
// connections is woken once per burst instead of once per answer. On this
// 2-vCPU machine that wake-up was most of an answer's cost (interface data
// 7.2 k → 12.5 k req/s; latency unchanged at low load).
const afterIo = () => new Promise<void>((resolve) => setImmediate(resolve));

// The body as text with its type set here: Hono's c.json costs ~10 % more per answer.
const json = (c: Context, body: unknown, status: number, write: (b: unknown) => string = JSON.stringify) =>
  c.body(write(body), status as 200, { 'content-type': 'application/json; charset=UTF-8' });

type Write = (body: unknown) => string;

/** The answer; `write` serializes a successful one (the route's compiled serializer). */
function answer(c: Context, version: Version, rc: number, data: unknown, message?: string, rcStr?: string, write?: Write): Response {
  if (version === 'v0') {
    // v0 scripts answered 200 with bare JSON, 400 on bad input.
    if (rc === 0) return json(c, data ?? {}, 200, write);
    return json(c, { error: rcStr ?? rcInfo(rc).str, message: message ?? rcInfo(rc).text }, rc === RC.NOT_GRANTED ? 401 : 400);
  }
  return json(c, envelope(rc, data, message, rcStr), rcInfo(rc).http, rc === 0 ? write : undefined);
}

async function serve(c: Context, r: RouteDef, schema: z.ZodObject, version: Version, write: Write, deps: ApiDeps, log: (l: string) => void): Promise<Response> {
  try {
    const auth = await authenticate(c, deps.users);
    if (!auth.user) {
      if (auth.failedLogin !== undefined) deps.alerts?.emit(loginFailedAlert(auth.failedLogin));
      challenge(c);
      return answer(c, version, RC.NOT_GRANTED, [], auth.reason);
    }
    const user = auth.user;
    if (r.perm === 'admin' && user.role !== 'administrator') {
      return answer(c, version, RC.NOT_GRANTED, [], 'administrators only');
    }
    const raw = await readParams(c);
    const ctx: ApiCtx = {
      c,
      deps,
      user,
      version,
      iface: undefined as unknown as ApiCtx['iface'],
      allowed: seesEverything(user.allowed_networks) ? undefined : user.allowed_networks,
      raw,
    };
    if (r.ifid) ctx.iface = selectInterface(deps, user, raw.ifid);
    const p = parseParams(schema, raw);
    const data = await r.handler(ctx, p);
    if (data instanceof Response) return data;
    if (data instanceof SuccessAnswer) return answer(c, version, RC.OK, data.rsp, undefined, data.rcStr);
    if (data instanceof RowStream) return streamAnswer(c, version, data);
    const shape = r.shape?.[version];
    return answer(c, version, RC.OK, shape ? shape(data, ctx) : data, undefined, undefined, write);
  } catch (e) {
    if (e instanceof ApiError) return answer(c, version, e.rc, [], e.message, e.rcStr);
    internalError(c, e, log);
    return answer(c, version, RC.INTERNAL_ERROR, [], storeMessage(e));
  }
}

