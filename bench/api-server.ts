// Child process of bench/api.ts: replays a capture once, then serves the
// monitoring API on an ephemeral port and prints one JSON line
// {url, password, hosts} when ready. Runs until killed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startMonitoringApi } from '../ts/cli/serve.js';
import { Interfaces } from '../ts/services/interfaces.js';

const [file, maxHosts] = process.argv.slice(2);
const ifaces = new Interfaces([{ source: file }], { maxHosts: Number(maxHosts), maxFlows: 1 << 19, flushAtEnd: false });
ifaces.start();
await ifaces.get(0)!.engine.waitDone();
const password = 'bench-password';
const api = await startMonitoringApi(ifaces, {
  port: 0,
  bind: '127.0.0.1',
  dataDir: mkdtempSync(join(tmpdir(), 'flowgate-bench-api-')),
  adminPassword: password,
  print: () => {},
});
const s = ifaces.get(0)!.engine.stats();
console.log(JSON.stringify({ url: api.url, password, hosts: s.num_hosts, flows: s.num_flows }));
process.once('SIGINT', () => process.exit(0));
