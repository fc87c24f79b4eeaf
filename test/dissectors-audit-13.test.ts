// Audit 13: GTP, BACnet, Monero, Syncthing, Spotify, Nintendo, AVAST,
// MerakiCloud, RMCP, TiVoConnect, Usenet, RipeAtlas, ZUG and iQIYI checked
// against nDPI 4.11's own source. One hand-built flow per case, its bytes
// laid out from each protocol's document (3GPP TS 29.060 / 29.274 / 32.295,
// ASHRAE 135 Annex J, DMTF DSP0136, RFC 3977 …): what nDPI accepts is named
// by DPI, a near miss (one detail wrong) is not.
import { describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { txt, u16, u32 } from './fixtures/bytes.js';
import { CLI, SRV, classifier, flowRunner, replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-audit-13-');
const runFlow = flowRunner('fg-dissectors-audit-13f-');
const tmp = tempDir('fg-dissectors-audit-13r-');
const bytes = (...v: number[]) => Buffer.from(v);
const v6 = { v6: true };
const DPI = (name: string) => `${name} (DPI)`;

// ── GTP (gtp.c) ──────────────────────────────────────────────────────────
/** GTPv1 (TS 29.060 §6): flags, type, length of what follows the 8 bytes, TEID; `len` overrides the length. */
const gtp1 = (flags: number, type: number, rest: Buffer, len = rest.length, teid = 0) =>
  Buffer.concat([bytes(flags, type), u16(len), u32(teid), rest]);
/** Sequence number, N-PDU number, next extension type: the 4 optional bytes when S, PN or E is set. */
const seq1 = (seq: number) => Buffer.concat([u16(seq), bytes(0, 0)]);
/** GTPv2-C (TS 29.274 §5.1): flags, type, length of what follows the 4 bytes. */
const gtp2 = (flags: number, type: number, rest: Buffer, len = rest.length) => Buffer.concat([bytes(flags, type), u16(len), rest]);
/** GTP' (TS 32.295 §6.1): flags, type, length of what follows the 6 bytes, sequence number. */
const gtpPrime = (flags: number, type: number, rest: Buffer, len = rest.length, seq = 7) => Buffer.concat([bytes(flags, type), u16(len), u16(seq), rest]);

// GTPv1-C Echo Request (§7.2.1): S set, sequence 1.
const echo1 = gtp1(0x32, 1, seq1(1));
// GTPv1-C Create PDP Context Request (§7.3.1): IMSI (TV 2, 8 bytes), Recovery (14), Selection mode (15),
// TEID Data I (16), TEID C-plane (17), NSAPI (20).
const createPdp = gtp1(
  0x32,
  16,
  Buffer.concat([seq1(0x2a), bytes(2, 0x21, 0x43, 0x65, 0x87, 0x09, 0x21, 0x43, 0xf5), bytes(14, 3), bytes(15, 0xfc), bytes(16), u32(0x1111), bytes(17), u32(0x2222), bytes(20, 5)]),
);
// GTPv2-C Echo Request (TS 29.274 §7.1.1): no TEID, sequence, spare, Recovery IE (type 3, length 1, instance 0).
const echo2 = gtp2(0x40, 1, Buffer.concat([bytes(0, 0, 9, 0), bytes(3, 0, 1, 0, 5)]));
// GTPv2-C Create Session Request (§7.2.1): T set, TEID 0, sequence, spare, IMSI IE (type 1, length 8).
const createSession = gtp2(0x48, 32, Buffer.concat([u32(0), bytes(0, 0, 10, 0), bytes(1, 0, 8, 0), bytes(0x21, 0x43, 0x65, 0x87, 0x09, 0x21, 0x43, 0xf5)]));
// GTP' (TS 32.295 §6.1.1): version 1, PT 0, spare bits 111, header length bit 0 — 0x2e.
const primeEcho = gtpPrime(0x2e, 1, Buffer.alloc(0));
// Data Record Transfer Request (§6.2.4): Packet Transfer Command (TV 126: send data record packet), Data Record
// Packet (TLV 252: one record, format 1, format version, record length, the record).
const primeRecord = gtpPrime(0x2e, 240, Buffer.concat([bytes(126, 1), bytes(252), u16(9), bytes(1, 1), u16(0x0113), u16(3), bytes(0xa1, 0x01, 0x00)]));

describe('GTP (gtp.c)', () => {
  it('GTP-C v1 on port 2123 (either end): exact length, a message type 1–129, IPv4 and IPv6', async () => {
    expect(await classify('udp', 2123, 2123, [echo1, echo1])).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40001, 2123, [createPdp])).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 2123, 40002, [createPdp], undefined, v6)).toBe(DPI('GTP.GTP_C'));
    // type 129 is the last nDPI allows, 130 is past it, 0 before it
    expect(await classify('udp', 40003, 2123, [gtp1(0x32, 129, seq1(1))])).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40004, 2123, [gtp1(0x32, 130, seq1(1))])).not.toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40005, 2123, [gtp1(0x32, 0, seq1(1))])).not.toBe(DPI('GTP.GTP_C'));
  });

  it('GTP-C v1: the length must equal what follows the 8 bytes, and cover the optional 4 when S, PN or E is set', async () => {
    expect(await classify('udp', 40010, 2123, [gtp1(0x32, 1, seq1(1), 5)])).not.toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40011, 2123, [gtp1(0x32, 1, seq1(1), 3)])).not.toBe(DPI('GTP.GTP_C'));
    // no optional field: an 8-byte message of length 0 passes; with S set it does not
    expect(await classify('udp', 40012, 2123, [gtp1(0x30, 1, Buffer.alloc(0))])).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40013, 2123, [gtp1(0x32, 1, Buffer.alloc(0))])).not.toBe(DPI('GTP.GTP_C'));
    // nDPI reads no PT bit for GTP-C v1
    expect(await classify('udp', 40014, 2123, [gtp1(0x22, 1, seq1(1))])).toBe(DPI('GTP.GTP_C'));
    // the same message on another port is not GTP
    expect(await classify('udp', 40015, 2124, [echo1])).not.toMatch(/^GTP/);
  });

  it('GTP-C v2: only the length is read (of what follows the 4 bytes), any message type', async () => {
    expect(await classify('udp', 40020, 2123, [echo2])).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40021, 2123, [createSession], undefined, v6)).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40022, 2123, [gtp2(0x48, 0, Buffer.alloc(8))])).toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40023, 2123, [gtp2(0x48, 32, createSession.subarray(4), createSession.length - 3)])).not.toBe(DPI('GTP.GTP_C'));
    expect(await classify('udp', 40024, 2123, [gtp2(0x48, 32, createSession.subarray(4), createSession.length - 5)])).not.toBe(DPI('GTP.GTP_C'));
    // version 3 is neither
    expect(await classify('udp', 40025, 2123, [gtp2(0x68, 32, createSession.subarray(4))])).not.toBe(DPI('GTP.GTP_C'));
    // four bytes alone: nDPI wants more than the common header
    expect(await classify('udp', 40026, 2123, [gtp2(0x40, 1, Buffer.alloc(0))])).not.toBe(DPI('GTP.GTP_C'));
  });

  it('GTP-U on port 2152 (messages other than G-PDUs stay GTP): v1, PT 1, a length within the datagram', async () => {
    expect(await classify('udp', 2152, 2152, [echo1, gtp1(0x32, 2, seq1(1))])).toBe(DPI('GTP.GTP_U'));
    // Error Indication (TS 29.281 §7.3.1): TEID Data I (16), GSN address (133)
    const errInd = gtp1(0x32, 26, Buffer.concat([seq1(3), bytes(16), u32(0x99), bytes(133), u16(4), bytes(192, 0, 2, 1)]));
    expect(await classify('udp', 40030, 2152, [errInd], undefined, v6)).toBe(DPI('GTP.GTP_U'));
    // a length short of the datagram is fine for GTP-U (trailing bytes)
    expect(await classify('udp', 40031, 2152, [gtp1(0x32, 1, Buffer.concat([seq1(1), Buffer.alloc(8)]), 4)])).toBe(DPI('GTP.GTP_U'));
    // longer than the datagram, PT 0, or version 2: not GTP-U
    expect(await classify('udp', 40032, 2152, [gtp1(0x32, 1, seq1(1), 5)])).not.toMatch(/GTP_U \(DPI\)/);
    expect(await classify('udp', 40033, 2152, [gtp1(0x22, 1, seq1(1))])).not.toMatch(/GTP_U \(DPI\)/);
    expect(await classify('udp', 40034, 2152, [echo2])).not.toMatch(/\(DPI\)/);
  });

  it('the checks fall through: GTP-U first, then GTP-C, then GTP prime, each on its own port', async () => {
    // between 2152 and 2123: a v1 message of exact length is GTP-U, a v2 one GTP-C
    expect(await classify('udp', 2152, 2123, [echo1])).toBe(DPI('GTP.GTP_U'));
    expect(await classify('udp', 2152, 2123, [echo2])).toBe(DPI('GTP.GTP_C'));
    // a GTP-U-shaped message whose length leaves trailing bytes is not GTP-C on 2123
    expect(await classify('udp', 40040, 2123, [gtp1(0x32, 1, Buffer.concat([seq1(1), Buffer.alloc(8)]), 4)])).not.toMatch(/\(DPI\)/);
    // GTP prime's header between 3386 and 2123 still reaches the GTP prime check
    expect(await classify('udp', 3386, 2123, [primeEcho])).toBe(DPI('GTP.GTP_PRIME'));
  });

  it("GTP prime on port 3386: PT 0, spare bits 111, a length within the datagram, types 1–7, 240, 241", async () => {
    expect(await classify('udp', 40050, 3386, [primeEcho, gtpPrime(0x2e, 2, Buffer.alloc(0))])).toBe(DPI('GTP.GTP_PRIME'));
    expect(await classify('udp', 40051, 3386, [primeRecord], undefined, v6)).toBe(DPI('GTP.GTP_PRIME'));
    expect(await classify('udp', 3386, 40052, [gtpPrime(0x2e, 241, bytes(1, 0))])).toBe(DPI('GTP.GTP_PRIME'));
    expect(await classify('udp', 40053, 3386, [gtpPrime(0x2e, 7, Buffer.alloc(4), 2)])).toBe(DPI('GTP.GTP_PRIME'));
    // nDPI reads no version for GTP prime: version 0 (0x0e) passes too
    expect(await classify('udp', 40054, 3386, [gtpPrime(0x0e, 4, Buffer.alloc(0))])).toBe(DPI('GTP.GTP_PRIME'));
    // near misses: type 8 or 0, a spare bit clear, PT 1, a length past the datagram, another port
    expect(await classify('udp', 40055, 3386, [gtpPrime(0x2e, 8, Buffer.alloc(0))])).not.toMatch(/^GTP/);
    expect(await classify('udp', 40056, 3386, [gtpPrime(0x2e, 0, Buffer.alloc(0))])).not.toMatch(/^GTP/);
    expect(await classify('udp', 40057, 3386, [gtpPrime(0x2c, 1, Buffer.alloc(0))])).not.toMatch(/^GTP/);
    expect(await classify('udp', 40058, 3386, [gtpPrime(0x3e, 1, Buffer.alloc(0))])).not.toMatch(/^GTP/);
    expect(await classify('udp', 40059, 3386, [gtpPrime(0x2e, 240, bytes(126, 1), 3)])).not.toMatch(/^GTP/);
    expect(await classify('udp', 40060, 3387, [primeEcho])).not.toMatch(/^GTP/);
  });

  it("G-PDUs on 2152 are tunnels as nDPI's reader opens them: version 1 whatever the PT bit, extensions walked when E is set", async () => {
    const inner = ipv4({ src: '192.0.2.10', dst: '192.0.2.20', proto: IPPROTO.UDP }, udp({ sport: 47808, dport: 47808 }, bvlc(0x0b, whoIs)));
    const outer = (g: Buffer) => eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.9.0.1', dst: '10.9.0.2', proto: IPPROTO.UDP }, udp({ sport: 2152, dport: 2152 }, g)));
    const read = (g: Buffer) =>
      replayFrames(tmp.file(`gpdu-${Math.random().toString(36).slice(2)}.pcap`), [outer(g)], (e: Engine) => {
        const f = e.flows({ limit: 5 }).rows[0]!;
        return `${l7Name(f.l7_master, f.l7_app)} ${f.tunnel} ${f.client.ip}`;
      });
    expect(await read(gtp1(0x30, 0xff, inner))).toBe('BACnet GTP-U 192.0.2.10');
    // PT 0: nDPI's reader reads no PT bit
    expect(await read(gtp1(0x20, 0xff, inner))).toBe('BACnet GTP-U 192.0.2.10');
    // E set, a next-type byte of 0, one 4-byte extension (its last byte 0) before the inner packet
    expect(await read(gtp1(0x34, 0xff, Buffer.concat([bytes(0, 1, 0, 0), bytes(1, 0xaa, 0xbb, 0), inner])))).toBe('BACnet GTP-U 192.0.2.10');
    // an extension of length 0: no tunnel, the outer datagram is a GTP-U flow
    expect(await read(gtp1(0x34, 0xff, Buffer.concat([bytes(0, 1, 0, 0x85), bytes(0, 0xaa, 0xbb, 0), inner])))).toBe('GTP.GTP_U  10.9.0.1');
  });

  it("GTP prime's port is not one of GTP's (2152, 2123): nDPI flags it as a known protocol on a non-standard port", async () => {
    const prime = await runFlow('udp', 40080, 3386, [primeEcho, gtpPrime(0x2e, 2, Buffer.alloc(0))]);
    expect(prime.flow.risks).toContain('Known Proto on Non Std Port');
    const c = await runFlow('udp', 40081, 2123, [echo1, gtp1(0x32, 2, seq1(1))]);
    expect(c.flow.risks).not.toContain('Known Proto on Non Std Port');
  });

  it('GTP is UDP only, and the first datagram decides', async () => {
    expect(await classify('tcp', 40070, 2123, [createPdp])).not.toMatch(/^GTP/);
    expect(await classify('udp', 40071, 2123, [Buffer.alloc(12, 0x55), echo1])).not.toBe(DPI('GTP.GTP_C'));
  });
});

