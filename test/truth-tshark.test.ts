// Our flows, hosts and interface totals against tshark's statistics.
//
// Flows and hosts only agree with tshark's notions where every IP packet is a
// plain TCP/UDP/ICMP packet: tshark counts each IP header it dissects (a tunnel's
// inner header, the header quoted inside an ICMP error, a fragment) as a packet of
// that endpoint, while we count a packet once, to the flow of its innermost
// header, and drop frames with a malformed transport header. The captures below
// were chosen for that (no tunnels, fragments, ICMP errors, non-TCP/UDP/ICMP IP
// protocols or malformed frames: checked in the test too), one per capture
// format / link type:
//   1kxun.pcap           pcap, Ethernet, IPv4 + IPv6, TCP + UDP, 197 flows
//   sites.pcapng         pcapng with 22 interfaces (one IDB per captured interface)
//   KakaoTalk_talk.pcap  Linux cooked capture (SLL), 3203 frames
//   tencent_games.pcap   raw IP (linktype 101)
//   nats.pcap            BSD null/loopback
//   whois.pcapng         802.1Q: the same address pair in VLANs 1603, 1908 and untagged
//   googledns_android10.pcap  Ethernet with ICMP echo
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { FlowRecord, HostRecord } from '../ts/bindings/native.js';
import { addConv, convKey, type ConvDir, type TsharkView, tsharkView, wsFormatBytes } from './fixtures/tshark.js';
import { normIp, runEngine, tool, NDPI_PCAPS } from './fixtures/util.js';

const PCAPS = NDPI_PCAPS;
const CAPTURES = [
  '1kxun.pcap',
  'sites.pcapng',
  'KakaoTalk_talk.pcap',
  'tencent_games.pcap',
  'nats.pcap',
  'whois.pcapng',
  'googledns_android10.pcap',
];

/** Our TCP/UDP flows summed over VLANs per conversation (tshark's tables ignore VLANs). */
function ourConversations(flows: FlowRecord[]): Map<string, ConvDir> {
  const m = new Map<string, ConvDir>();
  for (const f of flows) {
    if (f.proto !== 6 && f.proto !== 17) continue;
    const { key, ab } = convKey(f.proto === 6 ? 'tcp' : 'udp', normIp(f.client.ip), f.client.port, normIp(f.server.ip), f.server.port);
    addConv(m, key, ab, f.cli2srv_packets, f.cli2srv_bytes, f.srv2cli_packets, f.srv2cli_bytes);
  }
  return m;
}

/** Our hosts summed over VLANs per address: [tx packets, tx bytes, rx packets, rx bytes]. */
function ourHosts(hosts: HostRecord[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const h of hosts) {
    const k = normIp(h.ip);
    const v = m.get(k) ?? [0, 0, 0, 0];
    v[0] += h.packets_sent, v[1] += h.bytes_sent, v[2] += h.packets_rcvd, v[3] += h.bytes_rcvd;
    m.set(k, v);
  }
  return m;
}

// tshark takes ~0.5 s per capture: run all of them at once.
const views = new Map<string, TsharkView>();
beforeAll(async () => {
  const all = await Promise.all(CAPTURES.map((c) => tsharkView(join(PCAPS, c))));
  CAPTURES.forEach((c, i) => views.set(c, all[i]!));
});

describe.each(CAPTURES)('tshark agrees on %s', (name) => {
  const file = join(PCAPS, name);

  it('flows, hosts and totals', async () => {
    const view = views.get(name)!;
    const r = await runEngine([file]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    // Preconditions of the comparison (see the header comment).
    expect(r.stats.malformed).toBe(0);
    expect(r.stats.decode['decode.ip.fragments']).toBe(0);
    expect(r.stats.decode['decode.tunnel.packets']).toBe(0);
    expect(r.flows.filter((f) => ![1, 6, 17, 58].includes(f.proto)).map((f) => f.proto)).toEqual([]);
    const frames = view.frames;
    const icmpErrors = frames.filter((f) => f.icmpType !== null && (f.icmp6 ? f.icmpType < 128 : [3, 4, 5, 11, 12].includes(f.icmpType)));
    expect(icmpErrors).toEqual([]);

    // --- interface totals: frames and the sum of frame lengths ---
    const capinfos = tool('capinfos', ['-T', '-r', '-M', '-c', '-d', file]).trim().split('\t');
    expect(r.stats.packets).toBe(Number(capinfos[1]));
    expect(r.stats.packets).toBe(frames.length);
    expect(r.stats.bytes).toBe(Number(capinfos[2]));
    expect(r.stats.bytes).toBe(frames.reduce((s, f) => s + f.len, 0));
    const ipFrames = frames.filter((f) => f.src !== null);
    expect(r.stats.ip_packets).toBe(ipFrames.length);
    expect(r.stats.ip_bytes).toBe(ipFrames.reduce((s, f) => s + f.len, 0));

    // --- TCP/UDP conversations ---
    const ours = ourConversations(r.flows);
    const theirs = new Map<string, ConvDir>();
    const printed = new Map<string, { rows: number; bytesAB: string; bytesBA: string; ab: boolean }>();
    for (const proto of ['tcp', 'udp'] as const) {
      for (const row of view.conv[proto]) {
        const { key, ab } = convKey(proto, row.a, row.pa, row.b, row.pb);
        addConv(theirs, key, ab, row.framesAB, 0, row.framesBA, 0);
        const p = printed.get(key);
        printed.set(key, { rows: (p?.rows ?? 0) + 1, bytesAB: row.bytesAB, bytesBA: row.bytesBA, ab });
      }
    }
    // Exact byte counts per direction from the frames (the tables round above 10 kB).
    for (const f of frames) {
      if (!f.l4 || !f.src || !f.dst) continue;
      const { key, ab } = convKey(f.l4, f.src, f.sport, f.dst, f.dport);
      const d = theirs.get(key);
      expect(d, `frame of ${key} outside tshark's conversation table`).toBeDefined();
      if (ab) d!.bytesAB += f.len;
      else d!.bytesBA += f.len;
    }
    expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [key, d] of theirs) expect(ours.get(key), key).toEqual(d);
    // Where tshark printed a conversation in one row, its printed byte columns match ours.
    for (const [key, p] of printed) {
      if (p.rows !== 1) continue;
      const o = ours.get(key)!;
      const [ab, ba] = p.ab ? [o.bytesAB, o.bytesBA] : [o.bytesBA, o.bytesAB];
      expect([wsFormatBytes(ab), wsFormatBytes(ba)], key).toEqual([p.bytesAB, p.bytesBA]);
    }
    expect(theirs.size).toBeGreaterThan(0);

    // --- hosts: tshark's IPv4 + IPv6 endpoints, tx/rx packets and bytes ---
    const hosts = ourHosts(r.hosts);
    const endpoints = view.endpoints;
    expect([...hosts.keys()].sort()).toEqual(endpoints.map((e) => e.ip).sort());
    for (const e of endpoints) {
      expect(hosts.get(e.ip), e.ip).toEqual([e.txPackets, e.txBytes, e.rxPackets, e.rxBytes]);
      expect(e.packets).toBe(e.txPackets + e.rxPackets);
    }
  });
});

describe('wsFormatBytes (the conversation table byte format)', () => {
  it('formats like Wireshark', () => {
    expect(wsFormatBytes(0)).toBe('0 bytes');
    expect(wsFormatBytes(9999)).toBe('9999 bytes');
    expect(wsFormatBytes(10000)).toBe('10 kB');
    expect(wsFormatBytes(178280)).toBe('178 kB');
    expect(wsFormatBytes(12_345_678)).toBe('12 MB');
  });
});
