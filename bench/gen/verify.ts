// Cross-checks a generated capture against its flow list (JSONL) with tshark:
//  1. `tshark -q -z conv,tcp -z conv,udp`: per-conversation frames (exact) and bytes (exact below
//     10 kB; tshark 4.x prints larger values truncated to kB/MB, compared at that precision);
//  2. one `tshark -T fields` pass: exact per-direction frames/bytes for every flow, the SNI
//     (TLS and decrypted QUIC Initials), HTTP Host, DNS query names, the dissected protocol of
//     every app and the absence of malformed packets.
//
//   node dist/bench/gen/verify.js <capture.pcap> <flows.jsonl> [--tshark path] [--max-report N]
// Exit status 0 when everything matches, 1 otherwise.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { FlowRecord } from './generate.js';
import { formatIp, parseIp } from './packets.js';

export interface VerifyOptions {
  tshark?: string; // tshark binary (default "tshark")
  conv?: boolean; // run the conversation-statistics check (default true)
  fields?: boolean; // run the per-packet fields check (default true)
  maxReport?: number; // max mismatch lines kept (default 50)
}

export interface VerifyReport {
  ok: boolean;
  flows: number; // flows in the JSONL
  packets: number; // packets seen by tshark (fields pass)
  convRows: number; // rows in conv,tcp + conv,udp
  convMatched: number;
  exactMatched: number; // flows whose per-direction frames+bytes match exactly
  malformed: number;
  sniChecked: number; // tls/quic flows whose SNI was checked
  hostChecked: number; // http flows whose Host was checked
  dnsChecked: number; // dns flows whose query name was checked
  mismatches: string[];
  mismatchCount: number;
}

function canonIp(s: string): string {
  return formatIp(parseIp(s));
}

function flowKey(proto: string, a: string, ap: number, b: string, bp: number): string {
  return `${proto}|${a}|${ap}|${b}|${bp}`;
}

export function readFlows(jsonl: string): FlowRecord[] {
  const out: FlowRecord[] = [];
  for (const line of readFileSync(jsonl, 'utf8').split('\n')) {
    if (line.trim()) out.push(JSON.parse(line) as FlowRecord);
  }
  return out;
}

const UNIT_DIV: Record<string, number> = { bytes: 1, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };

/** Does tshark's printed size ("6857 bytes", "25 kB") agree with an exact byte count? */
function sizeMatches(value: number, unit: string, exact: number): boolean {
  const div = UNIT_DIV[unit];
  if (div === undefined) return false;
  return Math.floor(exact / div) === value;
}

interface ConvRow {
  proto: 'tcp' | 'udp';
  a: string;
  ap: number;
  b: string;
  bp: number;
  bToAFrames: number; // "<-" column
  bToABytes: [number, string];
  aToBFrames: number; // "->" column
  aToBBytes: [number, string];
}

const CONV_RE =
  /^(\S+):(\d+)\s+<->\s+(\S+):(\d+)\s+(\d+)\s+(\d+) (bytes|kB|MB|GB|TB)\s+(\d+)\s+(\d+) (bytes|kB|MB|GB|TB)\s+(\d+)\s+(\d+) (bytes|kB|MB|GB|TB)\s/;

export function parseConv(text: string): ConvRow[] {
  const rows: ConvRow[] = [];
  let proto: 'tcp' | 'udp' | null = null;
  for (const line of text.split('\n')) {
    if (/^TCP Conversations/.test(line)) proto = 'tcp';
    else if (/^UDP Conversations/.test(line)) proto = 'udp';
    const m = CONV_RE.exec(line);
    if (!m || !proto) continue;
    rows.push({
      proto,
      a: canonIp(m[1]!),
      ap: Number(m[2]),
      b: canonIp(m[3]!),
      bp: Number(m[4]),
      bToAFrames: Number(m[5]),
      bToABytes: [Number(m[6]), m[7]!],
      aToBFrames: Number(m[8]),
      aToBBytes: [Number(m[9]), m[10]!],
    });
  }
  return rows;
}

const APP_PROTO: Record<string, string> = {
  tls: 'tls', http: 'http', dns: 'dns', quic: 'quic', ssh: 'ssh', ntp: 'ntp',
};

interface FlowSeen {
  c2sPkts: number;
  c2sBytes: number;
  s2cPkts: number;
  s2cBytes: number;
  protos: Set<string>; // last dissected protocol of each frame (beyond tcp/udp)
  sni: Set<string>;
  httpHost: Set<string>;
  dnsName: Set<string>;
}