// ── BACnet (bacnet.c) ────────────────────────────────────────────────────
/** BVLC (ASHRAE 135 Annex J.2): type 0x81 (BACnet/IP), function, length of the whole message, then the NPDU. */
const bvlc = (fn: number, npdu: Buffer, type = 0x81, len = 4 + npdu.length) => Buffer.concat([bytes(type, fn), u16(len), npdu]);
// NPDU version 1, control 0x20 (destination present), DNET 0xffff, DLEN 0, hop count 255; APDU Who-Is (unconfirmed, service 8)
const whoIs = bytes(0x01, 0x20, 0xff, 0xff, 0x00, 0xff, 0x10, 0x08);

describe('BACnet (bacnet.c)', () => {
  it('a BVLC header of type 0x81, a function up to 0x0b and the datagram length: any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 47808, 47808, [bvlc(0x0b, whoIs)])).toBe(DPI('BACnet'));
    expect(await classify('udp', 40100, 47808, [bvlc(0x0a, whoIs)], undefined, v6)).toBe(DPI('BACnet'));
    expect(await classify('udp', 40101, 40200, [bvlc(0x00, bytes(0, 0))])).toBe(DPI('BACnet'));
    // the 4-byte header alone (a Result with no code is still a BVLC of length 4)
    expect(await classify('udp', 40102, 47808, [bvlc(0x05, Buffer.alloc(0))])).toBe(DPI('BACnet'));
  });

  it('near misses: function 0x0c, type 0x82 (BACnet/IPv6), a length off by one, fewer than 4 bytes, TCP', async () => {
    expect(await classify('udp', 40110, 47808, [bvlc(0x0c, whoIs)])).not.toBe(DPI('BACnet'));
    expect(await classify('udp', 40111, 47808, [bvlc(0x0b, whoIs, 0x82)])).not.toBe(DPI('BACnet'));
    expect(await classify('udp', 40112, 47808, [bvlc(0x0b, whoIs, 0x81, 4 + whoIs.length + 1)])).not.toBe(DPI('BACnet'));
    expect(await classify('udp', 40113, 47808, [bytes(0x81, 0x0b, 0x00)])).not.toBe(DPI('BACnet'));
    expect(await classify('tcp', 40114, 47808, [bvlc(0x0b, whoIs)])).not.toBe(DPI('BACnet'));
    // the first datagram decides
    expect(await classify('udp', 40115, 47808, [whoIs, bvlc(0x0b, whoIs)])).not.toBe(DPI('BACnet'));
  });
});

