// Egress on live interfaces, in a network namespace made for this run:
//   - aggregated queue → an interface: frames injected into a veth are
//     captured by the engine on its peer, and what the engine sends out of a
//     second veth pair is captured on the far end with tcpdump;
//   - bridge between two veths (both directions), discarding a subnet.
// Needs root, `ip netns` and tcpdump; skipped otherwise. Everything created
// here is removed in afterAll.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { eth, ETH, ipv4, IPPROTO, mac, udp } from './fixtures/frames.js';
import { vethNamespace } from './fixtures/netns.js';
import { pcapRecords, tempDir } from './fixtures/pcap.js';

const HERE = dirname(fileURLToPath(import.meta.url));

function tryRun(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}
const isRoot = process.getuid?.() === 0;
const skipReason = !isRoot
  ? 'egress live tests need root'
  : !tryRun('ip', ['netns', 'list'])
    ? '`ip netns` is not available'
    : !tryRun('tcpdump', ['--version'])
      ? 'tcpdump is needed to capture the egress interfaces'
      : '';
if (skipReason) console.warn(`test/egress-live.test.ts skipped: ${skipReason}`);

const tag = `fge${process.pid}`;
const NS = tag;
// Root-namespace ends (the engine's) and their peers in NS.
const IN = `${tag}i`, IN_NS = `${tag}I`;
const OUT = `${tag}o`, OUT_NS = `${tag}O`;
const BA = `${tag}a`, BA_NS = `${tag}A`;
const BB = `${tag}b`, BB_NS = `${tag}B`;
const PAIRS: [string, string][] = [[IN, IN_NS], [OUT, OUT_NS], [BA, BA_NS], [BB, BB_NS]];

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
const net = vethNamespace(NS, PAIRS);

async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Raw frames onto `iface` inside the namespace: the `cap` package, else python3. */
function inject(iface: string, frames: Buffer[]): void {
  const hex = frames.map((f) => f.toString('hex'));
  let useCap = true;
  try {
    createRequire(import.meta.url)('cap');
  } catch {
    useCap = false;
  }
  if (useCap) {
    const r = spawnSync('ip', ['netns', 'exec', NS, process.execPath, join(HERE, 'fixtures', 'inject-frames.mjs'), iface, ...hex], { encoding: 'utf8' });
    if (r.status === 0) return void expect(JSON.parse(r.stdout.trim())).toEqual({ sent: frames.length });
    if (r.status !== 3) throw new Error(`inject-frames.mjs failed (${r.status}): ${r.stderr}`);
  }
  const py = ['import socket, sys', 's = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)', 's.bind((sys.argv[1], 0))',
    'for h in sys.argv[2:]:', '    b = bytes.fromhex(h)', '    assert s.send(b) == len(b)'].join('\n');
  run('ip', ['netns', 'exec', NS, 'python3', '-c', py, iface, ...hex]);
}

/** tcpdump -Q in on an interface of the namespace, writing a pcap; resolves once it listens. */
async function tcpdump(iface: string, file: string): Promise<ChildProcess> {
  const p = spawn('ip', ['netns', 'exec', NS, 'tcpdump', '-n', '-i', iface, '-Q', 'in', '-U', '-w', file, 'udp'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise<void>((resolve, reject) => {
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening on')) resolve();
    });
    p.on('exit', (code) => reject(new Error(`tcpdump exited (${code}): ${err}`)));
  });
  return p;
}
async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  await new Promise<void>((r) => {
    p.once('exit', () => r());
    p.kill('SIGINT');
  });
}
function records(file: string): Buffer[] {
  if (!existsSync(file)) return [];
  const b = readFileSync(file);
  if (b.length < 24) return [];
  return pcapRecords(b).records.map((r) => b.subarray(r.offset + 16, r.end));
}

const M1 = mac('02:00:00:00:01:01'), M2 = mac('02:00:00:00:01:02');
function frame(src: string, dst: string, sport: number, dport: number, len: number): Buffer {
  const fwd = src < dst;
  return eth(fwd ? M2 : M1, fwd ? M1 : M2, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.alloc(len, 0x5a))));
}

