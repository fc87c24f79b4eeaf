// Damaged capture files: the engine reads every complete record before the
// damage, then ends 'done' with an error naming the file, the kind of damage
// and the byte offset where the last good record ended. Garbage must never
// crash it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LINKTYPE, pcapHeader, pcapRecords, pcapngBlocks, tempDir } from './fixtures/pcap.js';
import { mulberry32 as rng, type RunResult, runEngine, tool, NDPI_PCAPS } from './fixtures/util.js';

const PCAPS = NDPI_PCAPS;
const BASE = join(PCAPS, '1kxun.pcap'); // 1723 records, Ethernet

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('classic pcap cut short or corrupted', () => {
  const buf = readFileSync(BASE);
  const { records } = pcapRecords(buf);
  let full: RunResult;

  beforeAll(async () => {
    full = await runEngine([BASE]);
  });

  it('the base file is whole: every byte belongs to a record', () => {
    expect(records.length).toBe(1723);
    expect(records.at(-1)!.end).toBe(buf.length);
    expect(full.st.error).toBeNull();
  });

  /** The flows of the clean file made of the first k records. */
  async function prefixRun(k: number): Promise<RunResult> {
    const f = tmp.file(`prefix-${k}.pcap`, buf.subarray(0, records[k]!.offset));
    const r = await runEngine([f]);
    expect(r.st.error).toBeNull();
    expect(r.stats.packets).toBe(k);
    return r;
  }

  // [name, record index k, offset of the cut relative to record k's header, expected message]
  const cuts: [string, number, number, RegExp][] = [
    ['inside the first record header', 0, 9, /truncated packet record header/],
    ['inside a record header', 500, 7, /truncated packet record header/],
    ['one byte short of a whole record header', 900, 15, /truncated packet record header/],
    ['just after a record header (no data)', 1000, 16, /truncated packet record \(needs \d+ bytes, 0 left\)/],
    ['inside packet data', 1200, 16 + 20, /truncated packet record \(needs \d+ bytes, 20 left\)/],
    ['one byte short of the last record', 1722, -1, /truncated packet record \(needs \d+ bytes, \d+ left\)/],
  ];

  it.each(cuts)('cut %s', async (_name, k, rel, message) => {
    const rec = records[k]!;
    const cutAt = rel >= 0 ? rec.offset + rel : rec.end + rel;
    const f = tmp.file(`cut-${k}-${rel}.pcap`, buf.subarray(0, cutAt));
    const r = await runEngine([f]);
    expect(r.st.state).toBe('done');
    expect(r.st.error).toMatch(message);
    // The error names the file and the offset where the last good record ended.
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(f)}: .* at byte offset ${rec.offset}$`));
    expect(r.stats.packets).toBe(k);
    // Everything before the damage was processed as if the file ended there.
    const clean = await prefixRun(k);
    expect(r.flows).toEqual(clean.flows);
    expect(r.hosts).toEqual(clean.hosts);
  });

  it('a cut exactly between two records is a clean end', async () => {
    const k = 800;
    const f = tmp.file('cut-boundary.pcap', buf.subarray(0, records[k]!.offset));
    const r = await runEngine([f]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(k);
  });

  it.each([
    [300, 0x7fffffff],
    [301, 262145], // one more than the largest caplen accepted
    [0, 0xffffffff],
  ])('record %i with captured length %i is reported corrupt at its offset', async (k, caplen) => {
    const b = Buffer.from(buf);
    b.writeUInt32LE(caplen >>> 0, records[k]!.offset + 8);
    const f = tmp.file(`caplen-${k}.pcap`, b);
    const r = await runEngine([f]);
    expect(r.st.state).toBe('done');
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(f)}: corrupt packet record \\(captured length ${caplen >>> 0}\\) at byte offset ${records[k]!.offset}$`));
    expect(r.stats.packets).toBe(k);
  });

  it('a captured length of exactly 262144 is accepted (then the file is cut short)', async () => {
    const b = Buffer.from(buf.subarray(0, records[11]!.offset));
    b.writeUInt32LE(262144, records[10]!.offset + 8);
    const f = tmp.file('caplen-max.pcap', b);
    const r = await runEngine([f]);
    const left = records[11]!.offset - records[10]!.offset - 16;
    expect(r.st.error).toMatch(new RegExp(`: truncated packet record \\(needs 262144 bytes, ${left} left\\) at byte offset ${records[10]!.offset}$`));
    expect(r.stats.packets).toBe(10);
  });

  it('a damaged file ends there; the playlist goes on and keeps its error', async () => {
    const bad = tmp.file('bad-first.pcap', buf.subarray(0, records[5]!.offset + 3));
    const r = await runEngine([bad, BASE]);
    expect(r.st.state).toBe('done');
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(bad)}: truncated packet record header at byte offset ${records[5]!.offset}$`));
    expect(r.stats.packets).toBe(5 + 1723);
  });

  it('with two damaged files, the first error is the one reported', async () => {
    const bad1 = tmp.file('bad-a.pcap', buf.subarray(0, records[5]!.offset + 3));
    const bad2 = tmp.file('bad-b.pcap', buf.subarray(0, records[9]!.offset + 30));
    const r = await runEngine([bad1, bad2]);
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(bad1)}: truncated packet record header at byte offset ${records[5]!.offset}$`));
    expect(r.stats.packets).toBe(5 + 9);
  });

  it('a damaged last file keeps what the earlier ones gave', async () => {
    const bad = tmp.file('bad-second.pcap', buf.subarray(0, records[7]!.offset + 40));
    const r = await runEngine([BASE, bad]);
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(bad)}: truncated packet record .* at byte offset ${records[7]!.offset}$`));
    expect(r.stats.packets).toBe(1723 + 7);
  });
});

describe('pcapng cut short or corrupted', () => {
  let buf: Buffer;
  let blocks: ReturnType<typeof pcapngBlocks>;
  let epbIdx: number[]; // block indexes of the packet blocks

  beforeAll(() => {
    const f = tmp.file('base.pcapng');
    tool('editcap', ['-F', 'pcapng', BASE, f]);
    buf = readFileSync(f);
    blocks = pcapngBlocks(buf);
    epbIdx = blocks.map((b, i) => (b.type === 6 ? i : -1)).filter((i) => i >= 0);
  });

  it('the pcapng base has a header, an interface and 1723 packet blocks', () => {
    expect(blocks[0]!.type).toBe(0x0a0d0d0a);
    expect(blocks[1]!.type).toBe(1);
    expect(epbIdx.length).toBe(1723);
    expect(blocks.at(-1)!.end).toBe(buf.length);
  });

  /** Packets in blocks before block index i. */
  const packetsBefore = (i: number) => epbIdx.filter((j) => j < i).length;

  it.each([
    ['inside a block header', 400, 6, /truncated pcapng block header/],
    ['inside a packet block', 700, 40, /truncated pcapng block \(needs \d+ bytes, 40 left\)/],
    ['one byte short of the trailing length', 1000, -1, /truncated pcapng block \(needs \d+ bytes, \d+ left\)/],
    ['inside the interface block', 1, 14, /truncated pcapng block \(needs 20 bytes, 14 left\)/],
  ] as [string, number, number, RegExp][])('cut %s', async (_name, bi, rel, message) => {
    const blk = blocks[bi]!;
    const cutAt = rel >= 0 ? blk.offset + rel : blk.end + rel;
    const f = tmp.file(`ng-cut-${bi}.pcapng`, buf.subarray(0, cutAt));
    const r = await runEngine([f]);
    expect(r.st.state).toBe('done');
    expect(r.st.error).toMatch(message);
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(f)}: .* at byte offset ${blk.offset}$`));
    expect(r.stats.packets).toBe(packetsBefore(bi));
  });

  it('a block length that is not a multiple of 4 is corrupt', async () => {
    const b = Buffer.from(buf);
    const blk = blocks[epbIdx[100]!]!;
    b.writeUInt32LE(b.readUInt32LE(blk.offset + 4) + 1, blk.offset + 4);
    const f = tmp.file('ng-len.pcapng', b);
    const r = await runEngine([f]);
    expect(r.st.error).toMatch(new RegExp(`^${escapeRe(f)}: corrupt pcapng block \\(length \\d+\\) at byte offset ${blk.offset}$`));
    expect(r.stats.packets).toBe(100);
  });

  it('a trailing block length that differs is corrupt', async () => {
    const b = Buffer.from(buf);
    const blk = blocks[epbIdx[200]!]!;
    b.writeUInt32LE(8, blk.end - 4);
    const f = tmp.file('ng-trail.pcapng', b);
    const r = await runEngine([f]);
    expect(r.st.error).toMatch(new RegExp(`corrupt pcapng block \\(trailing length differs\\) at byte offset ${blk.offset}$`));
    expect(r.stats.packets).toBe(200);
  });

  it('a packet block whose captured length exceeds the block is corrupt', async () => {
    const b = Buffer.from(buf);
    const blk = blocks[epbIdx[300]!]!;
    b.writeUInt32LE(0x100000, blk.offset + 20);
    const f = tmp.file('ng-caplen.pcapng', b);
    const r = await runEngine([f]);
    expect(r.st.error).toMatch(new RegExp(`corrupt pcapng packet block \\(captured length exceeds block\\) at byte offset ${blk.offset}$`));
    expect(r.stats.packets).toBe(300);
  });

  it('a packet block naming an undeclared interface is refused', async () => {
    const b = Buffer.from(buf);
    const blk = blocks[epbIdx[400]!]!;
    b.writeUInt32LE(5, blk.offset + 8);
    const f = tmp.file('ng-ifid.pcapng', b);
    const r = await runEngine([f]);
    expect(r.st.error).toMatch(new RegExp(`undeclared interface at byte offset ${blk.offset}$`));
    expect(r.stats.packets).toBe(400);
  });
});

