// Live capture with several workers on one interface: each worker opens its
// own libpcap handle and the kernel spreads the packets over them with
// AF_PACKET fanout (PACKET_FANOUT_HASH, symmetric in the endpoints, with
// PACKET_FANOUT_FLAG_DEFRAG: IP fragments are reassembled before hashing).
//
// A veth pair whose far end sits in a network namespace made for this run;
// a python3 AF_PACKET socket inside it sends a known set of frames as fast as
// it can: F UDP flows of K packets, F TCP flows of K packets alternating
// direction (handshake first), and D UDP datagrams each split into NFRAG IPv4
// fragments (each datagram its own flow), all interleaved so every flow is
// open at once. The independent truths are what the sender sent and the
// kernel's count of frames the near end received (rx_packets).
//
// Fanout hands a packet socket one reassembled datagram for its NFRAG
// fragment frames: what the workers can see is rx_packets minus
// D × (NFRAG − 1), and each worker either processes a packet or counts it as
// a ring drop.
//
// Needs root, `ip netns` and python3; skipped otherwise.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { liveNetnsSkipReason, vethNamespace } from './fixtures/netns.js';
import { extractAll } from './fixtures/extraction.js';
import { pcapRecords } from './fixtures/pcap.js';

const skipReason = liveNetnsSkipReason('test/live-workers.test.ts');

const tag = `fgw${process.pid}`;
const IF_ROOT = `${tag}a`, IF_NS = `${tag}b`;
// No addresses and no IPv6: the only frames on the link are the sender's.
const net = vethNamespace(tag, [[IF_ROOT, IF_NS]]);
const rxPackets = () => Number(readFileSync(`/sys/class/net/${IF_ROOT}/statistics/rx_packets`, 'utf8'));

const F = 2000, K = 10, D = 300;
// A fragmented datagram: 2400 bytes of UDP payload, IP payload cut at 1000 and 2000.
const NFRAG = 3, FRAG_UDP_PAYLOAD = 2400;
const FRAMES = 2 * F * K + D * NFRAG;
const FLOWS = 2 * F + D;
const FRAG_EXTRA = D * (NFRAG - 1); // frames fanout's reassembly folds away
const FRAG_WIRE = 14 + 20 + 8 + FRAG_UDP_PAYLOAD; // the reassembled frame

