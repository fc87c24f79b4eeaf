// The monitoring API under load (autocannon): interface data and a sorted
// host page over 100 k+ hosts, against a baseline measured in the same run
// (the smallest authenticated endpoint: L4 protocol constants). The service
// runs in its own process, the load generator in this one (one core each).
// Prints `name: value unit` lines.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';

import { generate } from './gen/generate.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '..', 'bench', 'out');
const HOSTS = 100_000; // clients; servers add a tenth

// The heavy client: the three large answers in a loop, each read whole; one JSON line per answer.
const HEAVY_CLIENT = `
const [url, auth] = process.argv.slice(1);
const paths = ['/lua/rest/v2/get/host/active.lua?ifid=0&all=true', '/lua/rest/v2/get/flow/active.lua?ifid=0&perPage=100000', '/lua/rest/v2/get/host/custom_data.lua?ifid=0'];
for (let i = 0; ; i++) {
  const path = paths[i % paths.length];
  const t0 = performance.now();
  const r = await fetch(url + path, { headers: { authorization: auth } });
  const b = await r.arrayBuffer();
  if (r.status !== 200) throw new Error(path + ': ' + r.status);
  console.log(JSON.stringify({ path, ms: performance.now() - t0, bytes: b.byteLength }));
}
`;

export async function apiBench(line: (l: string) => void = console.log): Promise<void> {
  const print = (name: string, value: string, unit: string) => line(`${name}: ${value} ${unit}`);
  mkdirSync(out, { recursive: true });
  const file = join(out, `api-${HOSTS}h.pcap`);
  if (!existsSync(file)) generate({ out: file, hosts: HOSTS, flows: 150_000, packets: 450_000, durationSec: 30, seed: 11 });

  const child = spawn(process.execPath, [join(here, 'api-server.js'), file, String(1 << 18)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const ready = await new Promise<{ url: string; password: string; hosts: number }>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`api server exited (${code})`)));
      createInterface({ input: child.stdout! }).once('line', (l) => resolve(JSON.parse(l)));
    });
    print('api_hosts', String(ready.hosts), 'hosts');
    const headers = { authorization: `Basic ${Buffer.from(`admin:${ready.password}`).toString('base64')}` };
    // wrk (C) when installed: a lighter client leaves more of the 2 cores to
    // the service; autocannon otherwise. The client is printed with the figures.
    const useWrk = spawnSync('wrk', ['--version']).error === undefined;
    print('api_client', useWrk ? 'wrk' : 'autocannon', '');
    const run = async (name: string, path: string, connections: number) => {
      let rps: number, p50: number, p99: number;
      if (useWrk) {
        // 2 s unmeasured first: the service's JIT and caches warm up
        execFileSync('wrk', ['-t1', `-c${connections}`, '-d2s', '-H', `Authorization: ${headers.authorization}`, ready.url + path]);
        const out = execFileSync('wrk', ['-t1', `-c${connections}`, '-d8s', '--latency', '-H', `Authorization: ${headers.authorization}`, ready.url + path], { encoding: 'utf8' });
        if (/Non-2xx/.test(out)) throw new Error(`${name}: non-2xx answers\n${out}`);
        const ms = (label: string) => {
          const m = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out)!;
          return Number(m[1]) * (m[2] === 'us' ? 1e-3 : m[2] === 's' ? 1e3 : 1);
        };
        rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
        p50 = ms('50');
        p99 = ms('99');
      } else {
        const r = await autocannon({ url: ready.url + path, connections, duration: 8, headers });
        if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
        (rps = r.requests.average), (p50 = r.latency.p50), (p99 = r.latency.p99);
      }
      print(`${name}_requests`, rps.toFixed(0), 'req/s');
      print(`${name}_latency_p50`, p50.toFixed(2), 'ms');
      print(`${name}_latency_p99`, p99.toFixed(2), 'ms');
      return { rps, p99 };
    };
    const { rps: base } = await run('api_baseline_l4_consts', '/lua/rest/v2/get/l4/protocol/consts.lua', 16);
    const { rps: ifd } = await run('api_interface_data', '/lua/rest/v2/get/interface/data.lua?ifid=0', 16);
    print('api_interface_data_vs_baseline', ((ifd / base) * 100).toFixed(1), '%');
    await run('api_host_page_traffic_desc', '/lua/rest/v2/get/host/active.lua?ifid=0&perPage=25&sortColumn=traffic&sortOrder=desc', 1);
    await run('api_host_page_ip_asc_page2000', '/lua/rest/v2/get/host/active.lua?ifid=0&perPage=25&currentPage=2000&sortColumn=ip', 1);
    // One client asking for every host, a 100,000-flow page and custom data of
    // every host, one after another (its own process, reading each answer whole):
    // interface data beside it against interface data alone, one connection each.
    const { p99: alone } = await run('api_interface_data_alone', '/lua/rest/v2/get/interface/data.lua?ifid=0', 1);
    const heavy = spawn(process.execPath, ['--input-type=module', '-e', HEAVY_CLIENT, ready.url, headers.authorization], { stdio: ['ignore', 'pipe', 'inherit'] });
    let answers = '';
    heavy.stdout!.on('data', (d) => (answers += d));
    await new Promise((r) => setTimeout(r, 1500));
    const { p99: beside } = await run('api_interface_data_beside_heavy_queries', '/lua/rest/v2/get/interface/data.lua?ifid=0', 1);
    heavy.kill();
    await new Promise((r) => heavy.once('exit', r));
    const done = answers.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { path: string; ms: number; bytes: number });
    if (!done.length) throw new Error('heavy client: no answer completed');
    for (const [name, key] of [['api_all_hosts', 'host/active'], ['api_flow_page_100000', 'flow/active'], ['api_custom_data_all_hosts', 'custom_data']] as const) {
      const mine = done.filter((d) => d.path.includes(key));
      if (mine.length) print(`${name}_answer`, (mine.reduce((a, d) => a + d.ms, 0) / mine.length).toFixed(0), `ms (${(mine[0].bytes / 1e6).toFixed(1)} MB, ${mine.length} answers)`);
    }
    // autocannon counts whole ms: an idle p99 under 1 ms is taken as 1 ms
    print('api_interface_data_p99_beside_heavy_vs_alone', (beside / Math.max(alone, 1)).toFixed(2), 'x');
  } finally {
    child.kill();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await apiBench();