// ── Monero (monero.c) ────────────────────────────────────────────────────
/**
 * A Levin header (Monero's epee levin protocol): the signature 0x0101010101012101 as a little-endian
 * 64-bit word, the body size (LE 64), have-to-return, the command (LE 32: 1001 handshake), the return
 * code, the flags (1: request) and the protocol version (1), then the body.
 */
const le32 = (v: number) => Buffer.from([v & 255, (v >> 8) & 255, (v >> 16) & 255, v >>> 24]);
const levin = (body: Buffer, sig = bytes(0x01, 0x21, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01)) =>
  Buffer.concat([sig, le32(body.length), le32(0), bytes(1), le32(1001), le32(0), le32(1), le32(1), body]);
const handshake = levin(Buffer.concat([bytes(0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01), Buffer.alloc(24, 0x0c)]));
const junk = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 53 + 7) & 0xff));

describe('Monero (monero.c)', () => {
  it('the Levin signature opening the first payload packet, TCP, any port, IPv4 and IPv6', async () => {
    expect(await classify('tcp', 40200, 18080, [handshake])).toBe(DPI('Monero'));
    expect(await classify('tcp', 40201, 28080, [handshake], undefined, v6)).toBe(DPI('Monero'));
    // eight bytes are enough
    expect(await classify('tcp', 40202, 18080, [handshake.subarray(0, 8)])).toBe(DPI('Monero'));
    // the answer's own header opens the flow when the server speaks first
    expect(await classify('tcp', 40203, 18080, [handshake], [false])).toBe(DPI('Monero'));
  });

  it('near misses: one signature byte wrong, seven bytes, a later packet, UDP', async () => {
    expect(await classify('tcp', 40210, 18080, [levin(Buffer.alloc(10), bytes(0x01, 0x21, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02))])).not.toBe(DPI('Monero'));
    expect(await classify('tcp', 40211, 18080, [handshake.subarray(0, 7)])).not.toBe(DPI('Monero'));
    expect(await classify('tcp', 40212, 18080, [junk, handshake])).not.toBe(DPI('Monero'));
    expect(await classify('udp', 40213, 18080, [handshake])).not.toBe(DPI('Monero'));
  });
});