// Frames, k-major so that every flow is open at once:
//  UDP f: 10.77.(1+f/256).(f%256):10000+f → 10.78.0.1:9000, K packets client → server;
//  TCP f: 10.79.(1+f/256).(f%256):20000+f ↔ 10.80.0.1:5001, SYN, SYN|ACK, ACK, then
//         PSH|ACK with 12 bytes alternately (even k client → server, odd k back);
//  fragmented d: 10.81.(1+d/256).(d%256):40000+d → 10.82.0.1:9100, its NFRAG
//         fragments back to back, the datagrams spread evenly over the stream.
// Retries a send the kernel refuses for a full queue (ENOBUFS): `sent` is what it took.
const SENDER = `
import socket, struct, sys, time, json, errno
ifname, F, K, D = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def csum(b):
    if len(b) % 2: b += bytes(1)
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
A, B = bytes.fromhex('02000000000a'), bytes.fromhex('02000000000b')
def ip4(src, dst, proto, body, ident=0, frag=0):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(body), ident, frag, 64, proto, 0, src, dst)
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + body
def addr(a, b, n): return bytes([10, a, 1 + (n >> 8), n & 255])
def udp(f, k):
    payload = struct.pack('!II', f, k) + bytes(10)
    u = struct.pack('!HHHH', 10000 + f, 9000, 8 + len(payload), 0) + payload
    return B + A + b'\\x08\\x00' + ip4(addr(77, 0, f), bytes([10, 78, 0, 1]), 17, u)
cseq, sseq = [1000] * F, [5000] * F
def tcp(f, k):
    cli, srv = addr(79, 0, f), bytes([10, 80, 0, 1])
    c2s = k % 2 == 0
    flags = 0x02 if k == 0 else 0x12 if k == 1 else 0x10 if k == 2 else 0x18
    payload = struct.pack('!III', f, k, 0) if k >= 3 else b''
    seq, ack = (cseq[f], sseq[f]) if c2s else (sseq[f], cseq[f])
    if k == 0: ack = 0
    step = len(payload) + (1 if flags & 0x02 else 0)
    if c2s: cseq[f] += step
    else: sseq[f] += step
    src, dst, sp, dp = (cli, srv, 20000 + f, 5001) if c2s else (srv, cli, 5001, 20000 + f)
    t = struct.pack('!HHIIBBHHH', sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    t = t[:16] + struct.pack('!H', csum(src + dst + struct.pack('!BBH', 0, 6, len(t)) + t)) + t[18:]
    return (B + A if c2s else A + B) + b'\\x08\\x00' + ip4(src, dst, 6, t)
def fragments(d):
    body = bytes([d & 255]) * ${FRAG_UDP_PAYLOAD}
    u = struct.pack('!HHHH', 40000 + d, 9100, 8 + len(body), 0) + body
    cuts = [0, 1000, 2000, len(u)]
    out = []
    for i in range(len(cuts) - 1):
        more = 0x2000 if i < len(cuts) - 2 else 0
        out.append(B + A + b'\\x08\\x00' + ip4(addr(81, 0, d), bytes([10, 82, 0, 1]), 17, u[cuts[i]:cuts[i + 1]], 0x1000 + d, more | (cuts[i] // 8)))
    return out
frames = []
for k in range(K):
    for f in range(F):
        frames.append(udp(f, k))
        frames.append(tcp(f, k))
every = max(1, len(frames) // max(1, D))
mixed = []
for i, b in enumerate(frames):
    mixed.append(b)
    if (i + 1) % every == 0 and (i + 1) // every <= D: mixed.extend(fragments((i + 1) // every - 1))
for d in range(len(frames) // every, D): mixed.extend(fragments(d))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
t0 = time.monotonic()
sent = 0
for b in mixed:
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

function send(): { sent: number; secs: number } {
  return JSON.parse(net.nsExec(['python3', '-c', SENDER, IF_NS, String(F), String(K), String(D)]).trim());
}

// Two packet sockets on the near end in one fanout group, HASH | DEFRAG as the
// engine's workers join it (the kernel picks a free group id: UNIQUEID). Says
// "ready" once both joined; on a line on stdin drains both until 500 ms pass
// without a frame, then reports what each got: frames, ring drops, the flows
// (endpoint pairs in either order) seen by both sockets, fragments seen as
// such, and the fragmented datagrams seen whole (one frame of the full size).
const FANOUT_RECEIVER = `
import socket, struct, sys, json, select
ifname = sys.argv[1]
SOL_PACKET, PACKET_FANOUT, PACKET_STATISTICS, SO_RCVBUFFORCE = 263, 18, 6, 33
HASH, DEFRAG, UNIQUEID = 0, 0x8000, 0x2000
socks = []
group = 0
for i in range(2):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 512 << 20)
    s.bind((ifname, 3))
    s.setblocking(False)
    if i == 0:
        s.setsockopt(SOL_PACKET, PACKET_FANOUT, struct.pack('I', (HASH | DEFRAG | UNIQUEID) << 16))
        group = struct.unpack('I', s.getsockopt(SOL_PACKET, PACKET_FANOUT, 4))[0] & 0xffff
    else:
        s.setsockopt(SOL_PACKET, PACKET_FANOUT, struct.pack('I', group | ((HASH | DEFRAG) << 16)))
    socks.append(s)
# frames of other interfaces queued before bind()
for s in socks:
    try:
        while True: s.recv(65535)
    except BlockingIOError: pass
