// Live capture at the sender's full rate: a veth pair whose far end sits in a
// network namespace made for this run; a python3 AF_PACKET socket inside it
// sends a known set of frames (F UDP flows of K packets, interleaved) as fast
// as it can. The independent truth is the kernel's own count of frames the
// near end received (/sys/class/net/<if>/statistics/rx_packets): every one of
// them is either processed by the engine or counted as a capture-ring drop
// (ntopng's `drops`, libpcap's ps_drop), never lost silently.
//
// Needs root, `ip netns` and python3; skipped otherwise.
import { readFileSync } from 'node:fs';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { liveNetnsSkipReason, vethNamespace } from './fixtures/netns.js';

const skipReason = liveNetnsSkipReason('test/live-rate.test.ts');

const tag = `fgr${process.pid}`;
const IF_ROOT = `${tag}a`, IF_NS = `${tag}b`;
// No addresses and no IPv6: the only frames on the link are the sender's.
const net = vethNamespace(tag, [[IF_ROOT, IF_NS]]);
const nsExec = (args: string[]) => net.nsExec(args);
const rxPackets = () => Number(readFileSync(`/sys/class/net/${IF_ROOT}/statistics/rx_packets`, 'utf8'));

// F flows (10.77.1+f/256.f%256:10000+f → 10.78.0.1:9000, UDP), K packets each, sent
// k-major so that every flow is open at once; 60-byte frames. Retries a send
// the kernel refuses for a full queue (ENOBUFS): `sent` is what it took.
const SENDER = `
import socket, struct, sys, time, json, errno
ifname, F, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def csum(b):
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
eth = bytes.fromhex('02000000000a' '02000000000b' '0800')
frames = []
for k in range(K):
    for f in range(F):
        payload = struct.pack('!II', f, k) + bytes(10)
        udp = struct.pack('!HHHH', 10000 + f, 9000, 8 + len(payload), 0) + payload
        src = bytes([10, 77, 1 + (f >> 8), f & 255])
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, src, bytes([10, 78, 0, 1]))
        ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
        frames.append(eth + ip + udp)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
t0 = time.monotonic()
sent = 0
for b in frames:
    while True:
        try:
            s.send(b)
            sent += 1
            break
        except OSError as e:
            if e.errno != errno.ENOBUFS: raise
            time.sleep(0)
print(json.dumps({'sent': sent, 'secs': time.monotonic() - t0}))
`;

function send(F: number, K: number): { sent: number; secs: number } {
  return JSON.parse(nsExec(['python3', '-c', SENDER, IF_NS, String(F), String(K)]).trim());
}

/** Polls until `cond` holds; fails after `ms` (a bound, not a timing assertion). */
async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!!skipReason)('live capture at the sender’s full rate', () => {
  const engines: Engine[] = [];
  const engine = (o: ConstructorParameters<typeof Engine>[0]) => {
    const e = new Engine(o);
    engines.push(e);
    return e;
  };

  beforeAll(() => net.setup());
  afterEach(() => {
    for (const e of engines.splice(0)) e.close();
  });
  afterAll(() => {
    for (const e of engines.splice(0)) e.close();
    net.teardown();
  });

  const F = 2000, K = 50;

  it('received + ring drops = what the kernel received; with no drop, every flow and packet is there', async () => {
    const eng = engine({ iface: IF_ROOT, promisc: true, maxFlows: 8192, maxHosts: 8192 }).start();
    const rx0 = rxPackets();
    const { sent, secs } = send(F, K);
    expect(sent).toBe(F * K);
    console.log(`live-rate: ${sent} frames sent in ${secs.toFixed(2)} s (${(sent / secs / 1e6).toFixed(2)} Mpps offered)`);
    const rx = () => rxPackets() - rx0;
    await waitFor(() => eng.stats().packets + eng.stats().drops >= rx() && rx() > 0, 'every received frame processed or counted as dropped');
    const st = eng.stats();
    expect(st.packets + st.drops).toBe(rx());
    expect(rx()).toBeLessThanOrEqual(sent); // the veth may refuse a frame at its backlog, never invent one
    console.log(`live-rate: kernel received ${rx()}, engine ${st.packets}, ring drops ${st.drops}`);
    if (st.drops === 0) {
      expect(st.flows_created).toBe(F);
      const flows = eng.flows({ limit: F });
      expect(flows.total).toBe(F);
      // each flow's packets are the kernel's: K each when the veth refused none
      if (rx() === sent) expect(flows.rows.every((f) => f.cli2srv_packets === K && f.srv2cli_packets === 0)).toBe(true);
      expect(flows.rows.reduce((a, f) => a + f.cli2srv_packets, 0)).toBe(rx());
    } else {
      expect(st.flows_created).toBeLessThanOrEqual(F);
    }
  });

  it('a ring too small for what arrives while the worker does not read it: the overflow is counted as drops, exactly', async () => {
    // The capture is open (the ring fills) but the worker starts only after
    // the sender is done: a 1 MiB ring holds a few thousand of the frames.
    const eng = engine({ iface: IF_ROOT, promisc: true, ringMb: 1, maxFlows: 8192, maxHosts: 8192 });
    const rx0 = rxPackets();
    const { sent } = send(F, K);
    expect(sent).toBe(F * K);
    eng.start();
    const rx = () => rxPackets() - rx0;
    await waitFor(() => eng.stats().packets + eng.stats().drops >= rx() && eng.stats().drops > 0, 'the ring drops reported');
    const st = eng.stats();
    expect(st.drops).toBeGreaterThan(0);
    expect(st.packets).toBeGreaterThan(0);
    expect(st.packets + st.drops).toBe(rx());
  });

  it('ringMb is validated', () => {
    expect(() => new Engine({ iface: IF_ROOT, ringMb: 0 })).toThrow(/ringMb/);
    expect(() => new Engine({ iface: IF_ROOT, ringMb: 1.5 })).toThrow(/ringMb/);
  });
});