describe("nDPI's mining cache (lru.mining) fed by Monero, Mining, Nano, Ethereum", () => {
  const A = '10.0.13.1', B = '10.0.13.2', C = '10.0.13.3';
  const A6 = '2001:db8:13::1', B6 = '2001:db8:13::2';
  // l4 'mid': one TCP segment, no handshake (a flow seen mid-stream)
  type F = { src: string; sport: number; dst: string; dport: number; p: Buffer; l4: 'udp' | 'tcp' | 'mid' };
  let n = 0;
  /** The flows in order, each its frames in a row; all given up at the end: "client port-server port" → name. */
  async function run(fs: F[]): Promise<Record<string, string>> {
    const frames: Buffer[] = [];
    for (const f of fs) {
      if (f.l4 === 'tcp') {
        frames.push(...tcpSession(f.src, f.dst, f.sport, f.dport, [[true, f.p]]));
        continue;
      }
      const mid = f.l4 === 'mid';
      const l4 = mid ? tcp({ sport: f.sport, dport: f.dport, flags: TCPF.ACK | TCPF.PSH, seq: 1000, ack: 1 }, f.p) : udp({ sport: f.sport, dport: f.dport }, f.p);
      const proto = mid ? IPPROTO.TCP : IPPROTO.UDP;
      frames.push(
        f.src.includes(':') ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: f.src, dst: f.dst, next: proto }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: f.src, dst: f.dst, proto }, l4)),
      );
    }
    return replayFrames(
      tmp.file(`mining-${n++}.pcap`),
      frames,
      (e: Engine) => Object.fromEntries(e.drainExpired(64).map((f) => [`${f.cli_port}-${f.srv_port}`, `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`])),
      { flushAtEnd: true },
    );
  }

  it('a later flow from the same client to the same server, unnamed, is Monero "DPI (partial cache)" at its give-up', async () => {
    const got = await run([
      { src: A, sport: 49999, dst: B, dport: 443, p: junk, l4: 'tcp' }, // over before the match: the port's guess
      { src: A, sport: 50000, dst: B, dport: 18080, p: handshake, l4: 'tcp' }, // Monero by DPI
      { src: A, sport: 50001, dst: B, dport: 443, p: junk, l4: 'tcp' }, // same client and server: the cache, before the port
      { src: B, sport: 50002, dst: A, dport: 443, p: junk, l4: 'tcp' }, // the other way round: not the pair
      { src: C, sport: 50003, dst: B, dport: 443, p: junk, l4: 'tcp' }, // another client
      { src: A, sport: 50004, dst: B, dport: 40000, p: junk, l4: 'udp' }, // UDP too: the key has no ports
      // from the server's port 999 to the client's 40001: nDPI's client is the side above 1024
      { src: B, sport: 999, dst: A, dport: 40001, p: junk, l4: 'udp' },
    ]);
    expect(got['50000-18080']).toBe('Monero (DPI)');
    expect(got['49999-443']).toBe('TLS (Match by port)');
    expect(got['50001-443']).toBe('Monero (DPI (partial cache))');
    expect(got['50002-443']).toBe('TLS (Match by port)');
    expect(got['50003-443']).toBe('TLS (Match by port)');
    expect(got['50004-40000']).toBe('Monero (DPI (partial cache))');
    expect(got['999-40001']).toBe('Monero (DPI (partial cache))');
  });

  it('over IPv6 the same; a Stratum login (Mining) feeds the cache too', async () => {
    const stratum = txt('{"id":1,"method":"mining.subscribe","params":["cgminer/4.10"]}\n');
    const got = await run([
      { src: A6, sport: 50010, dst: B6, dport: 18080, p: handshake, l4: 'tcp' },
      { src: A6, sport: 50011, dst: B6, dport: 443, p: junk, l4: 'tcp' },
      { src: A, sport: 50012, dst: C, dport: 3333, p: stratum, l4: 'tcp' },
      { src: A, sport: 50013, dst: C, dport: 443, p: junk, l4: 'tcp' },
    ]);
    expect(got['50010-18080']).toBe('Monero (DPI)');
    expect(got['50011-443']).toBe('Monero (DPI (partial cache))');
    expect(got['50012-3333']).toBe('Mining (DPI)');
    expect(got['50013-443']).toBe('Mining (DPI (partial cache))');
  });

  it("the pair is nDPI's client and server: a TCP flow seen mid-stream is its first sender's, whatever the ports", async () => {
    const got = await run([
      // no SYN, from the lower of two high ports: nDPI's client is A, the sender (ours: the higher port, B)
      { src: A, sport: 5000, dst: B, dport: 6000, p: handshake, l4: 'mid' },
      { src: A, sport: 50030, dst: B, dport: 443, p: junk, l4: 'tcp' },
      { src: B, sport: 50031, dst: A, dport: 443, p: junk, l4: 'tcp' },
    ]);
    expect(got['6000-5000']).toBe('Monero (DPI)');
    expect(got['50030-443']).toBe('Monero (DPI (partial cache))');
    expect(got['50031-443']).toBe('TLS (Match by port)');
  });
});