for s in socks: s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)  # reading resets them
print('ready', flush=True)
sys.stdin.readline()
frames, owner = [0, 0], {}
split = fragments = whole = other = 0
while True:
    r, _, _ = select.select(socks, [], [], 0.5)
    if not r: break
    for s in r:
        i = socks.index(s)
        try:
            while True:
                b = s.recv(65535)
                frames[i] += 1
                if len(b) < 34 or b[12:14] != b'\\x08\\x00':
                    other += 1
                    continue
                ihl = (b[14] & 15) * 4
                total, frag, proto = struct.unpack('!H', b[16:18])[0], struct.unpack('!H', b[20:22])[0], b[23]
                src, dst = b[26:30], b[30:34]
                if frag & 0x3fff:
                    fragments += 1
                    key = (proto, min(src, dst), max(src, dst))
                else:
                    sp, dp = struct.unpack('!HH', b[14 + ihl:18 + ihl])
                    key = (proto, min((src, sp), (dst, dp)), max((src, sp), (dst, dp)))
                    if src[1] == 81 and len(b) == ${FRAG_WIRE}: whole += 1
                if owner.setdefault(key, i) != i and owner[key] != 2:
                    owner[key] = 2
                    split += 1
        except BlockingIOError: pass
drops = [struct.unpack('II', s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))[1] for s in socks]
print(json.dumps({'group': group, 'frames': frames, 'drops': drops, 'flows': len(owner), 'split': split,
                  'fragments': fragments, 'whole': whole, 'other': other}), flush=True)