describe.skipIf(!!skipReason)('egress on live interfaces', () => {
  const tmp = tempDir('flowgate-egress-live-');
  const engines: Engine[] = [];
  const dumps: ChildProcess[] = [];

  beforeAll(() => net.setup());
  afterEach(async () => {
    for (const e of engines.splice(0)) e.close();
    for (const d of dumps.splice(0)) await stop(d);
  });
  afterAll(async () => {
    for (const e of engines.splice(0)) e.close();
    for (const d of dumps.splice(0)) await stop(d);
    net.teardown();
    tmp.cleanup();
  });

  // two workers: each takes its flows from the fanout group and sends them through a socket of its own
  it.each([1, 2])('aggregated queue to an interface: discarded subnet absent, sliced frames cut, others intact (%i workers)', async (workers) => {
    const file = tmp.file(`out-${workers}.pcap`);
    dumps.push(await tcpdump(OUT_NS, file));
    const e = new Engine({ iface: IN, workers, egress: { aggregated: [{ iface: OUT }] } });
    if (workers > 1 && e.workerPackets()) expect(e.workerPackets()).toHaveLength(workers);
    engines.push(e);
    e.setEgressPolicies({
      targets: [{ target: 'aggregated', queue: 0, default: 'forward', subnets: [
        { cidr: '10.77.1.128/25', action: 'discard' },
        { cidr: '10.77.2.0/24', action: 'slice-l4' },
      ], protocols: [] }],
    });
    e.start();
    const keep = [frame('10.77.1.10', '10.77.9.1', 4000, 7000, 100), frame('10.77.9.1', '10.77.1.20', 7000, 4001, 300)];
    const drop = [frame('10.77.1.130', '10.77.9.1', 4002, 7000, 100), frame('10.77.9.1', '10.77.1.200', 7000, 4003, 100)];
    const slice = [frame('10.77.2.5', '10.77.9.1', 4004, 7000, 400)];
    const all = [keep[0]!, drop[0]!, slice[0]!, keep[1]!, drop[1]!];
    inject(IN_NS, all);
    await waitFor(() => e.egressStats().targets[0]!.packets >= all.length, 'the engine to see the frames');
    await waitFor(() => records(file).length >= 3, 'tcpdump to see the forwarded frames');
    await new Promise((r) => setTimeout(r, 300)); // anything else would arrive now
    await stop(dumps.pop()!);
    const got = records(file).map((b) => b.toString('hex'));
    const want = [keep[0]!, slice[0]!.subarray(0, 14 + 20 + 8), keep[1]!].map((b) => b.toString('hex'));
    // one worker keeps the order of arrival; two send their flows each on its own
    if (workers === 1) expect(got).toEqual(want);
    else expect([...got].sort()).toEqual([...want].sort());
    const t = e.egressStats().targets[0]!;
    expect(t).toMatchObject({ output: `iface:${OUT}`, packets: 5, forwarded: 3, discarded: 2, sliced: 1, output_drops: 0 });
    expect(t.outputs[0]!.written).toBe(3);
  });

  it('bridge: A → B and B → A, discarding a subnet, without looping back what it sent', async () => {
    const fa = tmp.file('a.pcap'), fb = tmp.file('b.pcap');
    dumps.push(await tcpdump(BA_NS, fa), await tcpdump(BB_NS, fb));
    const e = new Engine({ egress: { bridge: [BA, BB] } });
    engines.push(e);
    e.setEgressPolicies({ targets: [{ target: 'bridge', default: 'forward', subnets: [{ cidr: '10.78.1.128/25', action: 'discard' }], protocols: [] }] });
    e.start();
    expect(e.state().live).toBe(true);
    const aToB = [frame('10.78.1.10', '10.78.2.1', 5000, 53, 60), frame('10.78.1.130', '10.78.2.1', 5001, 53, 60), frame('10.78.1.11', '10.78.2.1', 5002, 53, 70)];
    const bToA = [frame('10.78.2.1', '10.78.1.10', 53, 5000, 120), frame('10.78.2.1', '10.78.1.130', 53, 5001, 120)];
    inject(BA_NS, aToB);
    inject(BB_NS, bToA);
    await waitFor(() => e.egressStats().targets[0]!.packets >= 5, 'the engine to see the frames');
    await waitFor(() => records(fb).length >= 2 && records(fa).length >= 1, 'tcpdump to see the bridged frames');
    await new Promise((r) => setTimeout(r, 300));
    await stop(dumps.pop()!);
    await stop(dumps.pop()!);
    expect(records(fb).map((b) => b.toString('hex'))).toEqual([aToB[0]!, aToB[2]!].map((b) => b.toString('hex')));
    expect(records(fa).map((b) => b.toString('hex'))).toEqual([bToA[0]!.toString('hex')]);
    const t = e.egressStats().targets[0]!;
    // Exactly the injected frames: what the bridge sent was not captured again.
    expect(t).toMatchObject({ target: 'bridge', output: `bridge:${BA},${BB}`, packets: 5, forwarded: 3, discarded: 2, output_drops: 0 });
    expect(t.outputs.map((o) => [o.output, o.written])).toEqual([[`iface:${BB}`, 2], [`iface:${BA}`, 1]]);
    expect(e.stats().packets).toBe(5);
    // Both directions are one flow.
    const f = e.flows({ host: '10.78.1.10' }).rows;
    expect(f.length).toBe(1);
    expect([f[0]!.cli2srv_packets, f[0]!.srv2cli_packets]).toEqual([1, 1]);
  });
});