export async function verifyCapture(pcap: string, jsonl: string, o: VerifyOptions = {}): Promise<VerifyReport> {
  const tshark = o.tshark ?? 'tshark';
  const maxReport = o.maxReport ?? 50;
  const flows = readFlows(jsonl);
  const rep: VerifyReport = {
    ok: false, flows: flows.length, packets: 0, convRows: 0, convMatched: 0, exactMatched: 0, malformed: 0,
    sniChecked: 0, hostChecked: 0, dnsChecked: 0, mismatches: [], mismatchCount: 0,
  };
  const bad = (msg: string): void => {
    rep.mismatchCount++;
    if (rep.mismatches.length < maxReport) rep.mismatches.push(msg);
  };

  // index: both orientations -> [flow index, isC2S]
  const index = new Map<string, [number, boolean]>();
  flows.forEach((f, i) => {
    const cli = canonIp(f.cli);
    const srv = canonIp(f.srv);
    const k1 = flowKey(f.proto, cli, f.cport, srv, f.sport);
    if (index.has(k1)) bad(`duplicate 5-tuple in flow list: ${k1}`);
    index.set(k1, [i, true]);
    index.set(flowKey(f.proto, srv, f.sport, cli, f.cport), [i, false]);
  });
  const describe = (f: FlowRecord): string => `${f.proto} ${f.cli}:${f.cport} -> ${f.srv}:${f.sport} (${f.app})`;

  // ---- 1. conversation statistics
  if (o.conv !== false) {
    const r = spawnSync(tshark, ['-n', '-r', pcap, '-q', '-z', 'conv,tcp', '-z', 'conv,udp'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    if (r.status !== 0) throw new Error(`tshark conv failed: ${r.stderr}`);
    const rows = parseConv(r.stdout);
    rep.convRows = rows.length;
    const seen = new Uint8Array(flows.length);
    for (const row of rows) {
      const hit = index.get(flowKey(row.proto, row.a, row.ap, row.b, row.bp));
      if (!hit) {
        bad(`conv row not in flow list: ${row.proto} ${row.a}:${row.ap} <-> ${row.b}:${row.bp}`);
        continue;
      }
      const [i, aIsClient] = hit;
      const f = flows[i]!;
      seen[i] = 1;
      const c2s = aIsClient
        ? { frames: row.aToBFrames, bytes: row.aToBBytes }
        : { frames: row.bToAFrames, bytes: row.bToABytes };
      const s2c = aIsClient
        ? { frames: row.bToAFrames, bytes: row.bToABytes }
        : { frames: row.aToBFrames, bytes: row.aToBBytes };
      const ok =
        c2s.frames === f.c2s_pkts &&
        s2c.frames === f.s2c_pkts &&
        sizeMatches(c2s.bytes[0], c2s.bytes[1], f.c2s_bytes) &&
        sizeMatches(s2c.bytes[0], s2c.bytes[1], f.s2c_bytes);
      if (ok) rep.convMatched++;
      else {
        bad(
          `conv mismatch ${describe(f)}: tshark c2s ${c2s.frames}/${c2s.bytes.join(' ')} s2c ${s2c.frames}/${s2c.bytes.join(' ')}` +
            `, list c2s ${f.c2s_pkts}/${f.c2s_bytes} s2c ${f.s2c_pkts}/${f.s2c_bytes}`,
        );
      }
    }
    flows.forEach((f, i) => {
      if (!seen[i]) bad(`flow missing from tshark conversations: ${describe(f)}`);
    });
  }

  // ---- 2. per-packet fields
  if (o.fields !== false) {
    const fields = [
      'frame.len', 'ip.src', 'ip.dst', 'ipv6.src', 'ipv6.dst', 'tcp.srcport', 'tcp.dstport', 'udp.srcport',
      'udp.dstport', 'frame.protocols', 'tls.handshake.extensions_server_name', 'http.host', 'dns.qry.name',
      '_ws.malformed',
    ];
    const args = ['-n', '-r', pcap, '-T', 'fields', '-E', 'separator=\t', '-E', 'occurrence=a', '-E', 'aggregator=,'];
    for (const f of fields) args.push('-e', f);
    const child = spawn(tshark, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const seen: (FlowSeen | undefined)[] = new Array<FlowSeen | undefined>(flows.length);
    const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
    for await (const line of rl) {
      if (!line) continue;
      rep.packets++;
      const c = line.split('\t');
      const len = Number(c[0]);
      const src = c[1] || c[3] || '';
      const dst = c[2] || c[4] || '';
      const tcp = !!c[5];
      const sp = Number(tcp ? c[5] : c[7]);
      const dp = Number(tcp ? c[6] : c[8]);
      const protos = c[9] ?? '';
      if (c[13]) rep.malformed++;
      if (!src || !dst || !(sp >= 0)) {
        bad(`packet ${rep.packets}: not a TCP/UDP over IP frame (${protos})`);
        continue;
      }
      // tshark prints IPv6 addresses compressed; src/dst may carry several values for tunnels (none here)
      const key = flowKey(tcp ? 'tcp' : 'udp', canonIp(src.split(',')[0]!), sp, canonIp(dst.split(',')[0]!), dp);
      const hit = index.get(key);
      if (!hit) {
        bad(`packet ${rep.packets} belongs to no listed flow: ${key}`);
        continue;
      }
      const [i, isC2S] = hit;
      let s = seen[i];
      if (!s) {
        s = seen[i] = {
          c2sPkts: 0, c2sBytes: 0, s2cPkts: 0, s2cBytes: 0, protos: new Set(), sni: new Set(), httpHost: new Set(),
          dnsName: new Set(),
        };
      }
      if (isC2S) {
        s.c2sPkts++;
        s.c2sBytes += len;
      } else {
        s.s2cPkts++;
        s.s2cBytes += len;
      }
      const parts = protos.split(':');
      const l4 = parts.lastIndexOf(tcp ? 'tcp' : 'udp');
      if (l4 >= 0 && l4 + 1 < parts.length) s.protos.add(parts[l4 + 1]!);
      if (c[10]) for (const v of c[10].split(',')) s.sni.add(v);
      if (c[11]) for (const v of c[11].split(',')) s.httpHost.add(v);
      if (c[12]) for (const v of c[12].split(',')) s.dnsName.add(v);
    }
    const code: number = await new Promise((res) => child.on('close', (x) => res(x ?? 1)));
    if (code !== 0) throw new Error(`tshark fields pass failed (${code}): ${stderr}`);

    flows.forEach((f, i) => {
      const s = seen[i];
      if (!s) {
        bad(`no packets for flow ${describe(f)}`);
        return;
      }
      if (s.c2sPkts === f.c2s_pkts && s.c2sBytes === f.c2s_bytes && s.s2cPkts === f.s2c_pkts && s.s2cBytes === f.s2c_bytes) {
        rep.exactMatched++;
      } else {
        bad(
          `exact mismatch ${describe(f)}: pcap c2s ${s.c2sPkts}/${s.c2sBytes} s2c ${s.s2cPkts}/${s.s2cBytes}, ` +
            `list c2s ${f.c2s_pkts}/${f.c2s_bytes} s2c ${f.s2c_pkts}/${f.s2c_bytes}`,
        );
      }
      const want = APP_PROTO[f.app];
      if (want && !s.protos.has(want)) bad(`${describe(f)}: no frame dissected as ${want} (saw ${[...s.protos].join(',') || 'none'})`);
      if (!want) {
        const other = [...s.protos].filter((p) => p !== 'data');
        if (other.length) bad(`${describe(f)}: opaque flow dissected as ${other.join(',')}`);
      }
      const one = (set: Set<string>, what: string): boolean => {
        if (set.size === 1 && set.has(f.host ?? '')) return true;
        bad(`${describe(f)}: ${what} ${JSON.stringify([...set])}, expected ${JSON.stringify(f.host)}`);
        return false;
      };
      if (f.app === 'tls' || f.app === 'quic') {
        if (one(s.sni, 'SNI')) rep.sniChecked++;
      } else if (f.app === 'http') {
        if (one(s.httpHost, 'HTTP Host')) rep.hostChecked++;
      } else if (f.app === 'dns') {
        if (one(s.dnsName, 'DNS query name')) rep.dnsChecked++;
      } else if (s.sni.size || s.httpHost.size || s.dnsName.size) {
        bad(`${describe(f)}: unexpected names ${[...s.sni, ...s.httpHost, ...s.dnsName].join(',')}`);
      }
    });
    if (rep.malformed) bad(`${rep.malformed} malformed packet(s) (tshark -Y _ws.malformed)`);
    const listed = flows.reduce((a, f) => a + f.c2s_pkts + f.s2c_pkts, 0);
    if (listed !== rep.packets) bad(`packet count: pcap ${rep.packets}, flow list ${listed}`);
  }

  rep.ok = rep.mismatchCount === 0;
  return rep;
}

async function main(argv: string[]): Promise<number> {
  const pos: string[] = [];
  const o: VerifyOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--tshark') o.tshark = argv[++i];
    else if (a === '--max-report') o.maxReport = Number(argv[++i]);
    else if (a === '--no-conv') o.conv = false;
    else if (a === '--no-fields') o.fields = false;
    else pos.push(a);
  }
  if (pos.length !== 2) {
    process.stderr.write('usage: verify.js <capture.pcap> <flows.jsonl> [--tshark path] [--max-report N] [--no-conv] [--no-fields]\n');
    return 2;
  }
  const r = await verifyCapture(pos[0]!, pos[1]!, o);
  for (const m of r.mismatches) process.stdout.write(`MISMATCH ${m}\n`);
  if (r.mismatchCount > r.mismatches.length) process.stdout.write(`... ${r.mismatchCount - r.mismatches.length} more\n`);
  process.stdout.write(
    `verify: ${r.ok ? 'OK' : 'FAILED'} flows=${r.flows} packets=${r.packets} conv=${r.convMatched}/${r.convRows} ` +
      `exact=${r.exactMatched}/${r.flows} sni=${r.sniChecked} http_host=${r.hostChecked} dns=${r.dnsChecked} ` +
      `malformed=${r.malformed} mismatches=${r.mismatchCount}\n`,
  );
  return r.ok ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`verify: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
      process.exit(2);
    },
  );
}
