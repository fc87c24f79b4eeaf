// The synthetic generator (bench/gen/generate.ts) knows every flow it wrote:
// each must come out of the engine with exactly its per-direction counters, the
// generator's client as client, and nothing else.
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type FlowRecord as GenFlow, type GenResult, generate } from '../bench/gen/generate.js';
import type { FlowRecord } from '../ts/bindings/native.js';
import { tempDir } from './fixtures/pcap.js';
import { type RunResult, normIp, runEngine, tool } from './fixtures/util.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

let gen: GenResult;
let known: GenFlow[];
let r: RunResult;

beforeAll(async () => {
  const out = tmp.file('gen.pcap');
  const flowsOut = tmp.file('gen.jsonl');
  gen = generate({ out, flowsOut, seed: 20240611, flows: 2000, packets: 20000, hosts: 300, vlanShare: 0.2, ipv6Share: 0.3, durationSec: 30 });
  known = readFileSync(flowsOut, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as GenFlow);
  r = await runEngine([out]);
});

const key = (proto: number, vlan: number, cli: string, cport: number, srv: string, sport: number) => `${proto}|${vlan}|${normIp(cli)}#${cport}|${normIp(srv)}#${sport}`;

describe('synthetic capture from bench/gen', () => {
  it('has the requested shape (VLANs, IPv6) and loads cleanly', () => {
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(known.length).toBe(2000);
    expect(gen.flows).toBe(2000);
    expect(known.filter((f) => f.vlan !== 0).length).toBeGreaterThan(100);
    expect(known.filter((f) => f.cli.includes(':')).length).toBeGreaterThan(100);
    expect(r.stats.packets).toBe(gen.packets);
    expect(r.stats.bytes).toBe(gen.bytes);
    expect(tool('capinfos', ['-T', '-r', '-c', '-d', '-M', gen.file]).trim().split('\t').slice(1).map(Number)).toEqual([gen.packets, gen.bytes]);
    expect(r.stats.malformed).toBe(0);
  });

  it('finds every generated flow with exactly its per-direction packets and bytes, client first', () => {
    const ours = new Map<string, FlowRecord>();
    for (const f of r.flows) ours.set(key(f.proto, f.vlan, f.client.ip, f.client.port, f.server.ip, f.server.port), f);
    const problems: string[] = [];
    for (const g of known) {
      const k = key(g.proto === 'tcp' ? 6 : 17, g.vlan, g.cli, g.cport, g.srv, g.sport);
      const f = ours.get(k);
      if (!f) {
        problems.push(`${k}: not found (or client and server swapped)`);
        continue;
      }
      const got = [f.cli2srv_packets, f.cli2srv_bytes, f.srv2cli_packets, f.srv2cli_bytes];
      const want = [g.c2s_pkts, g.c2s_bytes, g.s2c_pkts, g.s2c_bytes];
      if (got.some((v, i) => v !== want[i])) problems.push(`${k}: ours ${got.join('/')} generated ${want.join('/')}`);
    }
    expect(problems.slice(0, 20)).toEqual([]);
    expect(r.flows.length).toBe(known.length);
  });

  it('hosts add up to the generated traffic', () => {
    const total = known.reduce((s, g) => s + g.c2s_bytes + g.s2c_bytes, 0);
    expect(r.hosts.reduce((s, h) => s + h.bytes_sent, 0)).toBe(total);
    expect(r.hosts.reduce((s, h) => s + h.bytes_rcvd, 0)).toBe(total);
    const vlans = new Set(known.map((g) => g.vlan));
    expect(new Set(r.hosts.map((h) => h.vlan))).toEqual(vlans);
  });
});
