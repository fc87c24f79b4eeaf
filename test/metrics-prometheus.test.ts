// GET /metrics scraped by a real Prometheus (Debian's package) that the test
// starts with its own configuration on a loopback port: the target is up
// with the API's credentials, and a query through Prometheus' HTTP API
// returns the interface's packet and byte counters as tshark counts the
// capture, and the per-application bytes as l7/stats gives them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_PASSWORD, startApi, v2, type ApiService } from './fixtures/api.js';
import { freePort } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS, tool } from './fixtures/util.js';

const KXUN = join(NDPI_PCAPS, '1kxun.pcap');
// as the ClickHouse suite: skipped with the reason where the binary is missing, failing under CI
const HAVE = spawnSync('prometheus', ['--version']).status === 0;
const RUN = HAVE || !!process.env.CI;
if (!RUN) console.warn('metrics-prometheus: skipped: no prometheus binary (apt-get install prometheus)');
const tmp = tempDir('flowgate-prom-');
let s: ApiService;
let prom: ChildProcess | undefined;
let promUrl = '';
const promLog: string[] = [];

beforeAll(async () => {
  if (!RUN) return;
  s = await startApi({ files: [KXUN] });
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  const target = new URL(s.url).host;
  const cfg = tmp.file('prometheus.yml', '');
  writeFileSync(
    cfg,
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: flowgate',
      '    metrics_path: /metrics',
      '    basic_auth:',
      '      username: admin',
      `      password: '${ADMIN_PASSWORD}'`,
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  prom = spawn('prometheus', [`--config.file=${cfg}`, `--storage.tsdb.path=${join(tmp.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  prom.stderr!.on('data', (d) => promLog.push(String(d)));
}, 60_000);

afterAll(async () => {
  prom?.kill('SIGTERM');
  await s?.close();
  tmp.cleanup();
});

type Sample = { metric: Record<string, string>; value: [number, string] };
async function query(q: string): Promise<Sample[]> {
  const r = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`).catch(() => null);
  if (!r || r.status !== 200) return [];
  const j = (await r.json()) as { status: string; data: { result: Sample[] } };
  return j.status === 'success' ? j.data.result : [];
}
/** a query's samples once Prometheus has scraped them (its own scrape loop: waited for, not timed) */
async function scraped(q: string): Promise<Sample[]> {
  for (let k = 0; k < 300; k++) {
    const x = await query(q);
    if (x.length) return x;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Prometheus returned nothing for ${q}: ${promLog.join('').slice(-2000)}`);
}

describe.skipIf(!RUN)('Prometheus scraping /metrics', () => {
  it('the target is up with the API credentials; packets and bytes equal tshark, as Prometheus stores them', async () => {
    const up = await scraped('up{job="flowgate"} == 1');
    expect(up[0].metric.job).toBe('flowgate');
    const frames = tool('tshark', ['-r', KXUN, '-T', 'fields', '-e', 'frame.len']).trim().split('\n').map(Number);
    const [pk] = await scraped('flowgate_packets_total{ifid="0"}');
    expect(pk.metric.ifname).toBe(KXUN);
    expect(Number(pk.value[1])).toBe(frames.length);
    const [by] = await scraped('flowgate_bytes_total{ifid="0"}');
    expect(Number(by.value[1])).toBe(frames.reduce((a, b) => a + b, 0));
  });

  it('per-application bytes queried by label equal l7/stats', async () => {
    const l7 = (await s.call(v2('get/interface/l7/stats'), { query: { ifid: 0, ndpistats_mode: 'sinceStartup', collapse_stats: false } })).body.rsp as { label: string; value: number }[];
    const top = l7[0];
    const [x] = await scraped(`flowgate_application_bytes_total{ifid="0",application="${top.label}"}`);
    expect(Number(x.value[1])).toBe(top.value);
    const all = await scraped('flowgate_application_bytes_total{ifid="0"}');
    expect(all.length).toBe(l7.filter((a) => a.value > 0).length);
  });
});
