// ntopng's own flow checks on a flow's record (services/checks/flow-record-checks.ts):
// every condition's forms, then hand-built expired-flow records through the flow sink into
// DuckDB: the stored alert columns (STATUS, SCORE, SEVERITY, ALERT_CATEGORY, ALERTS_MAP)
// must be what ntopng's scores and ids give, worked out by hand below; a disabled check and
// an exclusion take their alert away.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, expiredLayout } from '../ts/bindings/engine.js';
import { alertRoles, setEnabledRisks } from '../ts/services/alerts/catalogue.js';
import { setFlowExclusions } from '../ts/services/alerts/exclusion-table.js';
import {
  BIT_BLACKLISTED,
  BIT_BLACKLISTED_CLIENT_CONTACT,
  BIT_BLACKLISTED_SERVER_CONTACT,
  BIT_BROADCAST_NON_UDP,
  BIT_REMOTE_ACCESS,
  BIT_REMOTE_TO_REMOTE,
  BIT_REMOTE_TO_LOCAL_INSECURE,
  BIT_TCP_FLOW_RESET,
  BIT_VLAN_BIDIRECTIONAL,
  BIT_WEB_MINING,
  INSECURE_BREEDS,
  recordCheckBits,
  setInsecureProtocols,
  setFlowCheckParams,
  flowCheckParams,
  BIT_TCP_PACKETS_ISSUES,
  BIT_TCP_NO_DATA,
  BIT_ZERO_TCP_WINDOW,
  TCP_DATA,
  TCP_ZERO_WINDOW,
  type RecordFacts,
  BIT_UNEXPECTED_DNS,
  BIT_UNEXPECTED_DHCP,
  BIT_UNEXPECTED_NTP,
  BIT_UNEXPECTED_SMTP,
  BIT_BLACKLISTED_COUNTRY,
  BIT_LOW_GOODPUT,
  BIT_NOT_PURGED,
  TCP_NOT_PURGED,
  countryHits,
} from '../ts/services/checks/flow-record-checks.js';
import { NetworkConfigError, parseServerList } from '../ts/services/checks/network-config.js';
import type { Backend } from '../ts/services/store/backend.js';
import { useRecordLayout } from '../ts/services/store/flow-batch.js';
import { FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { FlowSink } from '../ts/services/store/flow-sink.js';
import { openStoreInThread } from '../ts/services/store/index.js';

const dpi = Engine.info().dpi;
const protoId = (name: string) => dpi.protocols.find((p) => p.name === name)!.id;
const protoCat = (name: string) => dpi.protocols.find((p) => p.name === name)!.category;
const INSECURE = dpi.protocols.filter((p) => INSECURE_BREEDS.has(p.breed)).map((p) => p.id);
const TELNET = protoId('Telnet'), HTTP = protoId('HTTP'), DNS = protoId('DNS');
const SYN = 0x02, RST = 0x04, ACK = 0x10, FIN = 0x01;
const REMOTE = 0, LOCAL = 1;

const base: RecordFacts = { proto: 6, l7: HTTP, category: 5, cliLocation: LOCAL, srvLocation: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK, srvBroadcast: false, vlan: 0, bidirectional: true, packets: 100, retr: 0, ooo: 0, lost: 0, tcpState: TCP_DATA, goodputPct: 90, blacklisted: 0, end: true, cliBroadcast: false,
  lower: HTTP, cliPort: 40000, srvPort: 80, cliPkts: 50, srvPkts: 50, cliCountry: 0, srvCountry: 0, buf: new Uint8Array(32), cliIpAt: 0, srvIpAt: 16,
  master: 0, app: HTTP, devtypes: 0, cliMacOk: true, srvMacOk: true };
const bits = (f: Partial<RecordFacts>) => recordCheckBits({ ...base, ...f });

describe('the record checks, form by form', () => {
  beforeAll(() => setInsecureProtocols(INSECURE));

  it('the registry has the breeds the insecure check needs (Telnet is Unsafe, HTTP and DNS are not)', () => {
    expect(INSECURE).toContain(TELNET);
    expect(INSECURE).not.toContain(HTTP);
    expect(INSECURE).not.toContain(DNS);
  });

  it('remote access: Remote Access, VPN and File Sharing categories, unless local to local', () => {
    for (const category of [12, 2, 29]) {
      expect(bits({ category }) & BIT_REMOTE_ACCESS).toBe(BIT_REMOTE_ACCESS);
      expect(bits({ category, cliLocation: REMOTE, srvLocation: LOCAL }) & BIT_REMOTE_ACCESS).toBe(BIT_REMOTE_ACCESS);
      expect(bits({ category, cliLocation: LOCAL, srvLocation: LOCAL }) & BIT_REMOTE_ACCESS).toBe(0);
    }
    expect(bits({ category: 5 }) & BIT_REMOTE_ACCESS).toBe(0);
  });

  it('web mining: the Mining category only', () => {
    expect(bits({ category: 99 })).toBe(BIT_WEB_MINING);
    expect(bits({ category: 100 }) & BIT_WEB_MINING).toBe(0);
  });

  it('broadcast non-UDP: any protocol but UDP to a broadcast server', () => {
    for (const proto of [6, 1, 2, 47]) expect(bits({ proto, srvBroadcast: true, cliFlags: 0, srvFlags: 0 }) & BIT_BROADCAST_NON_UDP).toBe(BIT_BROADCAST_NON_UDP);
    expect(bits({ proto: 17, srvBroadcast: true }) & BIT_BROADCAST_NON_UDP).toBe(0);
    expect(bits({ proto: 6, srvBroadcast: false }) & BIT_BROADCAST_NON_UDP).toBe(0);
  });

  it('TCP reset: a RST either way on TCP (REJ, RSTO, RSTR, RSTOS0, RSTRH, resets only), never on other protocols', () => {
    const forms: [number, number][] = [
      [SYN, RST | ACK], // REJ
      [SYN | ACK | RST, SYN | ACK], // RSTO
      [SYN | ACK, SYN | ACK | RST], // RSTR
      [SYN | RST, 0], // RSTOS0
      [0, SYN | ACK | RST], // RSTRH
      [RST, 0], // resets only
    ];
    for (const [cliFlags, srvFlags] of forms) expect(bits({ cliFlags, srvFlags }) & BIT_TCP_FLOW_RESET).toBe(BIT_TCP_FLOW_RESET);
    expect(bits({ cliFlags: SYN | ACK | FIN, srvFlags: SYN | ACK | FIN }) & BIT_TCP_FLOW_RESET).toBe(0);
    expect(bits({ proto: 17, cliFlags: RST, srvFlags: RST }) & BIT_TCP_FLOW_RESET).toBe(0);
  });

  it('remote to local insecure: remote client, local server, detected, established, insecure breed or malware/banned category', () => {
    const r2l = { cliLocation: REMOTE, srvLocation: LOCAL } as const;
    expect(bits({ ...r2l, l7: TELNET }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(BIT_REMOTE_TO_LOCAL_INSECURE);
    expect(bits({ ...r2l, l7: HTTP, category: 100 }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(BIT_REMOTE_TO_LOCAL_INSECURE);
    expect(bits({ ...r2l, l7: HTTP, category: 102 }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(BIT_REMOTE_TO_LOCAL_INSECURE);
    expect(bits({ ...r2l, l7: HTTP }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(0);
    // not remote to local
    expect(bits({ l7: TELNET }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(0);
    expect(bits({ l7: TELNET, cliLocation: LOCAL, srvLocation: LOCAL }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(0);
    // not established: no SYN-ACK from the server, or no ACK from the client
    expect(bits({ ...r2l, l7: TELNET, srvFlags: RST | ACK, cliFlags: SYN }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(0);
    expect(bits({ ...r2l, l7: TELNET, cliFlags: SYN }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(0);
    // not TCP: no handshake needed; undetected: nothing
    expect(bits({ ...r2l, proto: 17, l7: protoId('TFTP'), cliFlags: 0, srvFlags: 0 }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(INSECURE.includes(protoId('TFTP')) ? BIT_REMOTE_TO_LOCAL_INSECURE : 0);
    expect(bits({ ...r2l, l7: 0, category: 100 }) & BIT_REMOTE_TO_LOCAL_INSECURE).toBe(0);
  });
});

/** 32 record bytes: the client's then the server's 16-byte address (IPv4 as ::ffff:a.b.c.d) */
function addrs(cli: string, srv: string): Uint8Array {
  const one = (ip: string) => {
    const b = new Uint8Array(16);
    if (ip.includes(':')) {
      const [h, t = ''] = ip.split('::');
      const w = (x: string) => (x ? x.split(':').map((y) => parseInt(y, 16)) : []);
      const all = [...w(h), ...new Array(8 - w(h).length - w(t).length).fill(0), ...w(t)];
      all.forEach((v, i) => ((b[2 * i] = v >> 8), (b[2 * i + 1] = v & 0xff)));
    } else {
      b[10] = b[11] = 0xff;
      ip.split('.').forEach((x, i) => (b[12 + i] = Number(x)));
    }
    return b;
  };
  const out = new Uint8Array(32);
  out.set(one(cli), 0);
  out.set(one(srv), 16);
  return out;
}

describe('blacklists', () => {
  const BL_CLI = 1, BL_SRV = 2, MALWARE = 100;
  it('blacklisted: a Malware flow whose ends are not blacklisted addresses (the category came from a name)', () => {
    expect(bits({ category: MALWARE }) & BIT_BLACKLISTED).toBe(BIT_BLACKLISTED);
    for (const blacklisted of [BL_CLI, BL_SRV, BL_CLI | BL_SRV]) expect(bits({ category: MALWARE, blacklisted }) & BIT_BLACKLISTED).toBe(0);
    expect(bits({ category: 5 }) & BIT_BLACKLISTED).toBe(0);
  });

  it('client contact: a blacklisted client reaching a local server from outside, and nothing else', () => {
    expect(bits({ blacklisted: BL_CLI, cliLocation: REMOTE, srvLocation: LOCAL }) & BIT_BLACKLISTED_CLIENT_CONTACT).toBe(BIT_BLACKLISTED_CLIENT_CONTACT);
    expect(bits({ blacklisted: BL_CLI, cliLocation: REMOTE, srvLocation: REMOTE }) & BIT_BLACKLISTED_CLIENT_CONTACT).toBe(0);
    expect(bits({ blacklisted: BL_CLI, cliLocation: LOCAL, srvLocation: LOCAL }) & BIT_BLACKLISTED_CLIENT_CONTACT).toBe(0);
    expect(bits({ blacklisted: BL_SRV, cliLocation: REMOTE, srvLocation: LOCAL }) & BIT_BLACKLISTED_CLIENT_CONTACT).toBe(0);
  });

  it('server contact: a local client reaching a blacklisted remote server, and nothing else', () => {
    expect(bits({ blacklisted: BL_SRV, cliLocation: LOCAL, srvLocation: REMOTE }) & BIT_BLACKLISTED_SERVER_CONTACT).toBe(BIT_BLACKLISTED_SERVER_CONTACT);
    expect(bits({ blacklisted: BL_SRV, cliLocation: REMOTE, srvLocation: REMOTE }) & BIT_BLACKLISTED_SERVER_CONTACT).toBe(0);
    expect(bits({ blacklisted: BL_SRV, cliLocation: LOCAL, srvLocation: LOCAL }) & BIT_BLACKLISTED_SERVER_CONTACT).toBe(0);
    expect(bits({ blacklisted: BL_CLI, cliLocation: LOCAL, srvLocation: REMOTE }) & BIT_BLACKLISTED_SERVER_CONTACT).toBe(0);
  });
});

describe('attacker and victim of the predominant alert (alertRoles: 1 cli attacker, 2 cli victim, 4 srv attacker, 8 srv victim)', () => {
  it("as ntopng's checks set them: broadcast non-UDP, remote-to-local insecure, the blacklist contacts; risk alerts none", () => {
    expect(alertRoles(67, 0)).toBe(1);
    expect(alertRoles(38, 0)).toBe(1 | 8);
    expect(alertRoles(9, 1)).toBe(1 | 8);
    expect(alertRoles(9, 3)).toBe(1 | 4);
    expect(alertRoles(13, 2)).toBe(1 | 4);
    expect(alertRoles(13, 3)).toBe(1 | 4);
    for (const riskAlert of [26, 42, 88]) expect(alertRoles(riskAlert, 3)).toBe(0);
    expect(alertRoles(0, 0)).toBe(0);
  });
});

describe('country check (BlacklistedCountry: alert blacklisted_country, 2)', () => {
  // ntopng's country code: the two letters as a u16, first letter high
  const cc = (s: string) => (s.charCodeAt(0) << 8) | s.charCodeAt(1);
  afterAll(() => setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] }));
  it('either end in a listed country; nothing while the list is empty; codes in any case, others ignored', () => {
    setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1], countries: [] });
    expect(bits({ cliCountry: cc('IT'), srvCountry: cc('CN') }) & BIT_BLACKLISTED_COUNTRY).toBe(0);
    setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1], countries: ['cn', ' RU ', 'X', 7, 'ITA'] });
    expect(bits({ cliCountry: cc('IT'), srvCountry: cc('CN') }) & BIT_BLACKLISTED_COUNTRY).toBe(BIT_BLACKLISTED_COUNTRY);
    expect(bits({ cliCountry: cc('RU'), srvCountry: cc('US') }) & BIT_BLACKLISTED_COUNTRY).toBe(BIT_BLACKLISTED_COUNTRY);
    expect(bits({ cliCountry: cc('IT'), srvCountry: cc('US') }) & BIT_BLACKLISTED_COUNTRY).toBe(0);
    // private or unknown addresses have no country (0)
    expect(bits({ cliCountry: 0, srvCountry: 0 }) & BIT_BLACKLISTED_COUNTRY).toBe(0);
    expect(countryHits({ cliCountry: cc('RU'), srvCountry: cc('CN') })).toBe(3);
    expect(countryHits({ cliCountry: cc('RU'), srvCountry: 0 })).toBe(1);
    expect(countryHits({ cliCountry: 0, srvCountry: cc('CN') })).toBe(2);
  });
  it('the list comes from the check\'s script_conf items', () => {
    const p = flowCheckParams((key) => (key === 'country_check' ? { items: ['DE'] } : {}));
    expect(p.countries).toEqual(['DE']);
  });
  it('roles as BlacklistedCountry::buildAlert: a listed client alone is attacker of a victim server, else both attackers', () => {
    expect(alertRoles(2, 0, 1)).toBe(1 | 8);
    expect(alertRoles(2, 0, 2)).toBe(1 | 4);
    expect(alertRoles(2, 0, 3)).toBe(1 | 4);
  });
});

describe('remote to remote', () => {
  it('neither end local, both unicast', () => {
    expect(bits({ cliLocation: REMOTE, srvLocation: REMOTE }) & BIT_REMOTE_TO_REMOTE).toBe(BIT_REMOTE_TO_REMOTE);
    for (const [c, s] of [[LOCAL, REMOTE], [REMOTE, LOCAL], [LOCAL, LOCAL], [REMOTE, 2]]) expect(bits({ cliLocation: c, srvLocation: s }) & BIT_REMOTE_TO_REMOTE, `${c}→${s}`).toBe(0);
    expect(bits({ cliLocation: REMOTE, srvLocation: REMOTE, srvBroadcast: true }) & BIT_REMOTE_TO_REMOTE).toBe(0);
    expect(bits({ cliLocation: REMOTE, srvLocation: REMOTE, cliBroadcast: true }) & BIT_REMOTE_TO_REMOTE).toBe(0);
  });
});

describe('unexpected DNS, DHCP, NTP and SMTP servers', () => {
  const NTP = protoId('NTP'), DHCP = protoId('DHCP'), SMTP = protoId('SMTP'), SMTPS = protoId('SMTPS');
  const allow = (o: { dns?: string; dhcp?: string; ntp?: string; smtp?: string }) =>
    setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1], servers: { dns: parseServerList(o.dns ?? ''), dhcp: parseServerList(o.dhcp ?? ''), ntp: parseServerList(o.ntp ?? ''), smtp: parseServerList(o.smtp ?? '') } });
  afterAll(() => setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] }));
  const dnsTo = (srv: string, f: Partial<RecordFacts> = {}) =>
    bits({ proto: 17, l7: DNS, lower: DNS, category: 14, cliPort: 40000, srvPort: 53, cliPkts: 1, srvPkts: 1, buf: addrs('10.0.0.5', srv), ...f }) & BIT_UNEXPECTED_DNS;

  it('DNS: a server that answered and is not listed (an empty list allows none)', () => {
    allow({});
    expect(dnsTo('8.8.8.8')).toBe(BIT_UNEXPECTED_DNS);
    // no answer: nothing shows a server at work
    expect(dnsTo('8.8.8.8', { srvPkts: 0 })).toBe(0);
    allow({ dns: ' 8.8.8.8 , 1.1.1.0/24' });
    expect(dnsTo('8.8.8.8')).toBe(0);
    expect(dnsTo('1.1.1.1')).toBe(0);
    expect(dnsTo('1.1.2.1')).toBe(BIT_UNEXPECTED_DNS);
    // the VLAN after @ must match the flow's
    allow({ dns: '9.9.9.9@10, 2001:db8::/32' });
    expect(dnsTo('9.9.9.9')).toBe(BIT_UNEXPECTED_DNS);
    expect(dnsTo('9.9.9.9', { vlan: 10 })).toBe(0);
    expect(dnsTo('2001:db8:1::53', { buf: addrs('fd00::5', '2001:db8:1::53') })).toBe(0);
    expect(dnsTo('2001:db9::53', { buf: addrs('fd00::5', '2001:db9::53') })).toBe(BIT_UNEXPECTED_DNS);
    // the server is the port-53 end: here the record's client (it spoke first, from port 53)
    allow({ dns: '10.0.0.5' });
    expect(dnsTo('8.8.8.8', { cliPort: 53, srvPort: 40000, srvPkts: 0 })).toBe(0);
    allow({});
    expect(dnsTo('8.8.8.8', { cliPort: 53, srvPort: 40000, srvPkts: 0 })).toBe(BIT_UNEXPECTED_DNS);
    // not on port 53 (DNS elsewhere): no server end to judge
    expect(dnsTo('8.8.8.8', { srvPort: 5353 })).toBe(0);
  });

  it('DHCP: the port-67 end, unless it is a broadcast address', () => {
    const dhcp = (cli: string, srv: string, f: Partial<RecordFacts>) =>
      bits({ proto: 17, l7: DHCP, lower: DHCP, category: 14, cliPkts: 1, srvPkts: 0, buf: addrs(cli, srv), ...f }) & BIT_UNEXPECTED_DHCP;
    allow({ dhcp: '192.168.1.1' });
    // an offer from the listed server, and from a rogue one, to the broadcast address
    expect(dhcp('192.168.1.1', '255.255.255.255', { cliPort: 67, srvPort: 68, srvBroadcast: true })).toBe(0);
    expect(dhcp('192.168.1.66', '255.255.255.255', { cliPort: 67, srvPort: 68, srvBroadcast: true })).toBe(BIT_UNEXPECTED_DHCP);
    // a discover to the broadcast address: the server end is broadcast
    expect(dhcp('0.0.0.0', '255.255.255.255', { cliPort: 68, srvPort: 67, srvBroadcast: true, cliBroadcast: true })).toBe(0);
    // a renewal to a server that answered / did not
    expect(dhcp('192.168.1.20', '192.168.1.66', { cliPort: 68, srvPort: 67, srvPkts: 1 })).toBe(BIT_UNEXPECTED_DHCP);
    expect(dhcp('192.168.1.20', '192.168.1.66', { cliPort: 68, srvPort: 67, srvPkts: 0 })).toBe(0);
  });

  it('NTP (answered) and SMTP / SMTPS (both ways)', () => {
    allow({ ntp: '10.0.0.123', smtp: '10.0.0.25' });
    const ntp = (srv: string, srvPkts: number) => bits({ proto: 17, l7: NTP, lower: NTP, category: 14, srvPort: 123, srvPkts, buf: addrs('10.0.0.5', srv) }) & BIT_UNEXPECTED_NTP;
    expect(ntp('10.0.0.123', 1)).toBe(0);
    expect(ntp('129.6.15.28', 1)).toBe(BIT_UNEXPECTED_NTP);
    expect(ntp('129.6.15.28', 0)).toBe(0);
    const smtp = (l7: number, srv: string, srvPkts: number) => bits({ proto: 6, l7, lower: l7, category: 3, srvPort: 25, srvPkts, buf: addrs('10.0.0.5', srv) }) & BIT_UNEXPECTED_SMTP;
    expect(smtp(SMTP, '10.0.0.25', 5)).toBe(0);
    expect(smtp(SMTP, '203.0.113.7', 5)).toBe(BIT_UNEXPECTED_SMTP);
    expect(smtp(SMTPS, '203.0.113.7', 5)).toBe(BIT_UNEXPECTED_SMTP);
    expect(smtp(SMTP, '203.0.113.7', 0)).toBe(0);
    // another protocol on those ports raises none of them
    expect(bits({ proto: 6, srvPort: 25, buf: addrs('10.0.0.5', '203.0.113.7') }) & (BIT_UNEXPECTED_SMTP | BIT_UNEXPECTED_DNS | BIT_UNEXPECTED_NTP | BIT_UNEXPECTED_DHCP)).toBe(0);
  });

  it('lists: addresses or CIDRs with an optional @VLAN, spaces ignored; a bad entry is named', () => {
    expect(parseServerList(' 10.0.0.1 , 10.1.0.0/16@7,,2001:db8::1 ')).toEqual([
      { vlan: 0, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, 1], prefix: 128 },
      { vlan: 7, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 1, 0, 0], prefix: 112 },
      { vlan: 0, bytes: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], prefix: 128 },
    ]);
    expect(() => parseServerList('10.0.0.1,dns.example')).toThrow(NetworkConfigError);
    expect(() => parseServerList('10.0.0.1@4096')).toThrow(/VLAN/);
    expect(() => parseServerList('10.0.0.0/33')).toThrow(/not an address/);
  });
});

describe('VLAN bidirectional traffic', () => {
  afterAll(() => setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] }));

  it('only on a listed VLAN (numbers or numeric strings), bytes both ways, to a remote unicast server', () => {
    setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] });
    expect(bits({ vlan: 10 }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
    setFlowCheckParams({ vlans: ['10', 20, 'x', -1, 5000, ' 30 '], tcpIssues: [-1, -1, -1] });
    expect(bits({ vlan: 10 }) & BIT_VLAN_BIDIRECTIONAL).toBe(BIT_VLAN_BIDIRECTIONAL);
    expect(bits({ vlan: 20 }) & BIT_VLAN_BIDIRECTIONAL).toBe(BIT_VLAN_BIDIRECTIONAL);
    expect(bits({ vlan: 30 }) & BIT_VLAN_BIDIRECTIONAL).toBe(BIT_VLAN_BIDIRECTIONAL);
    expect(bits({ vlan: 0 }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
    expect(bits({ vlan: 11 }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
    // one way only; a local, multicast or broadcast server
    expect(bits({ vlan: 10, bidirectional: false }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
    expect(bits({ vlan: 10, srvLocation: LOCAL }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
    expect(bits({ vlan: 10, srvLocation: 2 }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
    expect(bits({ vlan: 10, srvBroadcast: true, proto: 17 }) & BIT_VLAN_BIDIRECTIONAL).toBe(0);
  });
});

describe('TCP zero window and no data exchanged', () => {
  it('zero window: the record says one was seen (outside FIN/RST), TCP only', () => {
    expect(bits({ tcpState: TCP_DATA | TCP_ZERO_WINDOW }) & BIT_ZERO_TCP_WINDOW).toBe(BIT_ZERO_TCP_WINDOW);
    expect(bits({ tcpState: TCP_ZERO_WINDOW, end: false }) & BIT_ZERO_TCP_WINDOW).toBe(BIT_ZERO_TCP_WINDOW);
    expect(bits({ tcpState: TCP_DATA }) & BIT_ZERO_TCP_WINDOW).toBe(0);
    expect(bits({ proto: 17, tcpState: TCP_ZERO_WINDOW }) & BIT_ZERO_TCP_WINDOW).toBe(0);
  });

  it('no data: a TCP flow that ended without a payload byte, between unicast endpoints', () => {
    expect(bits({ tcpState: 0 }) & BIT_TCP_NO_DATA).toBe(BIT_TCP_NO_DATA);
    expect(bits({ tcpState: TCP_ZERO_WINDOW }) & BIT_TCP_NO_DATA).toBe(BIT_TCP_NO_DATA);
    expect(bits({ tcpState: TCP_DATA }) & BIT_TCP_NO_DATA).toBe(0);
    // a snapshot of a live flow: not yet (ntopng checks at flow end)
    expect(bits({ tcpState: 0, end: false }) & BIT_TCP_NO_DATA).toBe(0);
    // multicast or broadcast either side, or not TCP
    expect(bits({ tcpState: 0, srvLocation: 2 }) & BIT_TCP_NO_DATA).toBe(0);
    expect(bits({ tcpState: 0, cliLocation: 2 }) & BIT_TCP_NO_DATA).toBe(0);
    expect(bits({ tcpState: 0, srvBroadcast: true }) & BIT_TCP_NO_DATA).toBe(0);
    expect(bits({ tcpState: 0, cliBroadcast: true }) & BIT_TCP_NO_DATA).toBe(0);
    expect(bits({ tcpState: 0, proto: 17 }) & BIT_TCP_NO_DATA).toBe(0);
  });
});

describe('not purged (NotPurged)', () => {
  it("raised by the engine's mark on the record (a flow held ten idle timeouts past its last packet), whatever else the flow is", () => {
    expect(bits({ tcpState: TCP_DATA | TCP_NOT_PURGED }) & BIT_NOT_PURGED).toBe(BIT_NOT_PURGED);
    expect(bits({ tcpState: TCP_NOT_PURGED, proto: 17 }) & BIT_NOT_PURGED).toBe(BIT_NOT_PURGED);
    expect(bits({ tcpState: TCP_DATA | TCP_ZERO_WINDOW }) & BIT_NOT_PURGED).toBe(0);
  });
});

describe('low goodput (LowGoodputFlow)', () => {
  it('TCP, handshake seen, more than 3 packets, 60 % goodput or less, an application not on the exemption list', () => {
    expect(bits({ goodputPct: 60 }) & BIT_LOW_GOODPUT).toBe(BIT_LOW_GOODPUT);
    expect(bits({ goodputPct: 0 }) & BIT_LOW_GOODPUT).toBe(BIT_LOW_GOODPUT);
    expect(bits({ goodputPct: 61 }) & BIT_LOW_GOODPUT).toBe(0);
    expect(bits({ goodputPct: 10, packets: 3 }) & BIT_LOW_GOODPUT).toBe(0);
    expect(bits({ goodputPct: 10, packets: 4 }) & BIT_LOW_GOODPUT).toBe(BIT_LOW_GOODPUT);
    expect(bits({ goodputPct: 10, proto: 17 }) & BIT_LOW_GOODPUT).toBe(0);
    // no handshake: the server never answered SYN+ACK, or the client never acknowledged
    expect(bits({ goodputPct: 10, srvFlags: ACK }) & BIT_LOW_GOODPUT).toBe(0);
    expect(bits({ goodputPct: 10, cliFlags: SYN }) & BIT_LOW_GOODPUT).toBe(0);
  });

  it("exempts ntopng's chatty applications, by the registry's names", () => {
    const exempt = ['MDNS', 'ntop', 'Signal', 'QQ', 'IRC', 'Telnet', 'SSH', 'WhatsApp', 'WhatsAppCall', 'WhatsAppFiles', 'Telegram', 'KakaoTalk', 'KakaoTalk_Voice', 'WeChat'];
    for (const name of exempt) expect(bits({ goodputPct: 10, l7: protoId(name) }) & BIT_LOW_GOODPUT, name).toBe(0);
    for (const name of ['HTTP', 'TLS', 'Skype_Teams']) expect(bits({ goodputPct: 10, l7: protoId(name) }) & BIT_LOW_GOODPUT, name).toBe(BIT_LOW_GOODPUT);
  });
});

describe('TCP packets issues', () => {
  afterAll(() => setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] }));

  it('reads the thresholds its script_conf enables, none by default', () => {
    const conf = (c: Record<string, unknown>) => (key: string) => (key === 'tcp_packets_issues' ? c : {});
    // the definition's default_value: no metric enabled
    expect(flowCheckParams(conf({ retransmissions: { default_value: 15 }, out_of_orders: { default_value: 15 }, packet_loss: { default_value: 15 } })).tcpIssues).toEqual([-1, -1, -1]);
    expect(
      flowCheckParams(conf({ retransmissions: { threshold: 10, enabled: 1 }, out_of_orders: { threshold: 20, enabled: 0 }, packet_loss: { threshold: '5', enabled: true } })).tcpIssues,
    ).toEqual([10, -1, 5]);
    expect(flowCheckParams(conf({ retransmissions: { threshold: 'x', enabled: 1 }, packet_loss: 7 })).tcpIssues).toEqual([-1, -1, -1]);
  });

  it('each enabled metric over its share of the packets raises it; at the threshold or disabled, nothing', () => {
    setFlowCheckParams({ vlans: [], tcpIssues: [10, 20, -1] });
    // 100 packets: 11 retransmissions is 11 % > 10
    expect(bits({ retr: 11 }) & BIT_TCP_PACKETS_ISSUES).toBe(BIT_TCP_PACKETS_ISSUES);
    expect(bits({ retr: 10 }) & BIT_TCP_PACKETS_ISSUES).toBe(0);
    expect(bits({ ooo: 21 }) & BIT_TCP_PACKETS_ISSUES).toBe(BIT_TCP_PACKETS_ISSUES);
    expect(bits({ ooo: 20 }) & BIT_TCP_PACKETS_ISSUES).toBe(0);
    // loss is not checked
    expect(bits({ lost: 90 }) & BIT_TCP_PACKETS_ISSUES).toBe(0);
    // the share is whole percent, rounded down: 21 of 200 is 10 %
    expect(bits({ packets: 200, retr: 21 }) & BIT_TCP_PACKETS_ISSUES).toBe(0);
    expect(bits({ packets: 200, retr: 22 }) & BIT_TCP_PACKETS_ISSUES).toBe(BIT_TCP_PACKETS_ISSUES);
    // the real count, not its low 8 bits as ntopng's cast takes it (300 would count as 44 of 2000)
    expect(bits({ packets: 2000, retr: 300 }) & BIT_TCP_PACKETS_ISSUES).toBe(BIT_TCP_PACKETS_ISSUES);
    expect(bits({ packets: 0, retr: 5 }) & BIT_TCP_PACKETS_ISSUES).toBe(0);
  });
});

// --------------------------------------------------------------- through the sink

const F = (k: string) => expiredLayout.fields[k]!.off;
const v4 = (a: number[]) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...a];
const T0 = Date.UTC(2024, 4, 1, 10) / 1000;

interface Spec {
  serial: number;
  cli: number[];
  srv: number[];
  proto: number;
  dport: number;
  app: number;
  category: number;
  cliLoc: number;
  srvLoc: number;
  cliFlags: number;
  srvFlags: number;
  srvMac?: number[];
  vlan?: number;
  retr?: number;
  /** the record's tcp_state (default: payload seen) */
  tcpState?: number;
  /** the record's goodput ratio (default 90 %) */
  goodputPct?: number;
}

function record(s: Spec): Uint8Array {
  const b = new Uint8Array(expiredLayout.size);
  const v = new DataView(b.buffer);
  b.set(v4(s.cli), F('cli_ip'));
  b.set(v4(s.srv), F('srv_ip'));
  v.setUint16(F('cli_port'), 40000 + s.serial, true);
  v.setUint16(F('srv_port'), s.dport, true);
  b[F('proto')] = s.proto;
  b[F('ip_version')] = 4;
  v.setBigUint64(F('first_ns'), BigInt(T0) * 1_000_000_000n, true);
  v.setBigUint64(F('last_ns'), BigInt(T0 + 2) * 1_000_000_000n, true);
  v.setUint32(F('cli2srv_pkts'), 3, true);
  v.setUint32(F('srv2cli_pkts'), 2, true);
  v.setBigUint64(F('cli2srv_bytes'), 300n, true);
  v.setBigUint64(F('srv2cli_bytes'), 200n, true);
  v.setUint32(F('serial'), s.serial, true);
  v.setUint16(F('l7_app'), s.app, true);
  v.setUint16(F('l7_category'), s.category, true);
  b[F('cli_location')] = s.cliLoc;
  b[F('srv_location')] = s.srvLoc;
  b[F('cli_flags')] = s.cliFlags;
  b[F('srv_flags')] = s.srvFlags;
  if (s.srvMac) b.set(s.srvMac, F('srv_mac'));
  v.setUint16(F('vlan'), s.vlan ?? 0, true);
  v.setUint32(F('retr'), s.retr ?? 0, true);
  b[F('tcp_state')] = s.tcpState ?? TCP_DATA;
  b[F('goodput_pct')] = s.goodputPct ?? 90;
  return b;
}

const RECS: Spec[] = [
  // 1: Telnet from the Internet to a local server, handshake done: remote to local insecure (38, 100)
  //    and, Telnet being Remote Access, remote access (57, 10)
  { serial: 1, cli: [198, 51, 100, 7], srv: [10, 0, 0, 9], proto: 6, dport: 23, app: TELNET, category: protoCat('Telnet'), cliLoc: REMOTE, srvLoc: LOCAL, cliFlags: SYN | ACK | FIN, srvFlags: SYN | ACK | FIN },
  // 2: local to local HTTP reset by the server: TCP flow reset (100, 10)
  { serial: 2, cli: [10, 0, 0, 2], srv: [10, 0, 0, 3], proto: 6, dport: 80, app: HTTP, category: 5, cliLoc: LOCAL, srvLoc: LOCAL, cliFlags: SYN, srvFlags: RST | ACK },
  // 3: ICMP to the limited broadcast: broadcast non-UDP (67, 100)
  { serial: 3, cli: [10, 0, 0, 4], srv: [255, 255, 255, 255], proto: 1, dport: 0, app: 0, category: 0, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: 0, srvFlags: 0 },
  // 4: UDP to the same broadcast: nothing
  { serial: 4, cli: [10, 0, 0, 4], srv: [255, 255, 255, 255], proto: 17, dport: 67, app: 0, category: 0, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: 0, srvFlags: 0 },
  // 5: a Mining flow out: web mining (27, 50)
  { serial: 5, cli: [10, 0, 0, 5], srv: [203, 0, 113, 50], proto: 6, dport: 3333, app: protoId('Mining'), category: 99, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK },
  // 6: TCP to a unicast address whose MAC is the broadcast MAC: broadcast non-UDP (67, 100)
  { serial: 6, cli: [10, 0, 0, 6], srv: [10, 0, 0, 255], proto: 6, dport: 445, app: 0, category: 0, cliLoc: LOCAL, srvLoc: LOCAL, cliFlags: SYN, srvFlags: 0, srvMac: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff] },
  // 7: HTTPS out on VLAN 10, bytes both ways: VLAN bidirectional (91, 100) once VLAN 10 is listed
  { serial: 7, cli: [10, 0, 0, 7], srv: [203, 0, 113, 80], proto: 6, dport: 443, app: 0, category: 5, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK, vlan: 10 },
  // 8: 2 of its 5 packets retransmitted (40 %): TCP packets issues (19, 100) once a threshold under 40 is enabled
  { serial: 8, cli: [10, 0, 0, 8], srv: [203, 0, 113, 81], proto: 6, dport: 443, app: 0, category: 5, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK, retr: 2 },
  // 9: a handshake and nothing else: TCP no data exchanged (56, 10, network)
  { serial: 9, cli: [10, 0, 0, 9], srv: [203, 0, 113, 82], proto: 6, dport: 443, app: 0, category: 0, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK, tcpState: 0 },
  // 10: data, and a zero window: TCP zero window (36, 10, network)
  { serial: 10, cli: [10, 0, 0, 10], srv: [203, 0, 113, 83], proto: 6, dport: 443, app: 0, category: 0, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK, tcpState: TCP_DATA | TCP_ZERO_WINDOW },
  // 11: handshake, 5 packets, 30 % goodput: low goodput (12, 10, network)
  { serial: 11, cli: [10, 0, 0, 11], srv: [203, 0, 113, 84], proto: 6, dport: 443, app: 0, category: 0, cliLoc: LOCAL, srvLoc: REMOTE, cliFlags: SYN | ACK, srvFlags: SYN | ACK, goodputPct: 30 },
];

// Expected columns, by hand: the flow score is the sum of the alerts' scores; STATUS the first
// highest; SEVERITY of that score (10 notice 3, 50 warning 4, 100 error 5); its category
// (security 1, network 3); ALERTS_MAP the alert-id bitmap in hex, leading zero bytes dropped.
type Cols = { STATUS: number; SCORE: number; SEVERITY: number; ALERT_CATEGORY: number; ALERTS_MAP: string };
const NONE: Cols = { STATUS: 0, SCORE: 0, SEVERITY: 0, ALERT_CATEGORY: 0, ALERTS_MAP: '' };
const ALL_ON: Cols[] = [
  { STATUS: 38, SCORE: 110, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '0200004000000000' }, // 2^57 + 2^38
  { STATUS: 100, SCORE: 10, SEVERITY: 3, ALERT_CATEGORY: 3, ALERTS_MAP: '10' + '0'.repeat(24) }, // 2^100
  { STATUS: 67, SCORE: 100, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '08' + '0'.repeat(16) }, // 2^67: 8 × 2^64, whole bytes
  NONE,
  { STATUS: 27, SCORE: 50, SEVERITY: 4, ALERT_CATEGORY: 1, ALERTS_MAP: '08000000' }, // 2^27
  { STATUS: 67, SCORE: 100, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '08' + '0'.repeat(16) },
  NONE, // VLAN 10 not listed
  NONE, // no TCP issue threshold enabled
  { STATUS: 56, SCORE: 10, SEVERITY: 3, ALERT_CATEGORY: 3, ALERTS_MAP: '0100000000000000' }, // 2^56
  { STATUS: 36, SCORE: 10, SEVERITY: 3, ALERT_CATEGORY: 3, ALERTS_MAP: '1000000000' }, // 2^36
  { STATUS: 12, SCORE: 10, SEVERITY: 3, ALERT_CATEGORY: 3, ALERTS_MAP: '1000' }, // 2^12
];

describe('record checks through the flow sink (DuckDB)', () => {
  let dir: string;
  let b: Backend;
  let runId = 1;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-rchk-'));
    b = await openStoreInThread({ dataDir: dir });
    await b.ensureTable(FLOWS_TABLE);
    useRecordLayout(expiredLayout);
  });
  afterAll(async () => {
    setEnabledRisks(-1, -1, -1);
    setFlowExclusions({});
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function write(): Promise<Cols[]> {
    const run = runId++;
    const sink = new FlowSink(b, { batchRows: 4, flushMs: 1000, maxQueued: 8, instanceName: 'test', insecureProtocols: INSECURE }, { counts: () => undefined, log: () => undefined });
    sink.attach(0, run, 1e9);
    const bytes = new Uint8Array(RECS.length * expiredLayout.size);
    RECS.forEach((s, i) => bytes.set(record(s), i * expiredLayout.size));
    sink.push(0, bytes, RECS.length);
    await sink.flush();
    sink.close();
    const rows = await b.query({
      sql: 'SELECT STATUS, SCORE, SEVERITY, ALERT_CATEGORY, ALERTS_MAP FROM flows WHERE FLOW_ID >= ? AND FLOW_ID < ? ORDER BY FLOW_ID',
      params: [run * 2 ** 32, (run + 1) * 2 ** 32],
    });
    return rows as unknown as Cols[];
  }

  it('stores the alerts, scores and predominant alert ntopng gives', async () => {
    expect(await write()).toEqual(ALL_ON);
  });

  it('a listed VLAN raises VLAN bidirectional traffic', async () => {
    setFlowCheckParams({ vlans: [10], tcpIssues: [-1, -1, -1] });
    const want = [...ALL_ON];
    want[6] = { STATUS: 91, SCORE: 100, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '08' + '0'.repeat(22) }; // 2^91
    expect(await write()).toEqual(want);
    setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] });
  });

  it('an enabled retransmission threshold under the flow\'s share raises TCP packets issues', async () => {
    setFlowCheckParams({ vlans: [], tcpIssues: [39, -1, -1] });
    const want = [...ALL_ON];
    want[7] = { STATUS: 19, SCORE: 100, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '080000' }; // 2^19
    expect(await write()).toEqual(want);
    setFlowCheckParams({ vlans: [], tcpIssues: [40, -1, -1] });
    expect(await write()).toEqual(ALL_ON);
    setFlowCheckParams({ vlans: [], tcpIssues: [-1, -1, -1] });
  });

  it('a disabled check raises nothing', async () => {
    // all risks, every own check but TCP flow reset and remote access
    setEnabledRisks(-1, -1, ~(BIT_TCP_FLOW_RESET | BIT_REMOTE_ACCESS));
    const want = [...ALL_ON];
    want[0] = { STATUS: 38, SCORE: 100, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '4000000000' }; // 2^38
    want[1] = NONE;
    expect(await write()).toEqual(want);
    setEnabledRisks(-1, -1, -1);
  });

  it('an exclusion of the server takes its alert away, for that host only', async () => {
    // remote access (57) excluded for 10.0.0.9, broadcast non-UDP (67) for 10.0.0.6 as a client
    setFlowExclusions({
      '10.0.0.9': { type: 'host', flow_alerts: [57], host_alerts: [] },
      '10.0.0.6': { type: 'host', flow_alerts: [67], host_alerts: [] },
    });
    const want = [...ALL_ON];
    want[0] = { STATUS: 38, SCORE: 100, SEVERITY: 5, ALERT_CATEGORY: 1, ALERTS_MAP: '4000000000' };
    want[5] = NONE;
    expect(await write()).toEqual(want);
    setFlowExclusions({});
  });
});