// ── Syncthing (syncthing.c) ──────────────────────────────────────────────
// Local discovery (Syncthing's "Local Discovery Protocol v4"): the magic 0x2EA7D90B, then an Announce protobuf
// (field 1: the 32-byte device id, field 2: an address, field 3: the instance id).
const announce = Buffer.concat([u32(0x2ea7d90b), bytes(0x0a, 32), Buffer.alloc(32, 0x5a), bytes(0x12, 14), txt('tcp://:22000/x'), bytes(0x18, 0x2a)]);

describe('Syncthing (syncthing.c)', () => {
  it('the magic and at least one more byte, UDP, any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 21027, 21027, [announce])).toBe(DPI('Syncthing'));
    expect(await classify('udp', 40300, 21027, [announce], undefined, v6)).toBe(DPI('Syncthing'));
    expect(await classify('udp', 40301, 40302, [Buffer.concat([u32(0x2ea7d90b), bytes(0)])])).toBe(DPI('Syncthing'));
  });
  it('near misses: the magic alone, one magic byte wrong, TCP, not the first datagram', async () => {
    expect(await classify('udp', 40310, 21027, [u32(0x2ea7d90b)])).not.toBe(DPI('Syncthing'));
    expect(await classify('udp', 40311, 21027, [Buffer.concat([u32(0x2ea7d90c), announce.subarray(4)])])).not.toBe(DPI('Syncthing'));
    expect(await classify('tcp', 40312, 21027, [announce])).not.toBe(DPI('Syncthing'));
    expect(await classify('udp', 40313, 21027, [junk, announce])).not.toBe(DPI('Syncthing'));
  });
});

// ── Spotify (spotify.c) ──────────────────────────────────────────────────
const spotUdp = Buffer.concat([txt('SpotUdp0'), Buffer.alloc(36, 0x21)]);
/** The TCP client hello nDPI knows: 00 04 00 00, two bytes, 52 0e|0f 50. */
const spotHello = (b7 = 0x0e, b8 = 0x50) => Buffer.concat([bytes(0x00, 0x04, 0x00, 0x00, 0x01, 0x2c, 0x52, b7, b8), Buffer.alloc(20, 0x33)]);

describe('Spotify (spotify.c)', () => {
  it('UDP "SpotUdp" between port 57621 on both ends, IPv4 and IPv6', async () => {
    expect(await classify('udp', 57621, 57621, [spotUdp])).toBe(DPI('Spotify'));
    expect(await classify('udp', 57621, 57621, [spotUdp.subarray(0, 7)], undefined, v6)).toBe(DPI('Spotify'));
    expect(await classify('udp', 57621, 57622, [spotUdp])).not.toBe(DPI('Spotify'));
    expect(await classify('udp', 57621, 57621, [spotUdp.subarray(0, 6)])).not.toBe(DPI('Spotify'));
    expect(await classify('udp', 57621, 57621, [txt('spotUdp0')])).not.toBe(DPI('Spotify'));
  });
  it('the TCP hello on any port (byte 7 0x0e or 0x0f), as the first payload packet', async () => {
    expect(await classify('tcp', 40400, 4070, [spotHello()])).toBe(DPI('Spotify'));
    expect(await classify('tcp', 40401, 443, [spotHello(0x0f)], undefined, v6)).toBe(DPI('Spotify'));
    expect(await classify('tcp', 40402, 4070, [spotHello().subarray(0, 9)])).toBe(DPI('Spotify'));
    expect(await classify('tcp', 40403, 4070, [spotHello(0x10)])).not.toBe(DPI('Spotify'));
    expect(await classify('tcp', 40404, 4070, [spotHello(0x0e, 0x51)])).not.toBe(DPI('Spotify'));
    expect(await classify('tcp', 40405, 4070, [spotHello().subarray(0, 8)])).not.toBe(DPI('Spotify'));
    expect(await classify('tcp', 40406, 4070, [junk, spotHello()], [true, true])).not.toBe(DPI('Spotify'));
  });
});

