// nDPI's BitTorrent cache (bittorrent.c, lru.bittorrent): a BitTorrent
// match remembers the flow's two endpoints, its pair of peers and the
// client's next two ports; a flow BitTorrent's dissector is about to leave
// (UDP on a port under 1024, TCP past its sixth packet) is named from it,
// "DPI (cache)", and the give-up names any other flow it knows "DPI (partial
// cache)". Flows are built here: a DHT query (BEP 5) first, then the others.
import { describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { txt } from './fixtures/bytes.js';
import { replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, ipv6, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-bt-cache-');
let n = 0;
const A = '10.0.5.1', B = '10.0.5.2', C = '10.0.5.3', D = '10.0.5.4';
const A6 = '2001:db8:5::1', B6 = '2001:db8:5::2';
// BEP 5 ping query: d1:ad2:id20:<node id>e1:q4:ping1:t2:aa1:y1:qe
const dht = Buffer.concat([txt('d1:ad2:id20:'), Buffer.alloc(20, 0x41), txt('e1:q4:ping1:t2:aa1:y1:qe')]);
const junk = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 53 + 7) & 0xff));

type D = { src: string; sport: number; dst: string; dport: number; p: Buffer; l4?: 'udp' | 'tcp' };
async function run(ds: D[], flush = false): Promise<Record<string, string>> {
  const frames: Buffer[] = [];
  for (const d of ds) {
    const v6 = d.src.includes(':');
    if (d.l4 === 'tcp') {
      frames.push(...tcpSession(d.src, d.dst, d.sport, d.dport, [[true, d.p]]));
      continue;
    }
    const l4 = udp({ sport: d.sport, dport: d.dport }, d.p);
    frames.push(v6 ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: d.src, dst: d.dst, next: IPPROTO.UDP }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: d.src, dst: d.dst, proto: IPPROTO.UDP }, l4)));
  }
  const name = (m: number, a: number, c: string) => `${l7Name(m, a)} (${c})`;
  return replayFrames(tmp.file(`bt-${n++}.pcap`), frames, (e: Engine) =>
    flush
      ? Object.fromEntries(e.drainExpired(64).map((f) => [`${f.cli_port}-${f.srv_port}`, name(f.l7_master, f.l7_app, f.confidence)]))
      : Object.fromEntries(e.flows({ limit: 20 }).rows.map((f) => [`${f.client.port}-${f.server.port}`, name(f.l7_master, f.l7_app, f.l7_confidence)])),
    { flushAtEnd: flush },
  );
}

describe("nDPI's BitTorrent cache", () => {
  it('UDP to a low port from an endpoint a BitTorrent flow used is named from the cache; from another endpoint not', async () => {
    const got = await run([
      { src: A, sport: 6881, dst: B, dport: 40000, p: dht }, // BitTorrent by DPI
      { src: A, sport: 6881, dst: C, dport: 1, p: dht }, // the client endpoint A:6881 is known
      { src: A, sport: 6882, dst: C, dport: 2, p: junk }, // A's next port too
      { src: A, sport: 7000, dst: D, dport: 3, p: dht }, // another socket of A to a new peer: unknown (A→C is known now: the cache match added the pair)
    ]);
    expect(got['6881-40000']).toBe('BitTorrent (DPI)');
    expect(got['6881-1']).toBe('BitTorrent (DPI (cache))');
    expect(got['6882-2']).toBe('BitTorrent (DPI (cache))');
    expect(got['7000-3']).not.toMatch(/^BitTorrent/);
  });

  it('over IPv6 the same; the pair of peers is remembered too', async () => {
    const got = await run([
      { src: A6, sport: 6881, dst: B6, dport: 40000, p: dht },
      { src: A6, sport: 9000, dst: B6, dport: 53, p: junk }, // a new port of A6 to B6: the pair is known
    ]);
    expect(got['9000-53']).toBe('BitTorrent (DPI (cache))');
  });

  it('the give-up names a flow the cache knows "DPI (partial cache)", before the port guess', async () => {
    const got = await run([
      { src: A, sport: 6881, dst: B, dport: 40000, p: dht },
      { src: B, sport: 40000, dst: A, dport: 443, p: junk, l4: 'tcp' }, // B:40000 is known; TCP to 443 would be guessed TLS
      { src: C, sport: 41000, dst: A, dport: 443, p: junk, l4: 'tcp' }, // unknown endpoints: the port's guess
    ], true);
    expect(got['40000-443']).toBe('BitTorrent (DPI (partial cache))');
    expect(got['41000-443']).toBe('TLS (Match by port)');
  });
});
