// The command line's egress options reach the engine: `flowgate -i capture
// --aggregated-egress a.pcap --balanced-egress q0.pcap,q1.pcap` writes what
// tshark then counts (the same packets in the aggregated file, split by IP
// pair over the balanced ones), and a bad --bridge is refused.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { buildDist, spawnFlowgate } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const CAPTURE = join(NDPI_PCAPS, 'netflix.pcap');
const tmp = tempDir('flowgate-egress-cli-');
afterAll(() => tmp.cleanup());
beforeAll(() => buildDist());

const frames = (file: string, fields: string[] = ['frame.number']) =>
  execFileSync('tshark', ['-r', file, '-T', 'fields', ...fields.flatMap((f) => ['-e', f])], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

it('aggregated and balanced outputs named on the command line get the packets', async () => {
  const agg = join(tmp.dir, 'agg.pcap'), q0 = join(tmp.dir, 'q0.pcap'), q1 = join(tmp.dir, 'q1.pcap');
  const f = spawnFlowgate(['-q', '-i', CAPTURE, '--exit-when-done', '--http-port', '0', '--egress-port', '0',
    '--data-dir', join(tmp.dir, 'data'), '--aggregated-egress', agg, '--balanced-egress', `${q0},${q1}`]);
  expect(await new Promise((r) => f.proc.once('exit', r))).toBe(0);
  const input = frames(CAPTURE).length;
  expect(frames(agg).length).toBe(input);
  const pairs = (file: string) => new Set(frames(file, ['ip.src', 'ip.dst']).map((l) => l.split('\t').sort().join('|')));
  const a = pairs(q0), b = pairs(q1);
  expect(frames(q0).length + frames(q1).length).toBe(input);
  expect(a.size).toBeGreaterThan(0);
  expect(b.size).toBeGreaterThan(0);
  for (const p of a) if (p !== '|') expect(b.has(p), p).toBe(false);
});

it('a --bridge without two interfaces is refused with the reason', async () => {
  const f = spawnFlowgate(['-q', '--bridge', 'veth-only', '--http-port', '0', '--egress-port', '0']);
  expect(await new Promise((r) => f.proc.once('exit', r))).toBe(2);
  expect(f.err()).toMatch(/--bridge wants two interfaces/);
});