`;

interface FanoutReport {
  group: number;
  frames: [number, number];
  drops: [number, number];
  flows: number;
  split: number;
  fragments: number;
  whole: number;
  other: number;
}

/** Polls until `cond` holds; fails after `ms` (a bound, not a timing assertion). */
async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Then until packets + drops stop moving, so that a surplus (fragments handed over as sent, a frame taken twice) shows too. */
async function settled(eng: Engine): Promise<void> {
  let last = -1;
  await waitFor(() => {
    const now = eng.stats().packets + eng.stats().drops;
    const same = now === last;
    last = now;
    return same;
  }, 'the counts to settle');
}

const isFragFlow = (ip: string) => ip.startsWith('10.81.');

describe.skipIf(!!skipReason)('live capture with two workers (AF_PACKET fanout)', () => {
  const engines: Engine[] = [];
  beforeAll(() => net.setup());
  afterEach(() => {
    for (const e of engines.splice(0)) e.close();
  });
  afterAll(() => {
    for (const e of engines.splice(0)) e.close();
    net.teardown();
  });

  it('the kernel’s fanout itself: flows (both directions) stay on one socket, both sockets get some, fragments arrive reassembled', async () => {
    const rx = spawn('python3', ['-c', FANOUT_RECEIVER, IF_ROOT], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: rx.stdout! })[Symbol.asyncIterator]();
    try {
      expect((await lines.next()).value).toBe('ready');
      const rx0 = rxPackets();
      const { sent } = send();
      expect(sent).toBe(FRAMES);
      const received = rxPackets() - rx0;
      rx.stdin!.write('go\n');
      const r = JSON.parse((await lines.next()).value as string) as FanoutReport;
      console.log(`live-workers fanout: group ${r.group}, kernel received ${received}, sockets ${r.frames.join(' + ')}, drops ${r.drops.join(' + ')}`);
      expect(r.other).toBe(0);
      expect(r.fragments).toBe(0);
      expect(r.split).toBe(0);
      expect(r.frames[0]).toBeGreaterThan(0);
      expect(r.frames[1]).toBeGreaterThan(0);
      const got = r.frames[0] + r.frames[1] + r.drops[0] + r.drops[1];
      if (received === sent) {
        expect(got).toBe(received - FRAG_EXTRA);
        if (r.drops[0] + r.drops[1] === 0) {
          expect(r.flows).toBe(FLOWS);
          expect(r.whole).toBe(D);
        }
      } else {
        // a frame the veth refused may be a fragment: its datagram never completes
        expect(got).toBeLessThanOrEqual(received);
        expect(got).toBeGreaterThanOrEqual(received - D * NFRAG);
      }
    } finally {
      rx.kill();
    }
  });

  it('every received frame is processed by a worker or counted as a ring drop; with no drop, every flow once', async () => {
    const eng = new Engine({ iface: IF_ROOT, promisc: true, workers: 2, maxFlows: 16384, maxHosts: 16384 });
    engines.push(eng);
    eng.start();
    // An addon that counts per worker runs the two asked for, over fanout;
    // one without runs a single handle (no fanout), which sees the fragments
    // as sent.
    const perWorker = eng.workerPackets();
    if (perWorker) expect(perWorker).toHaveLength(2);
    const fanout = (perWorker?.length ?? 1) > 1;
    const rx0 = rxPackets();
    const { sent, secs } = send();
    expect(sent).toBe(FRAMES);
    console.log(`live-workers: ${sent} frames sent in ${secs.toFixed(2)} s (${(sent / secs / 1e6).toFixed(2)} Mpps offered)`);
    const rx = () => rxPackets() - rx0;
    // what the packet sockets are handed: one reassembled datagram for its fragments
    const visible = () => rx() - (fanout ? FRAG_EXTRA : 0);
    await waitFor(() => eng.stats().packets + eng.stats().drops >= visible() && rx() > 0, 'every received frame processed or counted as dropped');
    await settled(eng);
    const st = eng.stats();
    const workers = eng.workerPackets();
    console.log(`live-workers: kernel received ${rx()}, engine ${st.packets} (workers ${workers?.join(' + ') ?? 'not counted'}), ring drops ${st.drops}`);
    expect(rx()).toBeLessThanOrEqual(sent); // the veth may refuse a frame at its backlog, never invent one
    if (rx() === sent) expect(st.packets + st.drops).toBe(visible());
    else {
      expect(st.packets + st.drops).toBeLessThanOrEqual(rx());
      expect(st.packets + st.drops).toBeGreaterThanOrEqual(rx() - D * NFRAG);
    }
    if (workers) {
      expect(workers.reduce((a, n) => a + n, 0)).toBe(st.packets);
      expect(workers.every((n) => n > 0)).toBe(true); // the hash spreads 4300 flows over both
    }
    if (st.drops !== 0) {
      expect(st.flows_created).toBeLessThanOrEqual(FLOWS);
      return;
    }
    // a flow split over two workers (one direction each) would be two flows
    expect(st.flows_created).toBe(FLOWS);
    const flows = eng.flows({ limit: FLOWS + 10 });
    expect(flows.total).toBe(FLOWS);
    expect(flows.rows).toHaveLength(FLOWS);
    expect(flows.rows.reduce((a, f) => a + f.cli2srv_packets + f.srv2cli_packets, 0)).toBe(st.packets);
    expect(st.decode['decode.ip.fragments']).toBe(fanout ? 0 : D * NFRAG);
    if (rx() !== sent) return;
    const udp = flows.rows.filter((f) => f.proto === 17 && !isFragFlow(f.client.ip));
    const tcp = flows.rows.filter((f) => f.proto === 6);
    const frag = flows.rows.filter((f) => f.proto === 17 && isFragFlow(f.client.ip));
    expect([udp.length, tcp.length, frag.length]).toEqual([F, F, D]);
    expect(udp.every((f) => f.cli2srv_packets === K && f.srv2cli_packets === 0)).toBe(true);
    // the SYN's sender is the client; both directions met in one worker
    expect(tcp.every((f) => f.client.ip.startsWith('10.79.') && f.server.port === 5001)).toBe(true);
    expect(tcp.every((f) => f.cli2srv_packets === K / 2 && f.srv2cli_packets === K / 2)).toBe(true);
    expect(frag.every((f) => f.server.port === 9100 && f.srv2cli_packets === 0)).toBe(true);
    if (fanout) expect(frag.every((f) => f.cli2srv_packets === 1 && f.cli2srv_bytes === FRAG_WIRE)).toBe(true);
    else expect(frag.every((f) => f.cli2srv_packets === NFRAG)).toBe(true);
  });

  it('a recording (--record) with two workers: each records what the kernel gave it, merged by time: every packet once, in time order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-live-rec2-'));
    try {
      const eng = new Engine({ iface: IF_ROOT, promisc: true, workers: 2, maxFlows: 16384, maxHosts: 16384, record: { dir, maxBytes: 256 << 20 } });
      engines.push(eng);
      eng.start();
      const fanout = (eng.workerPackets()?.length ?? 1) > 1;
      const t0 = Date.now();
      const rx0 = rxPackets();
      const { sent } = send();
      expect(sent).toBe(FRAMES);
      const rx = () => rxPackets() - rx0;
      const visible = () => rx() - (fanout ? FRAG_EXTRA : 0);
      await waitFor(() => eng.stats().packets + eng.stats().drops >= visible(), 'every received frame processed or counted as dropped');
      await settled(eng);
      const st = eng.stats();
      // the writer goes on once each quiet worker's clock passes the others' records
      await waitFor(() => (eng.recorderStats()?.packets ?? 0) + (eng.recorderStats()?.drops ?? 0) >= st.packets, 'the recorder to write what the workers took');
      const rs = eng.recorderStats()!;
      console.log(`live-workers record: workers ${eng.workerPackets()?.join(' + ') ?? 'not counted'}, recorded ${rs.packets}, recorder drops ${rs.drops}, ring drops ${st.drops}`);
      expect(rs.packets + rs.drops).toBe(st.packets);
      expect(rs.writeErrors).toBe(0);
      const out = await extractAll({ dir, beginNs: Math.floor(t0 / 1000) * 1e9, endNs: (Math.floor(Date.now() / 1000) + 1) * 1e9 });
      const recs = pcapRecords(out).records;
      expect(recs).toHaveLength(rs.packets);
      // one file, in time order over both workers' packets
      const ts = recs.map((r) => r.sec * 1e6 + r.frac);
      expect(ts.filter((t, i) => i > 0 && t < ts[i - 1]!)).toEqual([]);
      // every frame the sender made, once: UDP (f, k) from the payload, TCP
      // (f, k) from the segment, the fragmented datagrams whole (fanout) or as sent
      const udpSeen = new Set<number>(), tcpSeen = new Set<string>();
      let frags = 0, other = 0;
      for (const r of recs) {
        const b = out.subarray(r.offset + 16, r.end);
        const proto = b[23], src = b[27];
        if (proto === 17 && src === 77) udpSeen.add(b.readUInt32BE(42) * K + b.readUInt32BE(46));
        else if (proto === 6) tcpSeen.add(`${b.readUInt16BE(34)}:${b.readUInt16BE(36)}:${b.readUInt32BE(38)}:${b[47]}`);
        else if (proto === 17 && src === 81) frags++;
        else other++;
      }
      expect(other).toBe(0);
      expect(udpSeen.size + tcpSeen.size + frags).toBe(recs.length); // no frame twice
      if (st.drops === 0 && rs.drops === 0 && rx() === sent) {
        expect([udpSeen.size, tcpSeen.size, frags]).toEqual([F * K, F * K, fanout ? D : D * NFRAG]);
        if (fanout) expect(recs.filter((r) => r.caplen === FRAG_WIRE)).toHaveLength(D);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rings too small for what arrives while the workers do not read them: the overflow is counted as drops over both, exactly', async () => {
    // The handles are open (their rings fill) but the workers start only
    // after the sender is done: a 1 MiB ring each holds a few thousand frames.
    const eng = new Engine({ iface: IF_ROOT, promisc: true, workers: 2, ringMb: 1, maxFlows: 16384, maxHosts: 16384 });
    engines.push(eng);
    const fanout = (eng.workerPackets()?.length ?? 1) > 1;
    const rx0 = rxPackets();
    const { sent } = send();
    expect(sent).toBe(FRAMES);
    eng.start();
    const rx = () => rxPackets() - rx0;
    const visible = () => rx() - (fanout ? FRAG_EXTRA : 0);
    await waitFor(() => eng.stats().packets + eng.stats().drops >= visible() && eng.stats().drops > 0, 'the ring drops reported');
    await settled(eng);
    const st = eng.stats();
    console.log(`live-workers: kernel received ${rx()}, engine ${st.packets} (workers ${eng.workerPackets()?.join(' + ') ?? 'not counted'}), ring drops ${st.drops}`);
    expect(st.drops).toBeGreaterThan(0);
    expect(st.packets).toBeGreaterThan(0);
    if (rx() === sent) expect(st.packets + st.drops).toBe(visible());
    else expect(st.packets + st.drops).toBeLessThanOrEqual(rx());
  });
});