// ── Nintendo (nintendo.c) ────────────────────────────────────────────────
const nin = (len: number, b4 = 0x02) => Buffer.concat([bytes(0x32, 0xab, 0x98, 0x64, b4), Buffer.alloc(len - 5, 0x44)]);

describe('Nintendo (nintendo.c)', () => {
  it('a datagram over 48 bytes opening 32 ab 98 64 02, any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 40500, 40501, [nin(49)])).toBe(DPI('Nintendo'));
    expect(await classify('udp', 40502, 40503, [nin(120)], undefined, v6)).toBe(DPI('Nintendo'));
  });
  it('near misses: 48 bytes, 03 as the fifth byte, TCP, a later datagram', async () => {
    expect(await classify('udp', 40510, 40511, [nin(48)])).not.toBe(DPI('Nintendo'));
    expect(await classify('udp', 40512, 40513, [nin(60, 0x03)])).not.toBe(DPI('Nintendo'));
    expect(await classify('tcp', 40514, 40515, [nin(60)])).not.toBe(DPI('Nintendo'));
    expect(await classify('udp', 40516, 40517, [junk, nin(60)])).not.toBe(DPI('Nintendo'));
  });
});

// ── AVAST (avast.c) ──────────────────────────────────────────────────────
const nosa = (body: Buffer, len = 6 + body.length) => Buffer.concat([txt('NOSA'), u16(len), body]);

describe('AVAST (avast.c)', () => {
  it('"NOSA" and the segment length (16-bit at offset 4), TCP, any port, IPv4 and IPv6', async () => {
    expect(await classify('tcp', 40600, 80, [nosa(Buffer.alloc(30, 0x61))])).toBe(DPI('AVAST'));
    expect(await classify('tcp', 40601, 4000, [nosa(Buffer.alloc(0))], undefined, v6)).toBe(DPI('AVAST'));
  });
  it('near misses: a length off by one, "nosa", UDP, a later segment', async () => {
    expect(await classify('tcp', 40610, 80, [nosa(Buffer.alloc(30), 37)])).not.toBe(DPI('AVAST'));
    expect(await classify('tcp', 40611, 80, [Buffer.concat([txt('nosa'), u16(36), Buffer.alloc(30)])])).not.toBe(DPI('AVAST'));
    expect(await classify('udp', 40612, 4000, [nosa(Buffer.alloc(30))])).not.toBe(DPI('AVAST'));
    expect(await classify('tcp', 40613, 4000, [junk, nosa(Buffer.alloc(30))], [true, true])).not.toBe(DPI('AVAST'));
  });
});

// ── MerakiCloud (merakicloud.c) ──────────────────────────────────────────
const meraki = Buffer.concat([u32(0xfef72891), Buffer.alloc(28, 0x07)]);

describe('MerakiCloud (merakicloud.c)', () => {
  it('0xfef72891 and more on UDP port 7351 at either end, IPv4 and IPv6', async () => {
    expect(await classify('udp', 40700, 7351, [meraki])).toBe(DPI('MerakiCloud'));
    expect(await classify('udp', 7351, 40701, [meraki], undefined, v6)).toBe(DPI('MerakiCloud'));
    expect(await classify('udp', 40702, 7351, [meraki.subarray(0, 5)])).toBe(DPI('MerakiCloud'));
  });
  it('near misses: four bytes, another port, one magic byte wrong, TCP', async () => {
    expect(await classify('udp', 40710, 7351, [meraki.subarray(0, 4)])).not.toBe(DPI('MerakiCloud'));
    expect(await classify('udp', 40711, 7352, [meraki])).not.toBe(DPI('MerakiCloud'));
    expect(await classify('udp', 40712, 7351, [Buffer.concat([u32(0xfef72890), meraki.subarray(4)])])).not.toBe(DPI('MerakiCloud'));
    expect(await classify('tcp', 40713, 7351, [meraki])).not.toBe(DPI('MerakiCloud'));
  });
});

// ── RMCP (rmcp.c) ────────────────────────────────────────────────────────
/** RMCP header (DSP0136 §3.2.2.1): version 6, reserved, sequence, class (bit 7: ACK). */
const rmcp = (seq: number, cls: number, rest = Buffer.alloc(0)) => Buffer.concat([bytes(0x06, 0x00, seq, cls), rest]);
// ASF Presence Ping (§3.2.4.3): IANA 4542, type 0x80, tag, reserved, data length 0
const presencePing = rmcp(0xff, 0x06, Buffer.concat([u32(4542), bytes(0x80, 0x01, 0x00, 0x00)]));
// IPMI over RMCP (IPMI 2.0 §13.1.3): a session header, auth type none, sequence 0, session 0, message length 9, Get Channel Auth
const ipmi = rmcp(0xff, 0x07, Buffer.concat([bytes(0x00), u32(0), u32(0), bytes(9, 0x20, 0x18, 0xc8, 0x81, 0x04, 0x38, 0x0e, 0x04, 0x31)]));

