// Active flow `key` and `hash_id` as ntopng derives them (Flow::key,
// IpAddress::compute_key, GenericHash::add), computed here by hand from the
// tuples written into the capture: IPv4 TCP, IPv6 UDP, a VLAN-tagged flow.
// The capture is replayed on two interfaces: hash_id carries the ifid.
// Server names as ntopng's flowinfo2hostname gives them: the flow's own
// name (DNS query, HTTP Host without its port) unless it is an address.
// Client and server of flows first seen mid-stream, as ntopng's
// Flow::check_swap decides them (TCP without a SYN: the higher port is the
// client; UDP as first seen).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, addr, eth, ipv4, ipv6, tcp, udp, vlanTag } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';
import { dns, dnsName } from './fixtures/apps.js';
import { tcpSession } from './fixtures/dissect.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

// [client, client port, server, server port, L4, VLAN], in the order the flows start
const FLOWS: [string, number, string, number, number, number][] = [
  ['192.168.1.1', 1234, '10.0.0.1', 80, IPPROTO.TCP, 0],
  ['2001:db8::1', 40000, '2001:db8:ffff::53', 53, IPPROTO.UDP, 0],
  ['172.16.5.4', 65535, '172.16.5.200', 8443, IPPROTO.TCP, 10],
];

beforeAll(async () => {
  const frames = FLOWS.map(([c, cp, sv, sp, l4, vlan], i) => {
    const l4b = l4 === IPPROTO.TCP ? tcp({ sport: cp, dport: sp, flags: TCPF.SYN, seq: 1 }) : udp({ sport: cp, dport: sp }, Buffer.from('q'));
    const ip = c.includes(':') ? ipv6({ src: c, dst: sv, next: l4 }, l4b) : ipv4({ src: c, dst: sv, proto: l4 }, l4b);
    const type = c.includes(':') ? ETH.IPV6 : ETH.IPV4;
    const data = vlan ? eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(vlan, type, ip)) : eth(MAC_B, MAC_A, type, ip);
    return { tsNs: sec(1_700_000_000 + i), data } as Packet;
  });
  // named flows: [client, server, what names it]
  const q = dns({ flags: 0x0100, questions: [{ name: dnsName(DNS_QUERY), type: 1 }] });
  frames.push({ tsNs: sec(1_700_000_010), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: NAMED.dns, dst: '192.168.50.53', proto: IPPROTO.UDP }, udp({ sport: 5353, dport: 53 }, q))) });
  const http = (cli: string, srv: string, host: string, at: number) =>
    tcpSession(cli, srv, 51000, 8080, [[true, Buffer.from(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`)], [false, Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')]])
      .forEach((data, i) => frames.push({ tsNs: sec(at) + BigInt(i) * 1000n, data }));
  // mid-stream: [first packet's source, its port, destination, its port, L4, TCP flags]
  MID.forEach(([src, sp, dst, dp, l4, flags], i) => {
    const l4b = l4 === IPPROTO.TCP ? tcp({ sport: sp, dport: dp, flags, seq: 100, ack: 200 }, Buffer.from('data')) : udp({ sport: sp, dport: dp }, Buffer.from('data'));
    frames.push({ tsNs: sec(1_700_000_020 + i), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: l4 }, l4b)) });
  });
  http(NAMED.http, '192.168.50.80', HTTP_HOST, 1_700_000_011);
  // another server, that no flow names
  http(NAMED.literal, '192.168.50.81', '192.168.50.81:8080', 1_700_000_012);
  const file = tmp.file('keys.pcap', pcap(frames));
  s = await startApi({ files: [file, file] });
});

const MID: [string, number, string, number, number, number][] = [
  ['192.168.60.1', 443, '192.168.60.2', 51234, IPPROTO.TCP, TCPF.ACK | TCPF.PSH],   // the server's segment first: swapped
  ['192.168.60.3', 51234, '192.168.60.4', 443, IPPROTO.TCP, TCPF.ACK | TCPF.PSH],   // the client's first: kept
  ['192.168.60.5', 40000, '192.168.60.6', 50000, IPPROTO.TCP, TCPF.ACK],            // two high ports: the higher is the client
  ['192.168.60.7', 80, '192.168.60.8', 40000, IPPROTO.TCP, TCPF.SYN],               // a SYN says who started: kept
  ['192.168.60.9', 53, '192.168.60.10', 40000, IPPROTO.UDP, 0],                     // UDP: as first seen
];
/** [client, client port] ntopng gives each MID flow */
const MID_CLIENT: [string, number][] = [['192.168.60.2', 51234], ['192.168.60.3', 51234], ['192.168.60.6', 50000], ['192.168.60.7', 80], ['192.168.60.9', 53]];
const DNS_QUERY = 'updates.example.org', HTTP_HOST = 'intranet.example.lan:8080';
const NAMED = { dns: '192.168.50.1', http: '192.168.50.2', literal: '192.168.50.3' };

/** IpAddress::compute_key on a little-endian machine */
function ipKey(ip: string): number {
  const b = addr(ip);
  if (b.length === 4) return b.readUInt32BE(0);
  let k = 0;
  for (let i = 0; i < 4; i++) k = (k + ((b.readUInt32LE(4 * i) << (2 * i)) >>> 0)) >>> 0;
  return k;
}
/** a port as ntopng stores it (network order) read as a host-order word */
const netPort = (p: number) => ((p & 0xff) << 8) | (p >> 8);

describe('flow key and hash_id', () => {
  it("key is Flow::key over the tuple; hash_id is the interface id over the table's insertion count", async () => {
    for (const ifid of [0, 1]) {
      const r = await s.call(v2('get/flow/active'), { query: { ifid, perPage: 10, sortColumn: 'first_seen', sortOrder: 'asc' } });
      expect(r.body.rc, r.text).toBe(0);
      const rows = (r.body.rsp.data as any[]).filter((x) => FLOWS.some(([c]) => c === x.client.ip));
      expect(rows).toHaveLength(FLOWS.length);
      FLOWS.forEach(([c, cp, sv, sp, l4, vlan], i) => {
        const f = rows.find((x) => x.client.ip === c)!;
        const key = (netPort(cp) + netPort(sp) + vlan + l4 + ipKey(c) + ipKey(sv)) % 2 ** 32;
        expect(f.key, c).toBe(String(key));
        expect(f.hash_id, c).toBe(String(ifid * 2 ** 24 + i));
      });
    }
  });

  it("server name: the flow's DNS query or HTTP Host (port removed) first, the address when the Host is one", async () => {
    const rows = (await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 20 } })).body.rsp.data as any[];
    const by = (ip: string) => rows.find((x) => x.client.ip === ip)!;
    expect(by(NAMED.dns).server.name).toBe(DNS_QUERY);
    expect(by(NAMED.http).server.name).toBe(HTTP_HOST.replace(/:\d+$/, ''));
    expect(by(NAMED.literal).server.name).toBe('192.168.50.81');
    // a flow without a name: its server's address
    expect(by(FLOWS[0]![0]).server.name).toBe(FLOWS[0]![2]);
  });

  it('a flow first seen mid-stream: TCP without a SYN gets the higher port as client, UDP stays as seen (Flow::check_swap)', async () => {
    const rows = (await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 50 } })).body.rsp.data as any[];
    MID.forEach(([a, , b], i) => {
      const f = rows.find((x) => [x.client.ip, x.server.ip].sort().join() === [a, b].sort().join())!;
      expect([f.client.ip, f.client.port], a).toEqual(MID_CLIENT[i]);
    });
  });
});
