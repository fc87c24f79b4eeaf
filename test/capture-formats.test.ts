// One capture in every container the reader supports must give the same
// flows and hosts; merged and playlisted captures give the union; empty files
// load cleanly; files that are not captures are refused at construction.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { FlowgateError } from '../ts/bindings/errors.js';
import type { FlowRecord, HostRecord } from '../ts/bindings/native.js';
import { LINKTYPE, ngIdb, ngShb, pcapHeader, pcapPackets, pcapRecords, pcapng, swapPcapByteOrder, tempDir } from './fixtures/pcap.js';
import { type RunResult, normIp, runEngine, tool, NDPI_PCAPS } from './fixtures/util.js';

const PCAPS = NDPI_PCAPS;
// Ethernet, IPv4 + IPv6, 1723 frames, timestamps jumping from 2016 to 2022.
const BASE = join(PCAPS, '1kxun.pcap');
// For the merge: Linux cooked (SLL) and raw IP captures with addresses disjoint from BASE.
const SLL = join(PCAPS, 'KakaoTalk_talk.pcap');
const RAW = join(PCAPS, 'tencent_games.pcap');

/** A flow without the fields that depend on the order flows were created in. */
function canonFlow(f: FlowRecord) {
  return {
    proto: f.proto, vlan: f.vlan, tunnel: f.tunnel, ip_version: f.ip_version,
    client: `${normIp(f.client.ip)}#${f.client.port}`, server: `${normIp(f.server.ip)}#${f.server.port}`,
    c2s: [f.cli2srv_packets, f.cli2srv_bytes], s2c: [f.srv2cli_packets, f.srv2cli_bytes],
    first: f.first_seen_ns, last: f.last_seen_ns, flags: [f.cli2srv_tcp_flags, f.srv2cli_tcp_flags],
  };
}
function canonFlows(flows: FlowRecord[]) {
  return flows.map(canonFlow).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}