describe('RMCP (rmcp.c)', () => {
  it('version 6, reserved 0, class ASF or IPMI, UDP, any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 40800, 623, [presencePing])).toBe(DPI('RMCP'));
    expect(await classify('udp', 40801, 664, [ipmi], undefined, v6)).toBe(DPI('RMCP'));
    // an ACK (bit 7 of the class) with a sequence number other than 255
    expect(await classify('udp', 623, 40802, [rmcp(0x05, 0x86)])).toBe(DPI('RMCP'));
  });
  it('near misses: an ACK of sequence 255, class OEM (8), version 7, reserved set, 3 bytes, TCP', async () => {
    expect(await classify('udp', 40810, 623, [rmcp(0xff, 0x87)])).not.toBe(DPI('RMCP'));
    expect(await classify('udp', 40811, 623, [rmcp(0x01, 0x08)])).not.toBe(DPI('RMCP'));
    expect(await classify('udp', 40812, 623, [Buffer.concat([bytes(0x07), presencePing.subarray(1)])])).not.toBe(DPI('RMCP'));
    expect(await classify('udp', 40813, 623, [rmcp(0x01, 0x06).fill(1, 1, 2)])).not.toBe(DPI('RMCP'));
    expect(await classify('udp', 40814, 623, [bytes(0x06, 0x00, 0xff)])).not.toBe(DPI('RMCP'));
    expect(await classify('tcp', 40815, 623, [presencePing])).not.toBe(DPI('RMCP'));
  });
});

// ── TiVoConnect (tivoconnect.c) ──────────────────────────────────────────
const beacon = 'tivoconnect=1\nmethod=broadcast\nplatform=tcd/Series3\nmachine=Den\nidentity=uuid:0a1b2c\nservices=TiVoMediaServer:80/http\nswversion=11.0k\n';

describe('TiVoConnect (tivoconnect.c)', () => {
  it('a beacon opening "tivoconnect=" in any case: UDP and TCP, any port, IPv4 and IPv6, no risk when well formed', async () => {
    const u = await runFlow('udp', 2190, 2190, [txt(beacon)]);
    expect(l7Name(u.flow.l7_master, u.flow.l7_app)).toBe('TiVoConnect');
    expect(u.flow.risks).not.toContain('Malformed Packet');
    expect(await classify('tcp', 40900, 2190, [txt(beacon)], undefined, v6)).toBe(DPI('TiVoConnect'));
    expect(await classify('udp', 40901, 5000, [txt('TIVOCONNECT=1\n')])).toBe(DPI('TiVoConnect'));
  });
  it('a line without "=", no line end at the close, or a NUL byte (where nDPI stops reading): a malformed-packet risk', async () => {
    for (const [i, b] of [beacon.replace('method=broadcast', 'method broadcast'), beacon.slice(0, -1), beacon.replace('machine=Den', 'machine=D\0n')].entries()) {
      const { flow } = await runFlow('udp', 40910 + i, 2190, [txt(b)]);
      expect(l7Name(flow.l7_master, flow.l7_app)).toBe('TiVoConnect');
      expect(flow.risks).toContain('Malformed Packet');
    }
  });
  it('near misses: "tivoconnect:", 11 bytes, not at the start, a later packet', async () => {
    expect(await classify('udp', 40920, 2190, [txt('tivoconnect:1\n')])).not.toBe(DPI('TiVoConnect'));
    expect(await classify('udp', 40921, 2190, [txt('tivoconnect')])).not.toBe(DPI('TiVoConnect'));
    expect(await classify('tcp', 40922, 2190, [txt('\n' + beacon)])).not.toBe(DPI('TiVoConnect'));
    expect(await classify('udp', 40923, 2190, [junk, txt(beacon)])).not.toBe(DPI('TiVoConnect'));
  });
});

// ── Usenet (usenet.c) ────────────────────────────────────────────────────
// RFC 3977 §5.1: the server's greeting (200 posting allowed, 201 prohibited), then the client's command.
const greet200 = txt('200 news.example.net ready\r\n');
const greet201 = txt('201 news.example.net ready\r\n');

