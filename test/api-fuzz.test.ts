// A fuzz of the parameter parser over every URL of the route table: each
// parameter a route declares (and ifid, and names it does not declare) gets
// random and hostile values — empty, huge, negative, NaN, SQL and path
// fragments, prototype names, control characters, JSON of the wrong type —
// as a query string, a form body and a JSON body. Bad input is the caller's
// error: no answer may be a 5xx, every answer must be JSON, and the service
// must go on answering (interface data after the storm). Seeded: a failure
// prints the request that caused it and repeats on the next run.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { routeUrls } from '../ts/api/route.js';
import { routes } from '../ts/api/routes.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { startApi as startEgressApi, USER, type Running } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';
import { mulberry32, NDPI_PCAPS } from './fixtures/util.js';

let s: ApiService;
let egress: Running;
const tmp = tempDir('flowgate-fuzz-');
beforeAll(async () => {
  s = await startApi({ files: [join(NDPI_PCAPS, '1kxun.pcap')], history: true, timeseries: true });
  egress = await startEgressApi({ dataDir: tmp.dir, layout: { aggregated: 2, balanced: 2, bridge: true } });
}, 120_000);
afterAll(async () => {
  await s?.close();
  await egress?.close();
  tmp.cleanup();
});

const HOSTILE = [
  '', ' ', '0', '-1', '1', '2', '-0', '1.5', '1e309', '-1e309', 'NaN', 'Infinity', '0x10', '2147483648', '4294967296',
  '-9007199254740993', '99999999999999999999999', '9'.repeat(400), 'true', 'false', 'null', 'undefined', '[]', '{}',
  '{"a":1}', '[1,2]', "' OR 1=1 --", '"; DROP TABLE flows; --', '1) UNION SELECT * FROM users --', 'IP_SRC = 1', '../../../etc/passwd',
  '/dev/zero', '%00', '\u0000', '\u0000\u0001\u001f', '\r\nX-Injected: 1', '<script>alert(1)</script>', '__proto__', 'constructor',
  'prototype', 'toString', 'hasOwnProperty', '😀'.repeat(50), 'é', '\uffff', '\ud800', '192.168.1.1', '10.0.0.0/8', '::1',
  '192.168.1.1@4096', 'fe80::1%eth0', 'aa:bb:cc:dd:ee:ff', '1700000000', '-1700000000', 'x'.repeat(10_000), 'a,b,c', 'all',
  'desc', 'asc', 'flow', 'host', 'interface', 'tstat', 'IPV4_SRC_ADDR;eq', 'l7proto=7;eq,score=10;gte', ',,,;;;', '*', '%', '\\',
];
/** JSON bodies also get values of every JSON type. */
const JSON_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, [], [1, 'a'], {}, { a: { b: 1 } }, { __proto__x: 1 }, 'x'.repeat(5000)];
const EXTRA_NAMES = ['ifid', 'host', 'vlan', 'epoch_begin', 'epoch_end', 'currentPage', 'perPage', 'where', 'select_clause', 'undeclared', 'constructor'];

