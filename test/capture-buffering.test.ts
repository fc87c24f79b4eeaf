// The file reader reads captures in 8 MiB chunks (not mmap: a file truncated
// under a replay must not kill the process with SIGBUS). Files several times
// the buffer, with records of every size up to the largest accepted (256 KiB)
// and pcapng blocks the reader skips straddling the chunk boundaries, must give
// exactly the packets and bytes written; a file truncated while it is replayed
// ends the replay with an error naming it, and the command exits 1 — with one
// worker and with two sharing each chunk's read (capture/shared_chunks.h).
import { spawn } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildDist } from './fixtures/egress.js';
import { eth, ipv4, mac, udp } from './fixtures/frames.js';
import { ngEpb, ngIdb, ngShb, pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { mulberry32, runEngine } from './fixtures/util.js';

const ROOT = join(import.meta.dirname, '..');
const tmp = tempDir('flowgate-buffering-');
afterAll(() => tmp.cleanup());

/** An Ethernet/IPv4/UDP frame of exactly `len` bytes (≥ 42); flow i. */
function frame(len: number, i: number): Buffer {
  // past IPv4's 64 KiB, the rest of the frame is an Ethernet trailer
  const payload = Buffer.alloc(Math.min(len, 60_000) - 42, i & 0xff);
  const ip = ipv4({ src: `10.1.${(i >> 8) & 0xff}.${i & 0xff}`, dst: '10.2.0.1', proto: 17 }, udp({ sport: 1024 + (i % 50_000), dport: 9999 }, payload));
  const f = eth(mac('02:00:00:00:00:02'), mac('02:00:00:00:00:01'), 0x0800, ip);
  return len > f.length ? Buffer.concat([f, Buffer.alloc(len - f.length)]) : f;
}

/** ~`bytes` of packets: mostly mid-sized, some of the largest size accepted, seeded. */
function packets(bytes: number, seed: number): Packet[] {
  const rnd = mulberry32(seed);
  const out: Packet[] = [];
  let total = 0, t = 1_700_000_000_000_000_000n;
  for (let i = 0; total < bytes; i++) {
    const r = rnd();
    const len = r < 0.02 ? 262_144 : r < 0.1 ? 60_000 + Math.floor(rnd() * 5_000) : 60 + Math.floor(rnd() * 1_454);
    out.push({ tsNs: (t += 1_000_000n), data: frame(len, i) });
    total += len + 16;
  }
  return out;
}

const sum = (ps: Packet[]) => ps.reduce((a, p) => a + p.data.length, 0);

describe('captures larger than the read buffer', () => {
  // two workers read each chunk once, in 1 MiB pieces (capture/shared_chunks.h)
  it.each([1, 2])('pcap: every record of a 40 MB file, records up to 256 KiB across chunk boundaries (%i workers)', async (workers) => {
    const ps = packets(40 << 20, 1);
    const file = tmp.file(`big-${workers}.pcap`, pcap(ps));
    const r = await runEngine([file], { dpi: false, workers });
    expect(r.st.error).toBeNull();
    expect([r.stats.packets, r.stats.bytes]).toEqual([ps.length, sum(ps)]);
  });

  it.each([1, 2])('pcapng: skipped blocks (custom, 100–200 KB) between packets land on chunk boundaries too (%i workers)', async (workers) => {
    const ps = packets(30 << 20, 2);
    const rnd = mulberry32(3);
    const parts: Buffer[] = [ngShb(), ngIdb(1)];
    for (const p of ps) {
      if (rnd() < 0.05) {
        // a custom block (type 0x00000BAD), copied by no reader: skipped whole
        const body = Buffer.alloc(100_000 + 4 * Math.floor(rnd() * 25_000));
        const b = Buffer.alloc(body.length + 12);
        b.writeUInt32LE(0x00000bad, 0);
        b.writeUInt32LE(b.length, 4);
        body.copy(b, 8);
        b.writeUInt32LE(b.length, b.length - 4);
        parts.push(b);
      }
      parts.push(ngEpb(0, p));
    }
    const file = tmp.file(`big-${workers}.pcapng`, Buffer.concat(parts));
    const r = await runEngine([file], { dpi: false, workers });
    expect(r.st.error).toBeNull();
    expect([r.stats.packets, r.stats.bytes]).toEqual([ps.length, sum(ps)]);
  });
});

describe('a capture truncated while it is replayed (copytruncate)', () => {
  beforeAll(() => buildDist());

  // two workers share each chunk's read (capture/shared_chunks.h): a piece
  // that comes back short ends the chunk there, for both
  it.each([1, 2])('the replay ends with an error naming the file, no SIGBUS; the command exits 1 (%i workers)', async (workers) => {
    // 30 MB over 24 s of packet time, replayed at original speed: the first
    // chunk is read at once, the rest only as the replay reaches it
    const ps = packets(30 << 20, 4).map((p, i, a) => ({ ...p, tsNs: 1_700_000_000_000_000_000n + BigInt(Math.floor((i * 24e9) / a.length)) }));
    const file = join(tmp.dir, `rotated-${workers}.pcap`);
    writeFileSync(file, pcap(ps));
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'flowgate.js'), '-i', file, '--replay-speed', '1', '--workers', String(workers), '--exit-when-done', '--http-port', '0', '--egress-port', '0', '-q', '--data-dir', join(tmp.dir, `data-${workers}`)], { cwd: ROOT });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // truncated once the replay is under way (the service printed what it replays)
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (out.includes('replaying')) {
          clearInterval(poll);
          setTimeout(() => (truncateSync(file, 0), resolve()), 1_000);
        }
      }, 50);
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    expect(signal).toBeNull();
    expect(err).toMatch(/rotated-\d\.pcap: file truncated while being read \(\d+ bytes when opened, 0 now\) at byte offset \d+/);
    expect(code).toBe(1);
  }, 90_000);
});
