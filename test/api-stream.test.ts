// Large list answers (every host, flow pages of up to 100,000, custom data of
// every host) are written slice by slice from one snapshot of the tables:
// each must be exactly what the small pages say, in the same order, and
// another client must be answered while a large answer is still being
// written (the large one is not read meanwhile: what is written waits in the
// socket; the service must not build the rest of it first).
import { request } from 'node:http';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { generate, type GenResult } from '../bench/gen/generate.js';
import type { Cursor, FlowQuery } from '../ts/bindings/engine.js';
import { ADMIN_PASSWORD, startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('flowgate-stream-');
let s: ApiService;
let gen: GenResult;

beforeAll(async () => {
  const file = join(tmp.dir, 'many.pcap');
  gen = generate({ out: file, flows: 30_000, packets: 60_000, hosts: 6_000, seed: 11, durationSec: 30 });
  s = await startApi({ files: [file] });
}, 120_000);
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

/** Every page of a list in pages of `per` (the non-streamed path). */
async function paged(path: string, query: Record<string, string | number>, per: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let page = 1; ; page++) {
    const r = await s.call(path, { query: { ...query, perPage: per, currentPage: page } });
    expect(r.body.rc).toBe(0);
    out.push(...r.body.rsp.data);
    if (out.length >= r.body.rsp.totalRows || r.body.rsp.data.length === 0) return out;
  }
}

describe('large answers, streamed', () => {
  it('flow/active perPage=100000: the flows the capture holds, as the 1,000-row pages list them', async () => {
    const big = await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 100_000, sortColumn: 'bytes' } });
    expect(big.status).toBe(200);
    expect(big.headers.get('content-length')).toBeNull(); // chunked: written as it is built
    expect(big.body.rc).toBe(0);
    expect(big.body.rsp.totalRows).toBe(gen.flows);
    expect(big.body.rsp.data.length).toBe(gen.flows);
    expect({ ...big.body.rsp, data: [] }).toEqual({ perPage: 100_000, currentPage: 1, totalRows: gen.flows, data: [], sort: [['bytes', 'desc']] });
    // same sort as the paged answers (the replay is over: the tables stand still)
    expect(big.body.rsp.data).toEqual(await paged(v2('get/flow/active'), { ifid: 0, sortColumn: 'bytes' }, 1000));
  });

  it('host/active all=true, v1 and v2: every host once, as the pages list them', async () => {
    const pages = await paged(v2('get/host/active'), { ifid: 0 }, 1000);
    for (const path of [v1('get/host/active'), v2('get/host/active')]) {
      const all = await s.call(path, { query: { ifid: 0, all: true } });
      expect(all.body.rc).toBe(0);
      expect([all.body.rsp.perPage, all.body.rsp.currentPage]).toEqual(path.includes('/v2/') ? [-1, 0] : [0, 0]); // as ntopng's scripts set them
      expect(all.body.rsp.totalRows).toBe(all.body.rsp.data.length);
      expect(new Set(all.body.rsp.data.map((h: { key: string }) => h.key)).size).toBe(all.body.rsp.data.length);
      if (path.includes('/v2/')) expect(all.body.rsp.data).toEqual(pages);
      else expect(all.body.rsp.data.map((h: { ip: string }) => h.ip)).toEqual(pages.map((h) => (h as { ip: string }).ip));
    }
    // every client host the generator made, and its servers
    expect(pages.length).toBeGreaterThanOrEqual(gen.hosts);
  });

  it('host/custom_data of every host: one object per host, the fields asked for', async () => {
    const r = await s.call(v2('get/host/custom_data'), { query: { ifid: 0, field_alias: 'ip,vlan,bytes.sent=sent' } });
    expect(r.body.rc).toBe(0);
    const hostsNow = await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 1 } });
    expect(r.body.rsp.length).toBe(hostsNow.body.rsp.totalRows);
    for (const h of r.body.rsp.filter((_: unknown, i: number) => i % 97 === 0)) {
      expect(Object.keys(h).sort()).toEqual(['ip', 'sent', 'vlan']);
      const one = await s.call(v2('get/host/data'), { query: { ifid: 0, host: h.ip, vlan: h.vlan } });
      expect(one.body.rsp['bytes.sent']).toBe(h.sent);
    }
  });

  it('a streamed page past the end is valid JSON with an empty list', async () => {
    const r = await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 5000, currentPage: 1000 } });
    expect(r.body.rsp).toEqual({ perPage: 5000, currentPage: 1000, totalRows: gen.flows, data: [], sort: [['bytes', 'desc']] });
  });

  it('another client is answered while a large answer is still being written', async () => {
    const engine = s.ifaces.list[0].engine;
    const original = engine.flowsCursor.bind(engine);
    let taken = 0, size = 0;
    engine.flowsCursor = (q?: FlowQuery): Cursor<never> => {
      const c = original(q);
      size = c.size;
      return { ...c, next: (n: number) => { const rows = c.next(n); taken += rows.length; return rows as never[]; } };
    };
    try {
      // the large answer's body is not read until interface data has been answered
      const auth = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
      const url = new URL(`${s.url}${v2('get/flow/active')}?ifid=0&perPage=100000&verbose=true`);
      const big = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        const req = request(url, { headers: { authorization: auth } }, resolve);
        req.on('error', reject);
        req.end();
      });
      big.pause();
      const iface = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
      expect(iface.body.rc).toBe(0);
      expect(iface.body.rsp.num_flows).toBe(gen.flows);
      // answered with most of the large answer not yet built
      expect(size).toBe(gen.flows);
      expect(taken).toBeGreaterThan(0);
      expect(taken).toBeLessThan(size);
      let text = '';
      big.setEncoding('utf8');
      big.on('data', (d: string) => (text += d));
      big.resume();
      await new Promise((r) => big.on('end', r));
      expect(JSON.parse(text).rsp.data.length).toBe(gen.flows);
      expect(taken).toBe(size);
    } finally {
      engine.flowsCursor = original;
    }
  });
});
