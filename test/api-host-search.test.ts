// get/host/active network_cidr (ntopng's filter, the dashboard's host search):
// the hosts inside an address or CIDR, counted against the whole list
// filtered by hand; for a user with allowed networks, only what both allow.
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { narrowNetworks } from '../ts/services/cidr.js';
import { addUser, startApi, type ApiService } from './fixtures/api.js';
import { NDPI_PCAPS } from './fixtures/util.js';
import { join } from 'node:path';

const inside = (ip: string, cidr: string) => {
  const a = ipaddr.parse(ip);
  const [n, len] = ipaddr.parseCIDR(cidr);
  return a.kind() === n.kind() && a.match(n, len);
};

describe('get/host/active network_cidr', () => {
  let s: ApiService;
  let all: { ip: string }[];
  const active = async (query: Record<string, string | number>, user?: { user: string; pw: string }) =>
    (await s.call('/lua/rest/v2/get/host/active.lua', { query: { ifid: 0, all: 'true', ...query }, ...(user ?? {}) })).body;
  beforeAll(async () => {
    s = await startApi({ files: [join(NDPI_PCAPS, '1kxun.pcap')] });
    all = (await active({})).rsp.data;
    await addUser(s, { username: 'lan', password: 'pw-lan-12345', allowed_networks: '192.168.2.0/24,192.168.5.16/32' });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('lists the hosts inside the network, an address alone, or nothing outside', async () => {
    for (const cidr of ['192.168.0.0/16', '192.168.2.126', '172.16.0.0/12', 'fe80::/10', '10.0.0.0/8']) {
      const want = all.filter((h) => inside(h.ip, cidr.includes('/') ? cidr : `${cidr}/32`)).map((h) => h.ip).sort();
      const got = (await active({ network_cidr: cidr })).rsp;
      expect(got.data.map((h: { ip: string }) => h.ip).sort(), cidr).toEqual(want);
      expect(got.totalRows).toBe(want.length);
    }
    expect(all.filter((h) => inside(h.ip, '192.168.0.0/16')).length).toBeGreaterThan(1);
  });

  it('answers -5 for what is not an address or CIDR (never passed on)', async () => {
    for (const bad of ['not-a-network', '192.168.0.0/33', "1.2.3.4' OR 1=1", '010.0.0.0/8']) {
      const r = await active({ network_cidr: bad });
      expect(r.rc, bad).toBe(-5);
      expect(r.rc_str_detail).toMatch(/network_cidr/);
    }
  });

  it('for a user with allowed networks, only the hosts both allow', async () => {
    const lan = { user: 'lan', pw: 'pw-lan-12345' };
    const wide = (await active({ network_cidr: '192.168.0.0/16' }, lan)).rsp.data.map((h: { ip: string }) => h.ip).sort();
    const allowed = all.filter((h) => inside(h.ip, '192.168.2.0/24') || h.ip === '192.168.5.16').map((h) => h.ip).sort();
    expect(wide).toEqual(allowed);
    const narrow = (await active({ network_cidr: '192.168.2.126' }, lan)).rsp.data.map((h: { ip: string }) => h.ip);
    expect(narrow).toEqual(['192.168.2.126']);
    const outside = (await active({ network_cidr: '192.168.115.0/24' }, lan)).rsp;
    expect(outside.totalRows).toBe(0);
    expect(all.some((h) => inside(h.ip, '192.168.115.0/24'))).toBe(true);
  });

  it('narrows CIDR lists exactly (nested or apart)', () => {
    expect(narrowNetworks(undefined, '10.0.0.0/8')).toEqual(['10.0.0.0/8']);
    expect(narrowNetworks(['10.1.0.0/16', '192.168.0.0/16', '::/0'], '10.0.0.0/8')).toEqual(['10.1.0.0/16']);
    expect(narrowNetworks(['10.0.0.0/8'], '10.1.2.0/24')).toEqual(['10.1.2.0/24']);
    expect(narrowNetworks(['10.0.0.0/8'], '11.0.0.0/8')).toEqual([]);
    expect(narrowNetworks(['2001:db8::/32'], '2001:db8:1::/48')).toEqual(['2001:db8:1::/48']);
  });
});
