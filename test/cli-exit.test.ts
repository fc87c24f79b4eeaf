// What the command says and returns when a capture is missing or damaged
// (hardening): `-i missing.pcap` is a missing file (not "no such
// interface"), exit 1; a capture that ends in the middle of a record is
// reported with file and offset and, under --exit-when-done, exits 1; a
// whole capture exits 0. The README's command-line block is --help's text.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildDist } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const ROOT = join(import.meta.dirname, '..');
const tmp = tempDir('flowgate-cliexit-');
afterAll(() => tmp.cleanup());
let runs = 0;
const run = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin', 'flowgate.js'), ...args, '--exit-when-done', '--http-port', '0', '--egress-port', '0', '-q', '--data-dir', join(tmp.dir, `data-${++runs}`)], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

describe('exit status and messages of the command', () => {
  let whole: string, cut: string, offset: number;
  beforeAll(() => {
    buildDist();
    whole = join(NDPI_PCAPS, '1kxun.pcap');
    const b = readFileSync(whole);
    // the first records and half of the next record's header: tshark reads the records before it
    let at = 24;
    for (let i = 0; i < 16; i++) at += 16 + b.readUInt32LE(at + 8);
    offset = at;
    cut = tmp.file('cut.pcap', b.subarray(0, at + 8));
  });

  it('a missing file named with -i is a missing file, exit 1', () => {
    const r = run('-i', join(tmp.dir, 'missing.pcap'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/missing\.pcap: no such file/);
    expect(r.stderr).not.toMatch(/no such interface/);
  });

  it('a capture cut inside a record header: the offset is reported and the exit status is 1', () => {
    // tshark reads the records before the cut (and exits non-zero for the cut)
    const seen = spawnSync('tshark', ['-r', cut, '-T', 'fields', '-e', 'frame.number'], { encoding: 'utf8' }).stdout.trim().split('\n');
    expect(seen.length).toBe(16);
    const r = run('-i', cut);
    expect(r.stdout).toMatch(/replayed .*cut\.pcap: 16 packets/);
    expect(r.stderr).toContain(`truncated packet record header at byte offset ${offset}`);
    expect(r.status).toBe(1);
  });

  it('the README’s command-line block is what --help prints, option for option', () => {
    const help = spawnSync(process.execPath, [join(ROOT, 'bin', 'flowgate.js'), '--help'], { cwd: ROOT, encoding: 'utf8' }).stdout;
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = readme.slice(readme.indexOf('## Command line')).split('```')[1]!.replace(/^\n/, '');
    expect(block).toBe(help);
    for (const opt of ['--aggregated-egress', '--balanced-egress', '--bridge', '--egress-rotate-mb']) expect(block).toContain(opt);
  });

  it('--record-dir / --record-max-gb record each interface into <dir>/<ifid>, as many packets as the capture has', () => {
    const dir = join(tmp.dir, 'rec');
    const r = run('-i', whole, '--record-dir', dir, '--record-max-gb', '0.01');
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`ifid 0: replaying ${whole}, recording into ${join(dir, '0')}`);
    const count = (f: string) => spawnSync('tcpdump', ['-r', f, '-nn'], { encoding: 'utf8' }).stdout.trim().split('\n').length;
    // 0.01 GB rotates at 1.3 MB: the 2.5 MB capture fills two files
    const files = readdirSync(join(dir, '0')).filter((f) => f.endsWith('.pcap')).sort();
    expect(files).toEqual(['0000000000.pcap', '0000000001.pcap']);
    expect(files.reduce((a, f) => a + count(join(dir, '0', f)), 0)).toBe(count(whole));
    const small = run('-i', whole, '--record-max-gb', '0.001');
    expect(small.status).not.toBe(0);
    expect(small.stderr).toMatch(/--record-max-gb must be a number >= 0.01/);
  });

  it('a whole capture exits 0', () => {
    const r = run('-i', whole);
    expect([r.status, r.stderr]).toEqual([0, '']);
  });
});
