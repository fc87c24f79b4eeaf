// The monitoring API under load (autocannon): interface data and a sorted
// host page over 100 k+ hosts, against a baseline measured in the same run
// (the smallest authenticated endpoint: L4 protocol constants). The service
// runs in its own process, the load generator in this one (one core each).
// Prints `name: value unit` lines.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';

import { generate } from './gen/generate.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '..', 'bench', 'out');
const HOSTS = 100_000; // clients; servers add a tenth

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
    const run = async (name: string, path: string, connections: number) => {
      const r = await autocannon({ url: ready.url + path, connections, duration: 8, headers });
      if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      print(`${name}_requests`, r.requests.average.toFixed(0), 'req/s');
      print(`${name}_latency_p50`, r.latency.p50.toFixed(2), 'ms');
      print(`${name}_latency_p99`, r.latency.p99.toFixed(2), 'ms');
      return r.requests.average;
    };
    const base = await run('api_baseline_l4_consts', '/lua/rest/v2/get/l4/protocol/consts.lua', 16);
    const ifd = await run('api_interface_data', '/lua/rest/v2/get/interface/data.lua?ifid=0', 16);
    print('api_interface_data_vs_baseline', ((ifd / base) * 100).toFixed(1), '%');
    await run('api_host_page_traffic_desc', '/lua/rest/v2/get/host/active.lua?ifid=0&perPage=25&sortColumn=traffic&sortOrder=desc', 1);
    await run('api_host_page_ip_asc_page2000', '/lua/rest/v2/get/host/active.lua?ifid=0&perPage=25&currentPage=2000&sortColumn=ip', 1);
  } finally {
    child.kill();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await apiBench();
