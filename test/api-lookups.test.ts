// Lookups: get/dns/resolve against the system resolver's own answer (names
// from /etc/hosts, addresses, URL and host:port forms, -9 for a name under
// the reserved .invalid TLD, RFC 6761), and the category list against the
// engine's registry.
import { lookup } from 'node:dns/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { startOnOnePacket, v2, type ApiService } from './fixtures/api.js';

let s: ApiService & { cleanup(): Promise<void> };
beforeAll(async () => {
  s = await startOnOnePacket();
});
afterAll(() => s.cleanup());

describe('get/dns/resolve', () => {
  it('answers what getaddrinfo answers, IPv4 first; the host of a URL or host:port', async () => {
    const want = (await lookup('localhost', { family: 4 })).address;
    for (const hostname of ['localhost', 'http://localhost:3000/lua/index.lua', 'localhost:8080', '127.0.0.7']) {
      const r = await s.call(v2('get/dns/resolve'), { query: { hostname } });
      expect([hostname, r.body.rc, r.body.rsp]).toEqual([hostname, 0, hostname === '127.0.0.7' ? '127.0.0.7' : want]);
    }
    const six = await s.call(v2('get/dns/resolve'), { query: { hostname: '::1' } });
    expect([six.body.rc, six.body.rsp]).toEqual([0, '::1']);
  });

  it('-9 for a name that cannot resolve, -5 without one', async () => {
    const r = await s.call(v2('get/dns/resolve'), { query: { hostname: 'no-such-host.invalid' } });
    expect([r.status, r.body.rc, r.body.rc_str]).toEqual([400, -9, 'NAME_RESOLUTION_FAILED']);
    expect((await s.call(v2('get/dns/resolve'))).body.rc).toBe(-5);
  });
});

describe('get/l7/category/consts', () => {
  it("ntopng's labels, ids and each category's applications, as the category list counts them", async () => {
    const r = await s.call(v2('get/l7/category/consts'));
    expect(r.body.rc).toBe(0);
    const dpi = Engine.info().dpi;
    const banned = dpi.categories.find((c) => c.name === 'Banned_Site')!;
    expect(r.body.rsp.find((x: any) => x.cat_id === banned.id).name).toBe('Banned Site');
    const list = (await s.call(v2('get/category/list'), { query: { ifid: 0 } })).body.rsp;
    for (const c of r.body.rsp) {
      const want = dpi.protocols.filter((p) => p.category === c.cat_id).map((p) => p.id).sort((a, b) => a - b);
      expect(c.app_list.map((a: any) => a.id).sort((a: number, b: number) => a - b), c.name).toEqual(want);
      const names = c.app_list.map((a: any) => a.name.toLowerCase());
      expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
      const row = list.find((x: any) => x.column_category_id === c.cat_id);
      expect(row.column_num_protos).toContain(`>${want.length}</a>`);
    }
  });
});

describe('get/l4/protocol/consts', () => {
  it("ntopng's l4_keys: every protocol a flow is named by (Utils::l4proto2name) is listed, EIGRP, L2TP and SCTP included", async () => {
    const r = await s.call(v2('get/l4/protocol/consts'));
    expect(r.body.rc).toBe(0);
    const byName = new Map(r.body.rsp.map((x: any) => [x.name, x.id]));
    for (const [name, id] of [['EIGRP', 88], ['L2TP', 115], ['SCTP', 132], ['HIP', 139], ['VRRP', 112], ['IPv6-ICMP', 58], ['Other IP', -1]] as const) expect(byName.get(name), name).toBe(id);
    expect(r.body.rsp.every((x: any) => x.other === x.name.toLowerCase().replace(/[- ]/g, (c: string) => (c === ' ' ? '_' : '')))).toBe(true);
    // the flow filter takes them by key
    const f = await s.call(v2('get/flow/active'), { query: { ifid: 0, l4proto: 'sctp' } });
    expect([f.body.rc, f.body.rsp.totalRows]).toEqual([0, 0]);
  });
});

describe('get/category/list', () => {
  it('one record per nDPI category, with the number of protocols the registry files under it', async () => {
    const r = await s.call(v2('get/category/list'), { query: { ifid: 0 } });
    expect(r.body.rc).toBe(0);
    const dpi = Engine.info().dpi;
    // ntopng's labels (locales/en.lua ndpi_categories) where they differ from nDPI's names
    const label: Record<string, string> = { Banned_Site: 'Banned Site', Allowed_Site: 'Allowed Site', Site_Unavailable: 'Site Unavailable' };
    expect(r.body.rsp.map((x: any) => [x.column_category_id, x.column_category_name])).toEqual(dpi.categories.map((c) => [c.id, label[c.name] ?? c.name]));
    const web = r.body.rsp.find((x: any) => x.column_category_name === 'Web');
    const n = dpi.protocols.filter((p) => p.category === web.column_category_id).length;
    expect(n).toBeGreaterThan(5);
    expect(web.column_num_protos).toBe(`<a href="/lua/admin/edit_categories?tab=protocols&category=cat_${web.column_category_id}">${n}</a>`);
    expect((await s.call(v2('get/category/list'))).body.rc).toBe(-2);
  });
});