function canonHosts(hosts: HostRecord[]) {
  return hosts
    .map((h) => ({ ip: normIp(h.ip), vlan: h.vlan, sent: [h.packets_sent, h.bytes_sent], rcvd: [h.packets_rcvd, h.bytes_rcvd], first: h.first_seen, last: h.last_seen }))
    .sort((a, b) => (a.ip + a.vlan < b.ip + b.vlan ? -1 : 1));
}

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('one capture, several containers', () => {
  let base: RunResult;
  const variants: Record<string, string> = {};

  beforeAll(async () => {
    base = await runEngine([BASE]);
    variants.pcapng = tmp.file('v.pcapng');
    tool('editcap', ['-F', 'pcapng', BASE, variants.pcapng]);
    variants.nsecpcap = tmp.file('v-ns.pcap');
    tool('editcap', ['-F', 'nsecpcap', BASE, variants.nsecpcap]);
    // pcapng written from the ns pcap: its IDB carries if_tsresol = 9.
    variants.pcapngNs = tmp.file('v-ns.pcapng');
    tool('editcap', ['-F', 'pcapng', variants.nsecpcap, variants.pcapngNs]);
    variants.bigEndian = tmp.file('v-be.pcap', swapPcapByteOrder(readFileSync(BASE)));
  });

  it('the base capture loads cleanly', () => {
    expect(base.st).toMatchObject({ state: 'done', error: null });
    expect(base.stats.packets).toBe(1723);
    expect(base.flows.length).toBe(197);
  });

  it('the variants are what they claim to be', () => {
    const info = (f: string) => tool('capinfos', ['-t', '-E', '-a', '-M', f]);
    expect(info(variants.pcapng!)).toMatch(/File type:\s+pcapng/);
    expect(info(variants.nsecpcap!)).toMatch(/File type:\s+nsecpcap/);
    expect(tool('capinfos', ['-M', variants.pcapngNs!])).toMatch(/Time resolution = 0x09/);
    const be = readFileSync(variants.bigEndian!);
    expect([...be.subarray(0, 4)]).toEqual([0xa1, 0xb2, 0xc3, 0xd4]);
    expect(pcapRecords(be).bigEndian).toBe(true);
    // tshark reads the swapped file to the same frames.
    expect(tool('capinfos', ['-T', '-r', '-c', '-d', '-M', variants.bigEndian!]).trim().split('\t').slice(1)).toEqual(['1723', String(base.stats.bytes)]);
  });

  it.each(['pcapng', 'nsecpcap', 'pcapngNs', 'bigEndian'])('%s: same flows, hosts and totals, field for field', async (v) => {
    const r = await runEngine([variants[v]!]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(base.stats.packets);
    expect(r.stats.bytes).toBe(base.stats.bytes);
    expect(r.stats.first_seen_ns).toBe(base.stats.first_seen_ns);
    expect(r.stats.last_seen_ns).toBe(base.stats.last_seen_ns);
    // Same packets in the same order: every field of every row is the same (serials too).
    expect(r.flows).toEqual(base.flows);
    expect(r.hosts).toEqual(base.hosts);
  });
});

describe('pcapng written field by field', () => {
  const { linktype, packets } = pcapPackets(readFileSync(BASE));
  let base: RunResult;
  beforeAll(async () => {
    base = await runEngine([BASE]);
  });

  it.each([
    ['little-endian', false],
    ['big-endian', true],
  ])('%s section, µs resolution: same flows and hosts, field for field', async (_n, be) => {
    const f = tmp.file(`w-${be}.pcapng`, pcapng([{ linktype }], packets, be));
    expect(tool('capinfos', ['-T', '-r', '-c', '-d', '-M', f]).trim().split('\t').slice(1)).toEqual(['1723', String(base.stats.bytes)]);
    const r = await runEngine([f]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.flows).toEqual(base.flows);
    expect(r.hosts).toEqual(base.hosts);
  });

  it('nanosecond resolution with if_tsoffset 1000 s: every time 1000 s later', async () => {
    const f = tmp.file('w-offset.pcapng', pcapng([{ linktype, tsresol: 9, tsoffset: 1000n }], packets.map((p) => ({ ...p, tsNs: p.tsNs + 1_000_000_000_000n }))));
    const r = await runEngine([f]);
    expect(r.st.error).toBeNull();
    const shift = (x: ReturnType<typeof canonFlow>) => ({ ...x, first: 0, last: 0 });
    expect(canonFlows(r.flows).map(shift)).toEqual(canonFlows(base.flows).map(shift));
    // (ns times are JS numbers here: exact to ~256 ns at this epoch)
    expect(Math.abs(r.stats.first_seen_ns - base.stats.first_seen_ns - 1e12)).toBeLessThan(1024);
    expect(Math.abs(r.stats.last_seen_ns - base.stats.last_seen_ns - 1e12)).toBeLessThan(1024);
  });

  it('power-of-two resolution (2^-20 s): same flows, times within a microsecond', async () => {
    const f = tmp.file('w-pow2.pcapng', pcapng([{ linktype, tsresol: 0x80 | 20 }], packets));
    expect(tool('capinfos', ['-M', f])).toMatch(/Time resolution = 0x94/);
    const r = await runEngine([f]);
    expect(r.st.error).toBeNull();
    const a = canonFlows(r.flows), b = canonFlows(base.flows);
    expect(a.map((x) => ({ ...x, first: 0, last: 0 }))).toEqual(b.map((x) => ({ ...x, first: 0, last: 0 })));
    a.forEach((x, i) => {
      expect(Math.abs(x.first - b[i]!.first)).toBeLessThanOrEqual(1024);
      expect(Math.abs(x.last - b[i]!.last)).toBeLessThanOrEqual(1024);
    });
  });

  it('two sections (two pcapng files concatenated) are read one after the other', async () => {
    const raw = pcapPackets(readFileSync(RAW));
    const f = tmp.file('w-2sections.pcapng', Buffer.concat([pcapng([{ linktype }], packets), pcapng([{ linktype: raw.linktype }], raw.packets, true)]));
    const r = await runEngine([f]);
    const parts = [base, await runEngine([RAW])];
    expect(r.st.error).toBeNull();
    expect(r.stats.packets).toBe(1723 + 32);
    expect(canonFlows(r.flows)).toEqual(canonFlows(parts.flatMap((p) => p.flows)));
  });
});

describe('snaplen-truncated copies (editcap -s): counted with their original lengths', () => {
  let base: RunResult;
  beforeAll(async () => {
    base = await runEngine([BASE]);
  });

  it('snaplen 96: every header is captured whole, same flows and hosts', async () => {
    const f = tmp.file('s96.pcap');
    tool('editcap', ['-s', '96', BASE, f]);
    const r = await runEngine([f]);
    expect(r.st.error).toBeNull();
    expect(r.stats.bytes).toBe(base.stats.bytes);
    expect(canonFlows(r.flows)).toEqual(canonFlows(base.flows));
    expect(canonHosts(r.hosts)).toEqual(canonHosts(base.hosts));
  });

  it('snaplen 68 (the old tcpdump default, cuts SYN options): same flows and hosts', async () => {
    const f = tmp.file('s68.pcap');
    tool('editcap', ['-s', '68', BASE, f]);
    const r = await runEngine([f]);
    expect(r.stats.decode['decode.tcp.too_short']).toBe(0);
    expect(canonFlows(r.flows)).toEqual(canonFlows(base.flows));
  });
});

describe('several link types in one pcapng, and playlists', () => {
  let parts: RunResult[];

  beforeAll(async () => {
    parts = await Promise.all([BASE, SLL, RAW].map((f) => runEngine([f])));
  });

  it('the parts have disjoint flows and hosts (precondition of the union)', () => {
    const keys = parts.flatMap((p) => canonFlows(p.flows).map((f) => `${f.proto}|${f.client}|${f.server}`));
    expect(new Set(keys).size).toBe(keys.length);
    const hosts = parts.flatMap((p) => p.hosts.map((h) => normIp(h.ip)));
    expect(new Set(hosts).size).toBe(hosts.length);
  });

  it('mergecap of Ethernet + SLL + raw IP: one IDB per link type, union of the flows', async () => {
    const merged = tmp.file('merged.pcapng');
    tool('mergecap', ['-w', merged, BASE, SLL, RAW]);
    const info = tool('capinfos', ['-M', merged]);
    expect(info).toMatch(/Number of interfaces in file: 3/);
    expect(info).toMatch(/Encapsulation = Ethernet \(1 - ether\)/);
    expect(info).toMatch(/Encapsulation = Linux cooked-mode capture v1 \(25 - linux-sll\)/);
    expect(info).toMatch(/Encapsulation = Raw IP \(7 - rawip\)/);

    const r = await runEngine([merged]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(parts.reduce((s, p) => s + p.stats.packets, 0));
    expect(r.stats.bytes).toBe(parts.reduce((s, p) => s + p.stats.bytes, 0));
    expect(canonFlows(r.flows)).toEqual(canonFlows(parts.flatMap((p) => p.flows)));
    expect(canonHosts(r.hosts)).toEqual(canonHosts(parts.flatMap((p) => p.hosts)));
  });

  it('a playlist [a, b, c] gives the union', async () => {
    // In time order (2015, 2016-2022, 2024): the engine clock never goes back, so a file
    // older than the one before it would get its flows stamped with the later time.
    const r = await runEngine([SLL, BASE, RAW]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(parts.reduce((s, p) => s + p.stats.packets, 0));
    expect(canonFlows(r.flows)).toEqual(canonFlows(parts.flatMap((p) => p.flows)));
    expect(canonHosts(r.hosts)).toEqual(canonHosts(parts.flatMap((p) => p.hosts)));
    expect(r.st.progress).toBe(1);
  });

  it('a playlist of the same file twice doubles every counter', async () => {
    const r = await runEngine([RAW, RAW]);
    const once = parts[2]!;
    expect(r.stats.packets).toBe(2 * once.stats.packets);
    const doubled = canonFlows(once.flows).map((f) => ({ ...f, c2s: f.c2s.map((x) => 2 * x), s2c: f.s2c.map((x) => 2 * x) }));
    expect(canonFlows(r.flows).map((f) => ({ ...f, first: 0, last: 0 }))).toEqual(doubled.map((f) => ({ ...f, first: 0, last: 0 })));
  });
});

describe('empty and invalid files', () => {
  it('a pcap with only its 24-byte header: 0 packets, no error', async () => {
    const f = tmp.file('empty.pcap', pcapHeader());
    const r = await runEngine([f]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(0);
    expect(r.flows).toEqual([]);
  });

  it('a pcapng with only a section header and an interface: 0 packets, no error', async () => {
    const f = tmp.file('empty.pcapng', Buffer.concat([ngShb(), ngIdb(LINKTYPE.ETHERNET)]));
    expect(tool('capinfos', ['-c', '-M', f])).toMatch(/Number of packets:\s+0/);
    const r = await runEngine([f]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(0);
  });

  it('an empty file in a playlist does not stop it', async () => {
    const r = await runEngine([tmp.file('empty.pcap', pcapHeader()), RAW]);
    expect(r.st).toMatchObject({ state: 'done', error: null });
    expect(r.stats.packets).toBe(32);
  });

  const refuse = (path: string, pattern: RegExp) => {
    let err: unknown;
    try {
      new Engine({ files: [path] }).close();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FlowgateError);
    expect((err as FlowgateError).code).toBe('E_FILE_OPEN');
    expect((err as FlowgateError).message).toContain(path);
    expect((err as FlowgateError).message).toMatch(pattern);
  };

  it('a 0-byte file is refused with E_FILE_OPEN naming the file', () => {
    refuse(tmp.file('zero.pcap', ''), /not a capture file/);
  });

  it('a text file is refused with E_FILE_OPEN naming the file', () => {
    refuse(tmp.file('notes.txt', 'these are not the packets you are looking for\n'.repeat(20)), /not a pcap or pcapng file/);
  });

  it('a pcap header cut short is refused', () => {
    refuse(tmp.file('short.pcap', pcapHeader().subarray(0, 20)), /truncated/);
  });

  it('a missing file is refused', () => {
    refuse(join(tmp.dir, 'does-not-exist.pcap'), /No such file/);
  });

  it('a directory is refused', () => {
    refuse(tmp.dir, /not a regular file/);
  });

  it('a missing file anywhere in a playlist is refused before anything runs', () => {
    const missing = join(tmp.dir, 'second-missing.pcap');
    expect(() => new Engine({ files: [RAW, missing] })).toThrow(FlowgateError);
    expect(() => new Engine({ files: [RAW, missing] })).toThrow(missing);
  });
});
