// The egress policy API (nProbe Cento's paths): GET, parameters in the
// query string, HTTP basic auth on every request. With `action` the policy is
// set; without it the policy in force is read. The answer is the status now
// in force with its counters; a bad action, subnet, protocol or queue index
// is HTTP 400 with the reason; any other path 404.
import { Hono } from 'hono';

import { basicAuth, type AuthEnv } from './credentials.js';
import { parseAction, parseProtocolName, parseSubnet, PolicyError, targetKey, type TargetKind } from './policy.js';
import type { EgressService } from './service.js';
import type { Kv } from '../services/kv.js';

// /egress/<target>/[<queue>/](default | ip | protocol/<name>): one pattern,
// the whole API surface.
const PATH = /^\/egress\/(aggregated|balanced|bridge)\/(?:(\d+)\/)?(default|ip|protocol\/([^/]+))\/?$/;

export function createEgressApp(service: EgressService, kv: Kv, product: string, log: (l: string) => void = console.error): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use('*', basicAuth(kv, product, log));
  app.get('/egress/*', async (c) => {
    const m = PATH.exec(c.req.path);
    if (!m) return c.json({ error: `no such path ${c.req.path}` }, 404);
    const kind = m[1] as TargetKind;
    try {
      let queue: number | undefined;
      if (m[2] !== undefined) {
        if (kind !== 'aggregated') return c.json({ error: `no such path ${c.req.path}` }, 404);
        queue = Number(m[2]);
        const n = Math.max(1, service.layout.aggregated);
        if (!Number.isSafeInteger(queue) || queue >= n) throw new PolicyError(`invalid queue index ${m[2]}: aggregated queues are 0..${n - 1}`);
      }
      const scope = m[3] === 'default' ? 'default' : m[3] === 'ip' ? 'subnet' : 'protocol';
      let match = '';
      let master: string | undefined;
      if (scope === 'subnet') match = parseSubnet(c.req.query('subnet'));
      if (scope === 'protocol') ({ name: match, master } = parseProtocolName(m[4]));
      const action = c.req.query('action');
      if (action !== undefined) {
        const a = parseAction(action);
        await service.set(targetKey(kind, queue), scope, match, a);
        log(`flowgate: egress: ${c.get('user')} set ${targetKey(kind, queue)} ${scope}${match ? ` ${match}` : ''} = ${a}`);
      }
      return c.json(service.status(kind, queue, scope, match, master), 200);
    } catch (e) {
      if (e instanceof PolicyError) return c.json({ error: e.message }, 400);
      throw e;
    }
  });
  app.notFound((c) => c.json({ error: `no such path ${c.req.path}` }, 404));
  app.onError((e, c) => {
    log(`flowgate: egress api: ${c.req.path}: ${e.stack ?? e}`);
    return c.json({ error: 'internal error' }, 500);
  });
  return app;
}
