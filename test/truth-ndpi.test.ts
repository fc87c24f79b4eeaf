// Every capture of nDPI's test suite against nDPI's own per-flow records
// (../shared/pcaps/ndpi-truth/<capture>.jsonl): flows are matched by
// (IP protocol number, endpoint pair with addresses normalised, VLAN) and the
// per-direction packet and byte counters compared.
//
// Known, intended differences (why the whole-suite bar is a share, not 100%):
// - we count later IPv4/IPv6 fragments to the flow of the first fragment, nDPI doesn't;
// - we count whole frame lengths (the pcap record's original length, as tshark), nDPI
//   the captured length: differs where snaplen cut frames (fins.pcap);
// - we drop frames with a malformed transport header (decode.* counters), nDPI keeps
//   some of them (fuzz captures, kerberos_fuzz.pcapng);
// - 3 packets in capwap.pcap.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { FlowRecord } from '../ts/bindings/native.js';
import { flowDir, l4Number, pairKey, runEngine, tool, NDPI_PCAPS, NDPI_TRUTH } from './fixtures/util.js';

const PCAPS = NDPI_PCAPS;
const TRUTH = NDPI_TRUTH;

interface Truth {
  l4: string;
  src: string;
  sport: number;
  dst: string;
  dport: number;
  vlan?: number;
  tunnel?: string;
  c2s_pkts: number;
  c2s_bytes: number;
  s2c_pkts: number;
  s2c_bytes: number;
}

interface CaptureResult {
  state: string;
  error: string | null;
  packets: number;
  flows: FlowRecord[];
  truth: Truth[];
}

type Outcome = 'exact' | 'differs' | 'missing';

function flowKey(f: FlowRecord): string {
  return pairKey(f.proto, f.vlan, f.client.ip, f.client.port, f.server.ip, f.server.port);
}

function truthKey(t: Truth): string {
  return pairKey(l4Number(t.l4), t.vlan ?? 0, t.src, t.sport, t.dst, t.dport);
}

/** Matches each nDPI flow to ours; returns per-flow outcomes and a readable diff. */
function compare(r: CaptureResult): { outcome: Outcome; line: string }[] {
  const byKey = new Map<string, FlowRecord>();
  for (const f of r.flows) {
    const k = flowKey(f);
    expect(byKey.has(k), `two flows with key ${k}`).toBe(false);
    byKey.set(k, f);
  }
  return r.truth.map((t) => {
    const desc = `${t.l4} ${t.src}:${t.sport} -> ${t.dst}:${t.dport} vlan ${t.vlan ?? 0}`;
    const f = byKey.get(truthKey(t));
    if (!f) return { outcome: 'missing' as const, line: `${desc}: not found` };
    const d = flowDir(f, t.src, t.sport)!;
    const ours = [d.fwdPkts, d.fwdBytes, d.revPkts, d.revBytes];
    const theirs = [t.c2s_pkts, t.c2s_bytes, t.s2c_pkts, t.s2c_bytes];
    const same = ours.every((v, i) => v === theirs[i]);
    return { outcome: same ? ('exact' as const) : ('differs' as const), line: `${desc}: ours ${ours.join('/')} nDPI ${theirs.join('/')}` };
  });
}

const captures = readdirSync(PCAPS)
  .filter((f) => existsSync(join(TRUTH, `${f}.jsonl`)))
  .sort();
const results = new Map<string, CaptureResult>();

