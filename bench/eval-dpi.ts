// `npm run eval:dpi`: classification against nDPI's ground truth. Every
// capture of ../shared/pcaps/ndpi is replayed (flows flushed at the end, so
// unfinished ones get nDPI's port guess), each flow matched to its truth
// record by L4 protocol, endpoints and VLAN, and compared on `proto`
// (master.app). Prints per-flow and per-capture agreement, master-only
// agreement, the top disagreements and the rate.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { type CategoryEntry, compileRules, loadProtosText } from '../ts/services/custom-apps/index.js';

// The project root holds package.json (from bench/ in TS, dist/bench/ compiled).
let root = dirname(fileURLToPath(import.meta.url));
while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root);
const shared = join(root, '..', 'shared', 'pcaps');
const pcapDir = process.env.FLOWGATE_NDPI_PCAPS ?? join(shared, 'ndpi');
const truthDir = process.env.FLOWGATE_NDPI_TRUTH ?? join(shared, 'ndpi-truth');
// ndpiReader produced the truth with nDPI's example protos.txt: the same
// rules here (FLOWGATE_NDPI_PROTOS='' for none, or another file)
const protosFile = process.env.FLOWGATE_NDPI_PROTOS ?? join(root, 'bench', 'ndpi-reader-protos.txt');
// ... and nDPI's example categories.txt (FLOWGATE_NDPI_CATEGORIES='' for none)
const categoriesFile = process.env.FLOWGATE_NDPI_CATEGORIES ?? join(root, 'bench', 'ndpi-reader-categories.txt');

/** nDPI's category file (ndpi_load_categories_file): `name or address<TAB>category id` lines, IPv6 in brackets. */
export function loadCategoriesText(text: string): Record<number, CategoryEntry> {
  const out: Record<number, CategoryEntry> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [name, id] = line.split(/\s+/);
    if (!name || !id || !/^\d+$/.test(id)) continue;
    (out[Number(id)] ??= { hosts: [] }).hosts.push(name.replace(/^\[([^\]]+)\]/, '$1'));
  }
  return out;
}

interface Truth {
  l4: string;
  src: string;
  sport: number;
  dst: string;
  dport: number;
  vlan?: number;
  app: string;
  master: string;
  app_name: string;
  ip_proto_id?: number;
  risks?: string[];
}

/** Per risk name, over flows matched by 5-tuple: in both, ours only, truth only. */
export interface RiskCount {
  tp: number;
  fp: number;
  fn: number;
}

const L4: Record<string, number> = { TCP: 6, UDP: 17, ICMP: 1, ICMPV6: 58, IGMP: 2, ESP: 50, AH: 51, GRE: 47, OSPF: 89, VRRP: 112, SCTP: 132, PIM: 103, PGM: 113 };

/** Full-form address text, so "a::1" and "a:0:0::1" compare equal. */
export function canonIp(s: string): string {
  if (!s.includes(':')) return s;
  const [head, tail = ''] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = s.includes('::') ? (tail ? tail.split(':') : []) : [];
  const mid = s.includes('::') ? Array(8 - h.length - t.length).fill('0') : [];
  return [...h, ...mid, ...t].map((g) => parseInt(g || '0', 16).toString(16)).join(':');
}

const key = (proto: number, a: string, ap: number, b: string, bp: number, vlan: number) => {
  const x = `${canonIp(a)}|${ap}`, y = `${canonIp(b)}|${bp}`;
  return `${proto}|${vlan}|${x < y ? `${x}|${y}` : `${y}|${x}`}`;
};

export interface EvalResult {
  flows: number;
  agree: number;
  agreeMaster: number;
  captures: number;
  perCaptureMean: number;
  confusion: Map<string, number>;
  risks: Map<string, RiskCount>;
  /** flows with identical risk sets, over matched flows */
  riskExact: number;
  matched: number;
  seconds: number;
  /** per capture: file, flows, agreeing flows, disagreements (truth -> ours) */
  perCapture: { file: string; n: number; ok: number; wrong: string[] }[];
}

