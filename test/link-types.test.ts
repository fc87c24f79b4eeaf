// Link types beyond Ethernet that serial and wireless captures use: PPP (9)
// with and without HDLC-like framing, compressed protocol fields, MPLS, and
// the Cisco HDLC frames such captures often hold; PPP in HDLC framing (50);
// PPPoE without Ethernet (51); Cisco HDLC (104) with SLARP keepalives;
// 802.11 (105) data frames of every address form, QoS, HT control, and the
// frames that carry no packet (protected, null data, management); radiotap
// (127) with TSFT/Flags fields, a trailing FCS, a failed FCS, extended
// bitmaps; PPI (192) around Ethernet and 802.11. Each capture is built here
// frame by frame; tshark reads the same file: the engine must see the IP
// packets tshark sees, between the same addresses (and 802.11 source MACs).
import { afterAll, describe, expect, it } from 'vitest';

import { IPPROTO, ipv4, ipv6, mac, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { runEngine, tool } from './fixtures/util.js';
import { hex } from './fixtures/bytes.js';

const tmp = tempDir('flowgate-links-');
afterAll(() => tmp.cleanup());

const u16be = (v: number) => Buffer.from([v >> 8, v & 0xff]);
const le16 = (v: number) => Buffer.from([v & 0xff, v >> 8]);
const le32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };
let n = 0;
/** A UDP/IPv4 packet between two addresses unique to this frame. */
const ip4 = () => { n++; return ipv4({ src: `10.9.${n}.1`, dst: `10.9.${n}.2`, proto: IPPROTO.UDP }, udp({ sport: 1000 + n, dport: 2000 }, Buffer.from('payload'))); };
const ip6 = () => { n++; return ipv6({ src: `fd00:${n}::1`, dst: `fd00:${n}::2`, next: IPPROTO.TCP }, tcp({ sport: 1000 + n, dport: 443 })); };
const SNAP = (type: number) => Buffer.concat([hex('aaaa03 000000'), u16be(type)]);
const A = (i: number) => mac(`02:00:00:00:00:${i.toString(16).padStart(2, '0')}`);

/** An 802.11 data frame: frame control bytes, addresses, optional QoS/HT fields, body. */
function wifi(fc0: number, fc1: number, body: Buffer, o: { addr4?: boolean; qos?: boolean; ht?: boolean } = {}): Buffer {
  return Buffer.concat([
    Buffer.from([fc0, fc1]), hex('0000'), A(1), A(2), A(3), hex('1000'),
    o.addr4 ? A(4) : Buffer.alloc(0), o.qos ? hex('0000') : Buffer.alloc(0), o.ht ? hex('00000000') : Buffer.alloc(0), body,
  ]);
}

/** Replays frames of one link type; returns the engine's view and tshark's. */
async function both(name: string, linktype: number, frames: Buffer[]) {
  const file = tmp.file(`${name}.pcap`, pcap(frames.map((data, i) => ({ tsNs: sec(1_700_000_000 + i), data })), { linktype }));
  const r = await runEngine([file], { dpi: false });
  const lines = tool('tshark', ['-r', file, '-T', 'fields', '-E', 'separator=|', '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst', '-e', 'wlan.sa']).split('\n').filter((l) => l.length);
  const pairs = lines.map((l) => l.split('|')).filter((f) => f[0] || f[2]).map((f) => [f[0] || f[2], f[1] || f[3]].join(' > '));
  const ours = r.flows.map((f) => `${f.client.ip} > ${f.server.ip}`);
  return { r, pairs, ours, sa: lines.map((l) => l.split('|')[4]).filter(Boolean), error: r.st.error };
}

describe('serial link types', () => {
  it('PPP (9): framed, unframed, compressed protocol, MPLS, Cisco HDLC inside; LCP is not IP', async () => {
    const frames = [
      Buffer.concat([hex('ff03 0021'), ip4()]),
      Buffer.concat([hex('0057'), ip6()]),
      Buffer.concat([hex('21'), ip4()]), // protocol field compressed (RFC 1661 §6.5)
      Buffer.concat([hex('ff03 0281'), hex('000101ff'), ip4()]), // one MPLS label, bottom of stack
      Buffer.concat([hex('0f00 0800'), ip4()]), // Cisco HDLC framing in a PPP capture
      hex('ff03 c021 01010004'), // LCP configure-request
    ];
    const t = await both('ppp', 9, frames);
    expect(t.error).toBeNull();
    expect(t.pairs).toHaveLength(5);
    expect(t.ours.sort()).toEqual([...t.pairs].sort());
    expect(t.r.stats.packets).toBe(6);
    expect(t.r.stats.ip_packets).toBe(5);
  });

  it('PPP in HDLC framing (50), PPPoE without Ethernet (51), Cisco HDLC (104) with SLARP', async () => {
    const slarp = Buffer.concat([hex('8f00 8035'), hex('00000002 00000001 00000000 ffff 0000 0000')]);
    const a = await both('ppp-serial', 50, [Buffer.concat([hex('ff03 0021'), ip4()]), Buffer.concat([hex('8f00 86dd'), ip6()]), slarp]);
    expect(a.pairs).toHaveLength(2);
    expect(a.ours.sort()).toEqual([...a.pairs].sort());
    const ip = ip4();
    const pppoe = Buffer.concat([hex('1100 0042'), u16be(ip.length + 2), hex('0021'), ip]);
    const b = await both('ppp-ether', 51, [pppoe]);
    expect(b.pairs).toHaveLength(1);
    expect(b.ours).toEqual(b.pairs);
    const c = await both('chdlc', 104, [Buffer.concat([hex('0f00 86dd'), ip6()]), slarp]);
    expect(c.pairs).toHaveLength(1);
    expect(c.ours).toEqual(c.pairs);
    expect(c.r.stats.packets - c.r.stats.ip_packets).toBe(1); // SLARP: not IP, not malformed
    expect(c.r.stats.malformed).toBe(0);
  });
});