beforeAll(async () => {
  for (const name of captures) {
    const truth = readFileSync(join(TRUTH, `${name}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Truth);
    const r = await runEngine([join(PCAPS, name)]);
    results.set(name, { state: r.st.state, error: r.st.error, packets: r.stats.packets, flows: r.flows, truth });
  }
});

describe('nDPI ground truth: every capture', () => {
  it('has a truth file for (nearly) every capture', () => {
    expect(captures.length).toBeGreaterThanOrEqual(340);
  });

  it('loads every capture to the end; only files capinfos also finds damaged report an error', () => {
    // capinfos -c reads every record; it names the files it finds cut short or corrupt on stderr.
    let stderr = '';
    let stdout = '';
    try {
      stdout = tool('capinfos', ['-T', '-r', '-c', ...captures.map((c) => join(PCAPS, c))]);
    } catch (e) {
      const err = e as { stdout: string; stderr: string };
      stdout = err.stdout, stderr = err.stderr;
    }
    const damaged = new Set([...stderr.matchAll(/from "([^"]+)"/g)].map((m) => m[1]!.replace(/^.*\//, '')));
    const capinfosCount = new Map(
      stdout
        .split('\n')
        .filter((l) => l.includes('\t'))
        .map((l) => l.split('\t'))
        .map(([f, n]) => [f!.replace(/^.*\//, ''), Number(n)] as const),
    );

    const notDone = captures.filter((c) => results.get(c)!.state !== 'done');
    expect(notDone).toEqual([]);
    const withError = captures.filter((c) => results.get(c)!.error !== null);
    console.log(`captures: ${captures.length}; reporting an error: ${withError.length}`);
    for (const c of withError) console.log(`  ${c}: ${results.get(c)!.error}`);
    // Each reported error names the file and the byte offset of the damage.
    for (const c of withError) expect(results.get(c)!.error).toMatch(new RegExp(`${c.replace(/[.]/g, '\\.')}: .* at byte offset \\d+$`));
    expect(withError).toEqual([...damaged].sort());

    // The number of frames read equals capinfos' count on every undamaged capture.
    const countDiffs = captures
      .filter((c) => !damaged.has(c))
      .filter((c) => results.get(c)!.packets !== capinfosCount.get(c))
      .map((c) => `${c}: ours ${results.get(c)!.packets} capinfos ${capinfosCount.get(c)}`);
    expect(countDiffs).toEqual([]);
  });

  it('finds >= 99.5% of nDPI flows and matches >= 97% of them exactly', () => {
    let total = 0, found = 0, exact = 0;
    const missing: string[] = [];
    const perCapture: string[] = [];
    for (const c of captures) {
      const out = compare(results.get(c)!);
      total += out.length;
      const ex = out.filter((o) => o.outcome === 'exact').length;
      found += out.filter((o) => o.outcome !== 'missing').length;
      exact += ex;
      for (const o of out) if (o.outcome === 'missing') missing.push(`${c}: ${o.line}`);
      if (ex !== out.length) perCapture.push(`${c} ${ex}/${out.length}`);
    }
    const pct = (n: number) => ((100 * n) / total).toFixed(2);
    console.log(`nDPI flows: ${total}; found ${found} (${pct(found)}%); exact ${exact} (${pct(exact)}%)`);
    console.log(`not found:\n  ${missing.join('\n  ')}`);
    console.log(`captures with differences (exact/total):\n  ${perCapture.join('\n  ')}`);
    expect(total).toBeGreaterThan(6500);
    expect(found / total).toBeGreaterThanOrEqual(0.995);
    expect(exact / total).toBeGreaterThanOrEqual(0.97);
  });
});

// Captures without fragments or tunnels, one per capture format / link type:
// every nDPI flow matches exactly and we report no flow nDPI doesn't.
const NAMED: [string, string][] = [
  ['1kxun.pcap', 'pcap, Ethernet, IPv4 + IPv6'],
  ['sites.pcapng', 'pcapng with 22 interfaces'],
  ['KakaoTalk_talk.pcap', 'Linux cooked (SLL)'],
  ['tencent_games.pcap', 'raw IP (linktype 101)'],
  ['ossfuzz_seed_fake_traces_1.pcapng', 'raw IPv4 (linktype 228) in pcapng'],
  ['nats.pcap', 'BSD null/loopback'],
  ['openwire.pcapng', 'BSD null/loopback in pcapng, IPv6'],
  ['whois.pcapng', '802.1Q VLANs 1603 and 1908 plus untagged'],
  ['rdp2.pcap', '802.1Q VLANs 1108 and 1308'],
  ['BGP_redist.pcap', 'Cisco HDLC'],
  ['alexa-app.pcapng', 'Ethernet pcapng with ICMP, ICMPv6, IGMP'],
];

describe('nDPI ground truth: captures that must match exactly', () => {
  it.each(NAMED)('%s (%s)', (name) => {
    const r = results.get(name);
    expect(r, `${name} was not replayed`).toBeDefined();
    expect(r!.error).toBeNull();
    const out = compare(r!);
    expect(out.filter((o) => o.outcome !== 'exact').map((o) => o.line)).toEqual([]);
    expect(r!.flows.length).toBe(r!.truth.length);
    expect(r!.truth.length).toBeGreaterThan(0);
  });
});