describe('REST parameter fuzz', () => {
  it('every URL of the route table, random and hostile values: no 5xx, always JSON, the service stays up', async () => {
    // FLOWGATE_FUZZ_ROUNDS / FLOWGATE_FUZZ_SEED: a longer or another storm by hand
    const rounds = Number(process.env.FLOWGATE_FUZZ_ROUNDS ?? 12);
    const rnd = mulberry32(Number(process.env.FLOWGATE_FUZZ_SEED ?? 20261126));
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];
    const failures: string[] = [];
    let requests = 0;
    for (const r of routes) {
      const names = [...new Set([...Object.keys(r.params), ...(r.ifid ? ['ifid'] : []), ...EXTRA_NAMES])];
      for (const { url } of routeUrls(r)) {
        for (let round = 0; round < rounds; round++) {
          // mostly the route's own parameters, each present with some probability
          const params: Record<string, unknown> = {};
          for (const n of names) if (rnd() < (Object.hasOwn(r.params, n) || n === 'ifid' ? 0.7 : 0.15)) params[n] = pick(HOSTILE);
          // ifid valid half the time, so the handlers behind the interface check are reached
          if (r.ifid && rnd() < 0.5) params.ifid = '0';
          const how = round % 3;
          const headers: Record<string, string> = { authorization: `Basic ${Buffer.from('admin:Adm1n-secret!').toString('base64')}` };
          let target = s.url + url, body: string | undefined, method = 'GET';
          if (how === 0) {
            const q = new URLSearchParams();
            for (const [k, v] of Object.entries(params)) q.append(k, String(v));
            target += `?${q}`;
          } else if (how === 1) {
            const q = new URLSearchParams();
            for (const [k, v] of Object.entries(params)) q.append(k, String(v));
            (method = 'POST'), (body = q.toString()), (headers['content-type'] = 'application/x-www-form-urlencoded');
          } else {
            const j: Record<string, unknown> = {};
            for (const [k, v] of Object.entries(params)) j[k] = rnd() < 0.5 ? v : pick(JSON_VALUES);
            (method = 'POST'), (body = JSON.stringify(j)), (headers['content-type'] = 'application/json');
          }
          const res = await fetch(target, { method, headers, body });
          const text = await res.text();
          requests++;
          let json = true;
          try {
            JSON.parse(text);
          } catch {
            json = false;
          }
          // the one non-JSON answer: a PCAP extraction that succeeded (a valid window can come up)
          if (res.status === 200 && res.headers.get('content-type') === 'application/vnd.tcpdump.pcap') json = true;
          // 431: node's HTTP parser refuses a request line over 16 KB before the service sees it (no body)
          if (res.status >= 500 || (!json && res.status !== 431)) failures.push(`${res.status} ${method} ${url} ${(body ?? target.slice(target.indexOf('?'))).slice(0, 300)}: ${text.slice(0, 200)}`);
        }
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(requests).toBeGreaterThan(1000);
    const after = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(after.body.rc).toBe(0);
    expect(after.body.rsp.packets).toBeGreaterThan(0);
  }, 300_000);
});

describe('egress API fuzz', () => {
  it('every path form with hostile segments and parameters: 200, 400 or 404 with a JSON reason, never 5xx', async () => {
    const rnd = mulberry32(Number(process.env.FLOWGATE_FUZZ_SEED ?? 20261126));
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];
    // raw bad escapes too (a path is decoded by the router)
    const seg = () => (rnd() < 0.3 ? pick(['%zz', '%', '%00', '..', '%2F', '%C0%AF']) : encodeURIComponent(pick(HOSTILE).replace(/[\ud800-\udfff]/g, '\ufffd').slice(0, 2000)));
    const auth = `Basic ${Buffer.from(`${USER[0]}:${USER[1]}`).toString('base64')}`;
    const failures: string[] = [];
    const shapes = [
      () => `/egress/${pick(['aggregated', 'balanced', 'bridge'])}/default`,
      () => `/egress/aggregated/${pick(['0', '1', '2', '-1', '99999999999999999999', seg()])}/${pick(['default', 'ip'])}`,
      () => `/egress/${pick(['aggregated', 'balanced', 'bridge', seg()])}/ip`,
      () => `/egress/${pick(['aggregated', 'balanced', 'bridge'])}/protocol/${pick(['TLS', 'HTTP.Google', 'YouTube', seg()])}`,
      () => `/egress/${seg()}/${seg()}/${seg()}`,
    ];
    for (let round = 0; round < 600; round++) {
      const q = new URLSearchParams();
      if (rnd() < 0.7) q.append('action', pick(['forward', 'discard', 'shunt', 'slice-l4', 'slice-l3', ...HOSTILE]));
      if (rnd() < 0.7) q.append('subnet', pick(['10.0.0.0/8', '::/0', '192.168.1.1', ...HOSTILE]));
      if (rnd() < 0.2) q.append(pick(HOSTILE), pick(HOSTILE));
      const path = `${pick(shapes)()}?${q}`;
      const res = await fetch(egress.url + path, { headers: { authorization: auth } });
      const text = await res.text();
      let json = true;
      try {
        JSON.parse(text);
      } catch {
        json = false;
      }
      if (res.status >= 500 || (!json && res.status !== 431) || ![200, 400, 404, 431].includes(res.status)) failures.push(`${res.status} ${path.slice(0, 300)}: ${text.slice(0, 200)}`);
    }
    expect(failures.slice(0, 20)).toEqual([]);
    // still answering, the rules it took in force
    const r = await fetch(`${egress.url}/egress/bridge/default`, { headers: { authorization: auth } });
    expect(r.status).toBe(200);
  }, 120_000);
});
