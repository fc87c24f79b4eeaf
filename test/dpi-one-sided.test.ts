// nDPI's view of a TCP flow over IPv6 between equal ports (ndpi_main.c,
// ndpi_connection_tracking): its IPv6 address comparison gives every packet
// direction 1, so (1) its pair of next sequence numbers is one slot, set at
// the first ACK after the flow's first packet by that packet's sender and
// moved by any payload landing within 64 KiB past it — a payload packet
// outside is a retransmission no dissector reads (after a payload packet) —
// and (2) every packet is the client's (all the server's when the flow's
// first packet was a SYN-ACK). IPv4, or different ports, give each side its
// own direction. Each case's outcome follows from those rules by hand (see
// the comments); the frames are built here.
import { afterAll, describe, expect, it } from 'vitest';

import { type ExpiredFlow, l7Name } from '../ts/bindings/engine.js';
import { replayFrames, tcpSession } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const V6 = ['2001:db8::1', '2001:db8::2'] as const;
const V4 = ['10.0.0.1', '10.0.0.2'] as const;

interface Conv {
  addrs: readonly [string, string];
  ports: [number, number]; // client, server
  isn: [number, number]; // client, server initial sequence numbers
  handshake?: boolean; // default true
  msgs: [boolean, Uint8Array][]; // [from the client?, payload]
}

/** The conversation's frames (dissect.ts's TCP session with these initial numbers). */
const frames = (c: Conv) => tcpSession(c.addrs[0], c.addrs[1], c.ports[0], c.ports[1], c.msgs, { isn: c.isn, handshake: c.handshake });

let n = 0;
async function classify(c: Conv): Promise<{ name: string; confidence: string; risks: string[] }> {
  const f = await replayFrames(tmp.file(`one-sided-${++n}.pcap`), frames(c), (e): ExpiredFlow[] => e.drainExpired(), { flushAtEnd: true });
  expect(f).toHaveLength(1);
  return { name: l7Name(f[0]!.l7_master, f[0]!.l7_app), confidence: f[0]!.confidence, risks: f[0]!.risks };
}

const b = (s: string) => Buffer.from(s, 'latin1');
// rexec / rsh: the client's stderr port (digits, then a NUL), then the two user names and the
// command, each NUL-terminated; the server's one NUL byte. nDPI's rsh dissector names RSH (with
// clear-text credentials) when it reads the first two payload packets as such.
const RSH_MSGS: [boolean, Uint8Array][] = [
  [true, b('0\0')],
  [true, b('alice\0bob\0ls -l\0')],
  [false, b('\0')],
];

describe('nDPI over IPv6 between equal ports: one direction for every packet', () => {
  it('with far-apart initial numbers, only the side that set the slot is read: a client-side login goes unread', async () => {
    // SYN-ACK sets the slot (server's next); the client's first payload is outside it but follows
    // the ACK (no payload before): read; its second is outside after a payload: a retransmission.
    const c: Conv = { addrs: V6, ports: [512, 512], isn: [0x80000000, 0x10000000], msgs: RSH_MSGS };
    const r = await classify(c);
    expect(r.name).toBe('Unknown');
    expect(r.risks).not.toContain('Clear-Text Credentials');
    // the same frames with each side its own direction: RSH from the two client packets
    for (const other of [{ ...c, addrs: V4 }, { ...c, ports: [1022, 512] as [number, number] }]) {
      const o = await classify(other);
      expect(o.name).toBe('RSH');
      expect(o.risks).toContain('Clear-Text Credentials');
    }
  });

  it('with the client numbered just past the server, its payload moves the slot to its side and both packets are read', async () => {
    // the slot holds 0x1001 after the SYN-ACK; the client's 0x5001 is within 64 KiB past it
    const r = await classify({ addrs: V6, ports: [512, 512], isn: [0x5000, 0x1000], msgs: RSH_MSGS });
    expect(r.name).toBe('RSH');
    expect(r.risks).toContain('Clear-Text Credentials');
  });

  it('without a handshake the slot is set by the second packet: its sender is read', async () => {
    // first packet (ACK): the slot takes its next byte but the other stays 0; the second (ACK,
    // the client again) completes them on its side: both client packets are read
    const r = await classify({ addrs: V6, ports: [512, 512], isn: [0x80000000, 0x10000000], handshake: false, msgs: RSH_MSGS });
    expect(r.name).toBe('RSH');
    // the server speaking second takes the slot: the client's login after it goes unread
    const s = await classify({
      addrs: V6,
      ports: [512, 512],
      isn: [0x80000000, 0x10000000],
      handshake: false,
      msgs: [[true, b('0\0')], [false, b('\0')], [true, b('alice\0bob\0ls -l\0')]],
    });
    expect(s.name).toBe('Unknown');
  });
});

// ISO 9506 MMS (nDPI's iso9506-1-mms.c): a TPKT / COTP data / session packet over 60 bytes whose
// 16-bit word 37 bytes from its end is 0x0280 (read little-endian), taken only from the client.
function mmsShaped(len: number): Buffer {
  const p = Buffer.alloc(len, 0x30);
  p.writeUInt8(3, 0), p.writeUInt8(0, 1), p.writeUInt16BE(len, 2); // TPKT
  p.writeUInt8(2, 4), p.writeUInt8(0xf0, 5), p.writeUInt8(0x80, 6); // COTP DT
  p.writeUInt8(13, 7), p.writeUInt8(len - 9, 8); // ISO 8327-1 header
  p.writeUInt16LE(0x0280, len - 37);
  return p;
}

describe('nDPI over IPv6 between equal ports: every packet is the client’s', () => {
  it("names MMS from the server's answer, which elsewhere only the client's request could", async () => {
    // handshake: the slot is the server's; the client's short request is read (no payload before
    // it), its MMS-less one is not; the server's MMS-shaped answer is read, as the client's
    const msgs: [boolean, Uint8Array][] = [
      [true, Buffer.alloc(22, 1)],
      [false, Buffer.alloc(22, 2)],
      [true, Buffer.alloc(120, 0x41)],
      [false, mmsShaped(120)],
    ];
    const r = await classify({ addrs: V6, ports: [4102, 4102], isn: [0x80000000, 0x10000000], msgs });
    expect(`${r.name} (${r.confidence})`).toBe('ISO9506-1-MMS (DPI)');
    // IPv4: the answer is the server's, the request no MMS: not named
    expect((await classify({ addrs: V4, ports: [4102, 4102], isn: [0x80000000, 0x10000000], msgs })).name).toBe('Unknown');
    // the client numbered just past the server: its first payload takes the slot, so the server's
    // answer then lies outside it (after a payload): unread, not named
    const close = await classify({ addrs: V6, ports: [4102, 4102], isn: [0x5000, 0x1000], msgs: [[true, Buffer.alloc(22, 1)], [false, mmsShaped(120)]] });
    expect(close.name).toBe('Unknown');
    // and when the capture starts at the SYN-ACK every packet is the server's: not named either
    const f = frames({ addrs: V6, ports: [4102, 4102], isn: [0x80000000, 0x10000000], msgs }).slice(1);
    const g = await replayFrames(tmp.file('one-sided-synack.pcap'), f, (e): ExpiredFlow[] => e.drainExpired(), { flushAtEnd: true });
    expect(l7Name(g[0]!.l7_master, g[0]!.l7_app)).toBe('Unknown');
  });
});