describe('garbage never crashes the engine', () => {
  /** A valid pcap header, then `n` random bytes. */
  function garbageAfterHeader(seed: number, n: number, linktype: number): Buffer {
    const r = rng(seed);
    const g = Buffer.alloc(n);
    for (let i = 0; i < n; i++) g[i] = Math.floor(r() * 256);
    return Buffer.concat([pcapHeader({ linktype }), g]);
  }

  /** Valid record headers around random frame bytes: exercises every decoder. */
  function randomFrames(seed: number, count: number, linktype: number): Buffer {
    const r = rng(seed);
    const parts: Buffer[] = [pcapHeader({ linktype })];
    for (let i = 0; i < count; i++) {
      const len = Math.floor(r() * 200);
      const data = Buffer.alloc(len);
      for (let j = 0; j < len; j++) data[j] = Math.floor(r() * 256);
      // Bias the first bytes towards real headers so decoding goes deep.
      if (linktype === LINKTYPE.ETHERNET && len >= 14) data.writeUInt16BE([0x0800, 0x86dd, 0x8100, 0x88a8, 0x8847, 0x8864][i % 6]!, 12);
      if (linktype === LINKTYPE.RAW && len >= 1) data[0] = (i % 2 ? 0x40 : 0x60) | (data[0]! & 0x0f);
      const h = Buffer.alloc(16);
      h.writeUInt32LE(1_700_000_000 + i, 0);
      h.writeUInt32LE(len, 8);
      h.writeUInt32LE(len + Math.floor(r() * 3), 12);
      parts.push(h, data);
    }
    return Buffer.concat(parts);
  }

  /** The real capture with random bytes flipped inside frames (record headers intact). */
  function flipped(seed: number): Buffer {
    const buf = Buffer.from(readFileSync(BASE));
    const r = rng(seed);
    for (const rec of pcapRecords(buf).records) {
      const flips = Math.floor(r() * 4);
      for (let i = 0; i < flips && rec.caplen; i++) {
        buf[rec.offset + 16 + Math.floor(r() * Math.min(rec.caplen, 80))] ^= 1 << Math.floor(r() * 8);
      }
    }
    return buf;
  }

  /**
   * Every frame is IP, not IP, or malformed; a malformed frame counts at least one
   * decode.* reason (a tunnel whose inner packet is malformed counts a reason and
   * stays an IP packet of the outer flow). The flows hold every IP packet and byte.
   */
  function accountedFor(r: RunResult) {
    const malformedFrames = r.stats.packets - r.stats.ip_packets - r.stats.decode['decode.non_ip']!;
    expect(malformedFrames).toBeGreaterThanOrEqual(0);
    expect(r.stats.malformed).toBeGreaterThanOrEqual(malformedFrames);
    const reasons = Object.entries(r.stats.decode).filter(([k]) => !['decode.non_ip', 'decode.ip.fragments', 'decode.tunnel.packets'].includes(k));
    expect(reasons.reduce((s, [, v]) => s + v, 0)).toBe(r.stats.malformed);
    expect(r.flows.reduce((s, fl) => s + fl.packets, 0)).toBe(r.stats.ip_packets);
    expect(r.flows.reduce((s, fl) => s + fl.bytes, 0)).toBe(r.stats.ip_bytes);
  }

  it.each([1, 2, 3, 4, 5])('random bytes after a pcap header (seed %i)', async (seed) => {
    const f = tmp.file(`garbage-${seed}.pcap`, garbageAfterHeader(seed, 4096 + seed * 1000, LINKTYPE.ETHERNET));
    const r = await runEngine([f]);
    expect(r.st.state).toBe('done');
    // A random record header almost surely claims more bytes than are left.
    expect(r.st.error).toMatch(/(truncated|corrupt) packet record .* at byte offset \d+$/);
  });

  it.each([
    [11, LINKTYPE.ETHERNET], [12, LINKTYPE.RAW], [13, LINKTYPE.SLL], [14, LINKTYPE.SLL2],
    [15, LINKTYPE.NULL], [16, LINKTYPE.LOOP], [17, LINKTYPE.IPV4], [18, 104], [19, 147],
  ])('random frames (seed %i, link type %i) decode without crashing', async (seed, linktype) => {
    const f = tmp.file(`frames-${seed}.pcap`, randomFrames(seed, 3000, linktype));
    const r = await runEngine([f]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(3000);
    accountedFor(r);
  });

  it.each([21, 22, 23])('a real capture with flipped bits (seed %i)', async (seed) => {
    const f = tmp.file(`flipped-${seed}.pcap`, flipped(seed));
    const r = await runEngine([f]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(1723);
    accountedFor(r);
  });
});