describe('Usenet (usenet.c)', () => {
  it('a greeting "200 " / "201 " (over 10 bytes), then from the other side AUTHINFO USER, MODE READER or HELP', async () => {
    expect(await classify('tcp', 41000, 119, [greet200, txt('AUTHINFO USER fredx\r\n')], [false, true])).toBe(DPI('Usenet'));
    expect(await classify('tcp', 41001, 119, [greet201, txt('MODE READER\r\n')], [false, true], v6)).toBe(DPI('Usenet'));
    expect(await classify('tcp', 41002, 4119, [greet200, txt('HELP\r\n')], [false, true])).toBe(DPI('Usenet'));
    // the greeting need not come from the server: only the sides must differ
    expect(await classify('tcp', 41003, 119, [greet200, txt('HELP\r\n')], [true, false])).toBe(DPI('Usenet'));
    expect(await classify('tcp', 41004, 119, [txt('200 ready\r\n'), txt('HELP\r\n')], [false, true])).toBe(DPI('Usenet'));
  });
  it('a retransmitted greeting is not read (nor counted against the command that follows it)', async () => {
    const frames = tcpSession(CLI, SRV, 41005, 119, [
      [false, greet200],
      [true, txt('HELP\r\n')],
    ]);
    frames.splice(4, 0, frames[3]!); // the greeting again, same sequence number
    const name = await replayFrames(tmp.file('usenet-retrans.pcap'), frames, (e: Engine) => {
      const f = e.flows({ limit: 1 }).rows[0]!;
      return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence}) ${f.tcp.retransmissions.srv2cli}`;
    });
    expect(name).toBe('Usenet (DPI) 1');
  });

  it('near misses: a 20-byte AUTHINFO, MODE READER or HELP with more bytes, a short greeting, 202, the same side twice', async () => {
    expect(await classify('tcp', 41010, 119, [greet200, txt('AUTHINFO USER fred\r\n')], [false, true])).not.toBe(DPI('Usenet'));
    expect(await classify('tcp', 41011, 119, [greet200, txt('MODE READER\r\n\r\n')], [false, true])).not.toBe(DPI('Usenet'));
    expect(await classify('tcp', 41012, 119, [greet200, txt('HELP \r\n')], [false, true])).not.toBe(DPI('Usenet'));
    expect(await classify('tcp', 41013, 119, [txt('200 rdy\r\n'), txt('HELP\r\n')], [false, true])).not.toBe(DPI('Usenet'));
    expect(await classify('tcp', 41014, 119, [txt('202 news.example.net ready\r\n'), txt('HELP\r\n')], [false, true])).not.toBe(DPI('Usenet'));
    expect(await classify('tcp', 41015, 119, [greet200, txt('HELP\r\n')], [false, false])).not.toBe(DPI('Usenet'));
    // the command must be the payload packet right after the greeting
    expect(await classify('tcp', 41016, 119, [greet200, txt('100 help text follows\r\n'), txt('HELP\r\n')], [false, false, true])).not.toBe(DPI('Usenet'));
    expect(await classify('tcp', 41017, 119, [txt('HELP\r\n')], [true])).not.toBe(DPI('Usenet'));
  });
});

// ── RipeAtlas (ripe_atlas.c) ─────────────────────────────────────────────
// The Magellan probe's datagram: "MGLNDD_" then the address and port it was sent to.
const mglndd = (s: string) => txt(s);

describe('RipeAtlas (ripe_atlas.c)', () => {
  it('25 bytes opening "MGLNDD", UDP, any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 41100, 5353, [mglndd('MGLNDD_198.51.100.7_5353\n')])).toBe(DPI('RipeAtlas'));
    expect(await classify('udp', 41101, 9000, [mglndd('MGLNDD_2001:db8::2_9000\n\n')], undefined, v6)).toBe(DPI('RipeAtlas'));
  });
  it('near misses: 24 or 26 bytes, "MGLNDE", TCP', async () => {
    expect(await classify('udp', 41110, 9000, [mglndd('MGLNDD_198.51.100.7_900\n')])).not.toBe(DPI('RipeAtlas'));
    expect(await classify('udp', 41111, 9000, [mglndd('MGLNDD_198.51.100.7_90000\n')])).not.toBe(DPI('RipeAtlas'));
    expect(await classify('udp', 41112, 9000, [mglndd('MGLNDE_198.51.100.7_9000\n')])).not.toBe(DPI('RipeAtlas'));
    expect(await classify('tcp', 41113, 9000, [mglndd('MGLNDD_198.51.100.7_9000\n')])).not.toBe(DPI('RipeAtlas'));
  });
});

// ── ZUG (zug.c) ──────────────────────────────────────────────────────────
// nDPI compares the first word with 0x007a5547: 00 'z' 'U' 'G' (a lower-case z), then byte 4 with 0x10.
const zug = (b4 = 0x10, rest = Buffer.alloc(40, 0x09), head = '\0zUG') => Buffer.concat([txt(head), bytes(b4), rest]);

describe('ZUG (zug.c)', () => {
  it('00 7a 55 47 and 0x10, UDP, any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 41200, 41201, [zug()])).toBe(DPI('ZUG'));
    expect(await classify('udp', 41202, 41203, [zug(0x10, Buffer.alloc(0))], undefined, v6)).toBe(DPI('ZUG'));
  });
  it('near misses: 0x11 after it, "\0ZUG" (upper-case Z), four bytes, TCP', async () => {
    expect(await classify('udp', 41210, 41211, [zug(0x11)])).not.toBe(DPI('ZUG'));
    expect(await classify('udp', 41212, 41213, [zug(0x10, Buffer.alloc(8), '\0ZUG')])).not.toBe(DPI('ZUG'));
    expect(await classify('udp', 41214, 41215, [zug().subarray(0, 4)])).not.toBe(DPI('ZUG'));
    expect(await classify('tcp', 41216, 41217, [zug()])).not.toBe(DPI('ZUG'));
  });
});

// ── iQIYI (iqiyi.c) ──────────────────────────────────────────────────────
const pps = (len: number, at = 40) => {
  const b = Buffer.alloc(len, 0x2e);
  b[10] = 0; // a NUL before the name: nDPI's search is a binary one
  txt('PPStream').copy(b, at);
  return b;
};

describe('iQIYI (iqiyi.c)', () => {
  it('"PPStream" anywhere in a datagram of 121–299 bytes, UDP, any port, IPv4 and IPv6', async () => {
    expect(await classify('udp', 41300, 41301, [pps(121)])).toBe(DPI('iQIYI'));
    expect(await classify('udp', 41302, 41303, [pps(299, 291)], undefined, v6)).toBe(DPI('iQIYI'));
  });
  it('near misses: 120 or 300 bytes, "PPStreaM", TCP', async () => {
    expect(await classify('udp', 41310, 41311, [pps(120)])).not.toBe(DPI('iQIYI'));
    expect(await classify('udp', 41312, 41313, [pps(300)])).not.toBe(DPI('iQIYI'));
    const other = pps(200);
    other.write('M', 47, 'latin1');
    expect(await classify('udp', 41314, 41315, [other])).not.toBe(DPI('iQIYI'));
    expect(await classify('tcp', 41316, 41317, [pps(200)])).not.toBe(DPI('iQIYI'));
  });
});
