// nDPI gives no TCP dissector a retransmitted segment (ndpi_connection_tracking:
// payload starting outside [next, next + 64 KiB) of its direction, once both
// directions' next bytes are known, after a segment that carried payload);
// every one of its TCP dissectors is registered "without retransmission".
// The case here is a repacketized retransmission: a client sends one
// memcached command, then two from the same sequence number (memcached.c
// names a flow on its second command). nDPI skips the second segment, so the
// flow is not Memcached; the same bytes in sequence, after a segment without
// payload, or inside the window ahead are read. (SSH served here once, with
// "SS" first; nDPI's ssh.c rules SSH out on any first payload that is not a
// whole banner, so it cannot tell a skipped segment from a read one.)
// tshark's TCP analysis is the independent check of which segment starts
// behind its direction's next byte.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { CLI, CLI6, SRV, SRV6 } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-dpi-retrans-');
afterAll(() => tmp.cleanup());
let n = 0;

type Seg = { c: boolean; seq: number; data?: string; flags?: number };
const BANNER = 'SSH-2.0-OpenSSH_9.6\r\n';
const GET = 'get a\r\n', GETS = 'get a\r\nget b\r\n';
const ISN_C = 1000, ISN_S = 5000;

/** Handshake, then the segments; returns the flow's name and the frames tshark finds resent or out of order. */
async function run(segs: Seg[], v6 = false): Promise<{ name: string; retrans: number[] }> {
  const frame = (s: Seg) => {
    const l4 = tcp({ sport: s.c ? 40900 : 22, dport: s.c ? 22 : 40900, flags: s.flags ?? TCPF.PSH | TCPF.ACK, seq: s.seq, ack: s.c ? ISN_S + 1 : ISN_C + 1 }, s.data ? Buffer.from(s.data, 'latin1') : undefined);
    return v6
      ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s.c ? CLI6 : SRV6, dst: s.c ? SRV6 : CLI6, next: IPPROTO.TCP }, l4))
      : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s.c ? CLI : SRV, dst: s.c ? SRV : CLI, proto: IPPROTO.TCP }, l4));
  };
  const all: Seg[] = [
    { c: true, seq: ISN_C, flags: TCPF.SYN },
    { c: false, seq: ISN_S, flags: TCPF.SYN | TCPF.ACK },
    { c: true, seq: ISN_C + 1, flags: TCPF.ACK },
    ...segs,
  ];
  const file = tmp.file(`retrans-${n++}.pcap`);
  writeFileSync(file, pcap(all.map((s, i) => ({ tsNs: sec(1700000000 + i), data: frame(s) }))));
  const e = new Engine({ files: [file], flowIdleSec: 1e10 });
  let name = '';
  try {
    e.start();
    await e.waitDone();
    const f = e.flows({ limit: 1 }).rows[0]!;
    name = `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  } finally {
    e.close();
  }
  const out = execFileSync('tshark', ['-n', '-r', file, '-Y', 'tcp.analysis.retransmission || tcp.analysis.out_of_order', '-T', 'fields', '-e', 'frame.number'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return { name, retrans: out.split('\n').filter(Boolean).map(Number) };
}

const C0 = ISN_C + 1; // the client's first data byte

describe('TCP retransmissions are not inspected, as nDPI', () => {
  it('two commands resent from the same sequence number after one are skipped: not Memcached', async () => {
    const r = await run([{ c: true, seq: C0, data: GET }, { c: true, seq: C0, data: GETS }]);
    expect(r.retrans).toEqual([5]); // tshark: frame 5 starts behind the next byte (it says out of order: no ACK gave it an RTT)
    expect(r.name).not.toBe('Memcached (DPI)');
    const r6 = await run([{ c: true, seq: C0, data: GET }, { c: true, seq: C0, data: GETS }], true);
    expect(r6.name).not.toBe('Memcached (DPI)');
  });

  it('the segments in sequence are read (control: the dissectors name what they see)', async () => {
    expect((await run([{ c: true, seq: C0, data: BANNER }])).name).toBe('SSH (DPI)');
    const inSeq = await run([{ c: true, seq: C0, data: GET }, { c: true, seq: C0 + GET.length, data: 'get b\r\n' }]);
    expect(inSeq.retrans).toEqual([]);
    expect(inSeq.name).toBe('Memcached (DPI)');
  });

  it('after a segment without payload, the same resent segment is read (nDPI looks at the last segment’s payload)', async () => {
    const r = await run([{ c: true, seq: C0, data: GET }, { c: false, seq: ISN_S + 1, flags: TCPF.ACK }, { c: true, seq: C0, data: GETS }]);
    expect(r.retrans).toEqual([6]); // still a retransmission to tshark
    expect(r.name).toBe('Memcached (DPI)');
  });

  it('ahead of the next byte: inside nDPI’s 64 KiB window it is read, beyond it skipped', async () => {
    expect((await run([{ c: true, seq: C0, data: GET }, { c: true, seq: C0 + GET.length + 0x8000, data: GETS }])).name).toBe('Memcached (DPI)');
    expect((await run([{ c: true, seq: C0, data: GET }, { c: true, seq: C0 + GET.length + 0x10001, data: GETS }])).name).not.toBe('Memcached (DPI)');
  });
});