describe('wireless link types', () => {
  // frame control byte 0: type data (0x08), QoS data (0x88), null data (0x48); byte 1: ToDS 0x01, FromDS 0x02, Protected 0x40, Order 0x80
  const dataFrames = () => [
    wifi(0x08, 0x01, Buffer.concat([SNAP(0x0800), ip4()])), // station → AP: SA = addr2
    wifi(0x08, 0x02, Buffer.concat([SNAP(0x86dd), ip6()])), // AP → station: SA = addr3
    wifi(0x08, 0x03, Buffer.concat([SNAP(0x0800), ip4()]), { addr4: true }), // WDS: SA = addr4
    wifi(0x88, 0x01, Buffer.concat([SNAP(0x0800), ip4()]), { qos: true }),
    wifi(0x88, 0x81, Buffer.concat([SNAP(0x0800), ip4()]), { qos: true, ht: true }), // QoS + HT control
    wifi(0x08, 0x00, Buffer.concat([hex('aaaa03 0000f8 0800'), ip4()])), // ad hoc, 802.1H bridge tunnel SNAP
  ];
  const noPacket = () => [
    wifi(0x08, 0x41, Buffer.concat([SNAP(0x0800), ip4()])), // protected: the body is ciphertext
    wifi(0x48, 0x01, Buffer.alloc(0)), // null data
    Buffer.concat([hex('8000 0000'), A(0xff), A(5), A(5), hex('0000'), Buffer.alloc(12)]), // beacon
  ];

  it('802.11 (105): every address form, QoS and HT control; protected, null-data and management frames carry no packet', async () => {
    const t = await both('wifi', 105, [...dataFrames(), ...noPacket()]);
    expect(t.error).toBeNull();
    expect(t.pairs).toHaveLength(6);
    expect(t.ours.sort()).toEqual([...t.pairs].sort());
    expect(t.r.stats.malformed).toBe(0);
    // the source MAC of each client host (private addresses: local, so their MACs are kept) is the frame's SA as tshark reads it
    const macs = new Set(t.r.hosts.filter((h) => /^10\.9\.\d+\.1$|::1$/.test(h.ip)).map((h) => h.mac));
    expect([...macs].sort()).toEqual([...new Set(t.sa.slice(0, 6))].sort());
  });

  it('radiotap (127): plain, TSFT+Flags with a trailing FCS, extended bitmaps; a failed FCS is dropped', async () => {
    const plain = Buffer.concat([hex('00 00'), le16(8), le32(0)]);
    // present: TSFT (bit 0) + Flags (bit 1); TSFT 8-aligned at offset 8, Flags at 16, header 17 → padded to 18
    const withFcs = Buffer.concat([hex('00 00'), le16(18), le32(0x3), Buffer.alloc(8), Buffer.from([0x10]), Buffer.alloc(1)]);
    const badFcs = Buffer.concat([hex('00 00'), le16(18), le32(0x3), Buffer.alloc(8), Buffer.from([0x50]), Buffer.alloc(1)]);
    // two present words (bit 31 set in the first): the Flags field after both (none here)
    const extended = Buffer.concat([hex('00 00'), le16(12), le32(0x80000000), le32(0)]);
    const f1 = Buffer.concat([plain, wifi(0x08, 0x01, Buffer.concat([SNAP(0x0800), ip4()]))]);
    const f2 = Buffer.concat([withFcs, wifi(0x08, 0x01, Buffer.concat([SNAP(0x0800), ip4()])), hex('deadbeef')]);
    const bad = Buffer.concat([badFcs, wifi(0x08, 0x01, Buffer.concat([SNAP(0x0800), ip4()])), hex('deadbeef')]);
    const badPair = `10.9.${n}.1 > 10.9.${n}.2`;
    const f3 = Buffer.concat([extended, wifi(0x08, 0x02, Buffer.concat([SNAP(0x86dd), ip6()]))]);
    const t = await both('radiotap', 127, [f1, f2, bad, f3]);
    expect(t.error).toBeNull();
    // tshark dissects the bad-FCS frame too; nDPI's reader (and we) do not trust it
    const want = t.pairs.filter((p) => p !== badPair);
    expect(want).toHaveLength(3);
    expect(t.ours.sort()).toEqual(want.sort());
  });

  it('PPI (192): around Ethernet and around 802.11', async () => {
    const ppi = (dlt: number) => Buffer.concat([hex('00 00'), le16(8), le32(dlt)]);
    const ether = Buffer.concat([A(1), A(2), u16be(0x0800), ip4()]);
    const t = await both('ppi', 192, [Buffer.concat([ppi(1), ether]), Buffer.concat([ppi(105), wifi(0x08, 0x01, Buffer.concat([SNAP(0x0800), ip4()]))])]);
    expect(t.error).toBeNull();
    expect(t.pairs).toHaveLength(2);
    expect(t.ours.sort()).toEqual([...t.pairs].sort());
  });

  it('truncated headers are counted as malformed, not read past', async () => {
    const r = await runEngine([tmp.file('short.pcap', pcap([hex('0000 0800'), hex('0000 4000 00000000'), hex('0801 0000')].map((data, i) => ({ tsNs: sec(1_700_000_000 + i), data })), { linktype: 127 }))], { dpi: false });
    expect(r.stats.packets).toBe(3);
    expect(r.stats.ip_packets).toBe(0);
    expect(r.stats.decode['decode.radiotap.too_short']).toBeGreaterThan(0);
  });
});