export async function evaluate(only?: (file: string) => boolean): Promise<EvalResult> {
  const files = readdirSync(pcapDir).sort().filter((f) => existsSync(join(truthDir, `${f}.jsonl`)) && (!only || only(f)));
  let flows = 0, agree = 0, agreeMaster = 0, captures = 0, perCaptureSum = 0;
  const confusion = new Map<string, number>();
  const risks = new Map<string, RiskCount>();
  let riskExact = 0, matched = 0;
  const perCapture: EvalResult['perCapture'] = [];
  const count = (name: string) => {
    let c = risks.get(name);
    if (!c) risks.set(name, (c = { tp: 0, fp: 0, fn: 0 }));
    return c;
  };
  if (protosFile || categoriesFile) {
    const p = protosFile ? loadProtosText(readFileSync(protosFile, 'utf8')) : { apps: [], riskMasks: [] };
    const categories = categoriesFile ? loadCategoriesText(readFileSync(categoriesFile, 'utf8')) : {};
    Engine.setUserRules(compileRules(p.apps, { riskMasks: p.riskMasks, categories }));
  }
  const t0 = performance.now();
  for (const f of files) {
    const truth: Truth[] = readFileSync(join(truthDir, `${f}.jsonl`), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    // one worker: nDPI's endpoint caches are per worker, and the score must not depend on the machine's cores
    const e = new Engine({ files: [join(pcapDir, f)], workers: 1, flushAtEnd: true, flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10, maxFlows: 1 << 17 });
    e.start();
    await e.waitDone();
    const ours = new Map<string, string[]>();
    const ourRisks = new Map<string, string[]>();
    for (const x of e.drainExpired(1 << 20)) {
      const name = l7Name(x.l7_master, x.l7_app);
      const k = key(x.proto, x.cli_ip, x.cli_port, x.srv_ip, x.srv_port, x.vlan);
      ours.set(k, [name, x.l7_master ? l7Name(0, x.l7_master) : name]);
      ourRisks.set(k, x.risks);
    }
    e.close();
    let n = 0, ok = 0;
    const wrong: string[] = [];
    for (const t of truth) {
      const proto = L4[t.l4] ?? Number(t.l4);
      const k = key(proto, t.src, t.sport, t.dst, t.dport, t.vlan ?? 0);
      const got = ours.get(k) ?? ['(no flow)', '(no flow)'];
      const mine = ourRisks.get(k);
      if (mine) {
        matched++;
        const want = new Set(t.risks ?? []);
        const have = new Set(mine);
        for (const r of want) have.has(r) ? count(r).tp++ : (count(r).fn++, r === process.env.RISK && console.log(`  missed ${r}: ${f} ${k} (${t.app})`));
        for (const r of have) if (!want.has(r)) count(r).fp++, r === process.env.RISK && console.log(`  extra ${r}: ${f} ${k} (${t.app})`);
        if (want.size === have.size && [...want].every((r) => have.has(r))) riskExact++;
      }
      const want = t.app;
      const wantMaster = t.master || t.app_name || t.app;
      n++;
      if (got[0] === want) ok++;
      else {
        const k = `${want} -> ${got[0]}`;
        wrong.push(k);
        confusion.set(k, (confusion.get(k) ?? 0) + 1);
      }
      if (got[1] === wantMaster) agreeMaster++;
    }
    if (n) {
      perCapture.push({ file: f, n, ok, wrong });
      captures++;
      perCaptureSum += ok / n;
    }
    flows += n;
    agree += ok;
  }
  return { flows, agree, agreeMaster, captures, perCaptureMean: captures ? perCaptureSum / captures : 0, confusion, risks, riskExact, matched, perCapture, seconds: (performance.now() - t0) / 1000 };
}

if (process.argv[1]?.endsWith('eval-dpi.js')) {
  const r = await evaluate();
  const pct = (x: number) => (x * 100).toFixed(2);
  console.log(`captures: ${r.captures}, flows: ${r.flows}`);
  console.log(`proto (master.app), per flow: ${pct(r.agree / r.flows)} % (${r.agree}/${r.flows})`);
  console.log(`proto (master.app), per capture (macro average): ${pct(r.perCaptureMean)} %`);
  console.log(`master only, per flow: ${pct(r.agreeMaster / r.flows)} %`);
  console.log(`rate: ${(r.captures / r.seconds).toFixed(1)} pcaps/s, ${(r.flows / r.seconds).toFixed(0)} flows/s`);
  console.log('top disagreements (nDPI -> flowgate):');
  for (const [k, v] of [...r.confusion].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 25))) console.log(`  ${String(v).padStart(5)}  ${k}`);
  console.log(`flow risks, per risk over ${r.matched} flows matched by 5-tuple (truth count, precision, recall):`);
  const rows = [...r.risks].sort((a, b) => b[1].tp + b[1].fn - (a[1].tp + a[1].fn) || b[1].fp - a[1].fp);
  const ratio = (a: number, b: number) => (b ? `${pct(a / b).padStart(6)} %` : '     - ');
  for (const [name, c] of rows)
    console.log(`  ${String(c.tp + c.fn).padStart(5)}  P ${ratio(c.tp, c.tp + c.fp)}  R ${ratio(c.tp, c.tp + c.fn)}  (+${c.fp})  ${name}`);
  let tp = 0, fp = 0, fn = 0;
  for (const c of r.risks.values()) (tp += c.tp), (fp += c.fp), (fn += c.fn);
  console.log(`risks, all (micro): precision ${pct(tp / (tp + fp))} %, recall ${pct(tp / (tp + fn))} % of ${tp + fn}; flows with the same risk set: ${pct(r.riskExact / r.matched)} %`);
  // "Unidirectional Traffic" follows from the packet counts alone and is most of the truth's risks
  const uni = r.risks.get('Unidirectional Traffic') ?? { tp: 0, fp: 0, fn: 0 };
  const [tq, fq, nq] = [tp - uni.tp, fp - uni.fp, fn - uni.fn];
  console.log(`risks without Unidirectional Traffic (micro): precision ${pct(tq / (tq + fq))} %, recall ${pct(tq / (tq + nq))} % of ${tq + nq}`);
  // RISK=<name>: each flow where that risk is missed or extra is printed while evaluating.
  // WORST=N: the N captures with the lowest agreement and what they disagree on.
  if (process.env.WORST) {
    console.log('worst captures (agreement, flows, disagreements):');
    for (const c of [...r.perCapture].sort((a, b) => a.ok / a.n - b.ok / b.n || b.n - a.n).slice(0, Number(process.env.WORST))) {
      if (c.ok === c.n) break;
      const w = new Map<string, number>();
      for (const x of c.wrong) w.set(x, (w.get(x) ?? 0) + 1);
      console.log(`  ${pct(c.ok / c.n).padStart(6)} %  ${String(c.n).padStart(4)}  ${c.file}: ${[...w].map(([k, v]) => `${v}x ${k}`).join(', ')}`);
    }
  }
  console.log(`agreement: ${pct(r.agree / r.flows)} flows, ${pct(r.perCaptureMean)} captures`);
}
