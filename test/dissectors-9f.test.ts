// One hand-built flow per case: the group-F dissectors of round 9 (Bitcoin,
// Citrix, CiscoVPN, SoftEther, Tailscale, Cloudflare WARP, tinc, NoMachine,
// Radmin, UltraSurf, AVAST SecureDNS, Nano, i3D) name their protocol by DPI
// under nDPI's conditions, and a near miss (one detail wrong) is not named
// that protocol by DPI (a guess by port or address may still name it).
import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { CLI, SRV, alternating, classifier, replayFrames, tcpSession, udpClassifierAt } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { hex, le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-9f-');
const v6 = { v6: true };
const le64 = (v: number) => Buffer.concat([le32(v), le32(0)]);
const u64 = (v: number) => Buffer.concat([u32(0), u32(v)]);

// ── Bitcoin (developer reference, "P2P Network"): message header = start
// string (4), command (12, NUL-padded), payload size (LE32), checksum (4).
const MAINNET = 0xf9beb4d9, TESTNET = 0xfabfb5da, TESTNET3 = 0x0b110907, SIGNET = 0x0a03cf40, NAMECOIN = 0xf9beb4fe;
const netAddr = (port: number) => Buffer.concat([le64(1), Buffer.alloc(10), hex('ffff'), Buffer.from([10, 0, 0, 1]), u16(port)]);
// "version" payload: protocol version, services, timestamp, addr_recv,
// addr_from, nonce, user agent (var_str), start height, relay.
const versionPayload = Buffer.concat([
  le32(70016), le64(1), le64(1700000000), netAddr(8333), netAddr(0), le64(0x12345678), Buffer.from([15]), txt('/Satoshi:27.0.0/'), le32(840000), Buffer.from([1]),
]);
const btc = (magic: number, command: string, payload: Buffer) => {
  const cmd = Buffer.alloc(12);
  txt(command).copy(cmd);
  return Buffer.concat([u32(magic), cmd, le32(payload.length), hex('5df6e0e2'), payload]);
};

// ── Citrix: ICA's detection string, CGP's signature (Wireshark cgp).
const ICA = hex('7f7f 4943 4100');
const cgp = (extra: number) => Buffer.concat([txt('\x1aCGP/01'), Buffer.alloc(extra, 0x11)]);

// ── SoftEther PACK (Mayaqua/Pack.c): element count, then per element: name
// (u32 len+1, the bytes), type, value count, values (int u32, int64 u64,
// str / unistr u32 len + bytes).
type PackValue = ['int', number] | ['int64', number] | ['str', string] | ['unistr', string];
const packName = (s: string) => Buffer.concat([u32(s.length + 1), txt(s)]);
const packValue = ([t, v]: PackValue) =>
  t === 'int' ? u32(v) : t === 'int64' ? u64(v) : Buffer.concat([u32(Buffer.byteLength(v, 'utf8')), Buffer.from(v, 'utf8')]);
const PACK_TYPE = { int: 0, str: 2, unistr: 3, int64: 4 } as const;
const pack = (elems: [string, PackValue][], countDelta = 0) =>
  Buffer.concat([
    u32(elems.length + countDelta),
    ...elems.map(([name, v]) => Buffer.concat([packName(name), u32(PACK_TYPE[v[0]]), u32(1), packValue(v)])),
  ]);
const hostPack: [string, PackValue][] = [
  ['host_name', ['str', 'vpn-client-01']],
  ['ddns_fqdn', ['str', 'vpn123456.softether.net']],
  ['port', ['int', 5555]],
  ['time', ['int64', 1700000000]],
];

// ── Tailscale disco (disco/disco.go): magic "TS💬", sender key (32), nonce (24), box.
const DISCO_MAGIC = hex('5453f09f92ac');
const disco = (magic = DISCO_MAGIC) => Buffer.concat([magic, Buffer.alloc(32, 0x42), Buffer.alloc(24, 0x17), Buffer.alloc(40, 0x99)]);

// ── Cloudflare WARP: its WireGuard-like handshake initiation (type 0xc1, 148 bytes).
const warpInit = Buffer.concat([hex('c1000000'), le32(0x1234), Buffer.alloc(140, 0x5a)]);

// ── tinc meta protocol: "0 <name> 17\n", "1 <cipher> <digest> <maclength> <compression> <key>\n".
const tincKey = 'A1B2C3D4E5F60718293A4B5C6D7E8F90'.repeat(16);
const tincId = (name: string, version = '17') => txt(`0 ${name} ${version}\n`);
const tincMetakey = (key = tincKey) => txt(`1 91 64 4 0 ${key}\n`);

// ── NoMachine UDP frame: 2 bytes, LE16 1, LE16 length, 2 bytes, 2 zero bytes, data.
const nxUdp = (len: number, opts: { one?: number; lenDelta?: number; z?: number } = {}) =>
  Buffer.concat([hex('a55a'), le16(opts.one ?? 1), le16(len + (opts.lenDelta ?? 0)), hex('0001'), u16(opts.z ?? 0), Buffer.alloc(len - 10, 0x33)]);

// ── Radmin: 01 00 00 00, a size byte, then the body.
const radminHello = (a = 8, b = 8) => Buffer.concat([hex('0100000001'), hex('000000'), Buffer.from([a, b])]);
const radminReply = (len = 46, b13 = 0x0a) => {
  const r = Buffer.concat([hex('0100000025'), hex('0000'), hex('02120802'), hex('0000'), Buffer.from([b13])]);
  return Buffer.concat([r, Buffer.alloc(len - r.length, 0x21)]);
};
const radmin14 = (size = 5) => Buffer.concat([hex('01000000'), Buffer.from([size]), hex('000000'), hex('2727'), hex('00000000')]);

// ── UltraSurf's prologue.
const ULTRASURF = hex('cc1c30415ba43866');

// ── AVAST SecureDNS: a DNS query (RFC 1035 §4.1) for 2.securedns.<…>, TXT/IN.
const dnsName = (labels: string[]) => Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0])]);
const avastQuery = (labels = ['2', 'securedns', 'avast', 'com']) =>
  Buffer.concat([u16(0x4d2a), u16(0x0100), u16(1), u16(0), u16(0), u16(0), dnsName(labels), u16(16), u16(1)]);

// ── Nano (docs.nano.org, networking): 'R', network, version max / using / min, type, extensions (2).
const nanoMsg = (vmax = 20, vuse = 19, vmin = 18, type = 0x02, net = 'C') =>
  Buffer.concat([txt(`R${net}`), Buffer.from([vmax, vuse, vmin, type]), hex('0000'), Buffer.alloc(8 * 18, 0x01)]);

// ── i3D game-server headers.
const i3dGame = (first = 0x00010046, len = 80) => Buffer.concat([u32(first), u32(0x0003cfa8), Buffer.alloc(len - 8, 0x44)]);
const i3dMedia = (first = 0x9078, ssrc = 0x0003cfa9, len = 80) =>
  Buffer.concat([u16(first), u16(0x1234), u32(0x00010000), u32(ssrc), u32(0xbede0003), Buffer.alloc(len - 16, 0x55)]);

// UDP flows between chosen addresses (nDPI's IP lists): the flow's class.
const classifyUdpAt = udpClassifierAt('fg-dissectors-9f-udp-');
const tmp = tempDir('fg-dissectors-9f-ip-');
let nIp = 0;
// A tinc TCP meta connection CLI → SRV:655, then UDP datagrams (each
// [from CLI?, sport, dport, payload]): every flow's class by its L4 and ports.
const tincThenUdp = async (tcpPayloads: Buffer[], datagrams: [boolean, number, number, Buffer][], tcpAfter = false) => {
  const v4 = (c: boolean, proto: number, l4: Buffer) => eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? CLI : SRV, dst: c ? SRV : CLI, proto }, l4));
  const tcpFrames = tcpSession(CLI, SRV, 40750, 655, alternating(tcpPayloads));
  const udpFrames = datagrams.map(([c, sport, dport, p]) => v4(c, IPPROTO.UDP, udp({ sport, dport }, p)));
  const frames = tcpAfter ? [...udpFrames, ...tcpFrames] : [...tcpFrames, ...udpFrames];
  return replayFrames(tmp.file(`tinc-${nIp++}.pcap`), frames, (e) =>
    Object.fromEntries(
      e.flows({ limit: 10 }).rows.map((f) => [`${f.proto}/${f.client.port}-${f.server.port}`, `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`]),
    ),
  );
};
const WARP4 = '162.159.192.1', WARP6 = '2606:4700:100::1', HOME = '192.168.1.10';

describe('dissectors 9 (group F)', () => {
  afterAll(() => tmp.cleanup());

  it('Bitcoin: a message opening with a known network magic, port 8333 either side', async () => {
    expect(await classify('tcp', 40100, 8333, [btc(MAINNET, 'version', versionPayload)])).toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40101, 8333, [btc(TESTNET, 'version', versionPayload)])).toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40102, 8333, [btc(TESTNET3, 'version', versionPayload)])).toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40103, 8333, [btc(SIGNET, 'version', versionPayload)])).toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40104, 8333, [btc(NAMECOIN, 'version', versionPayload)])).toBe('BITCOIN (DPI)');
    // the server's verack first; 8333 as the client's port
    expect(await classify('tcp', 40105, 8333, [btc(MAINNET, 'verack', Buffer.alloc(0))], [false])).toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 8333, 40106, [btc(MAINNET, 'version', versionPayload)])).toBe('BITCOIN (DPI)');
    // the magic alone (4 bytes) is enough
    expect(await classify('tcp', 40107, 8333, [u32(MAINNET)])).toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40108, 8333, [btc(MAINNET, 'version', versionPayload)], undefined, v6)).toBe('BITCOIN (DPI)');
  });

  it('Bitcoin near misses: no 8333, magic reversed or unknown, too short, not first', async () => {
    expect(await classify('tcp', 40110, 18333, [btc(MAINNET, 'version', versionPayload)])).not.toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40111, 8333, [btc(0xd9b4bef9, 'version', versionPayload)])).not.toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40112, 8333, [btc(0xdab5bffa, 'version', versionPayload)])).not.toBe('BITCOIN (DPI)'); // regtest
    expect(await classify('tcp', 40113, 8333, [hex('f9beb4')])).not.toBe('BITCOIN (DPI)');
    expect(await classify('tcp', 40114, 8333, [txt('hello world'), btc(MAINNET, 'version', versionPayload)])).not.toBe('BITCOIN (DPI)');
    expect(await classify('udp', 40115, 8333, [btc(MAINNET, 'version', versionPayload)])).not.toBe('BITCOIN (DPI)');
  });

  it('Citrix: ICA detection string, CGP signature, TcpProxyService, any port', async () => {
    expect(await classify('tcp', 40200, 1494, [ICA], [false])).toBe('Citrix (DPI)');
    expect(await classify('tcp', 40201, 1494, [ICA, ICA])).toBe('Citrix (DPI)');
    expect(await classify('tcp', 40202, 2598, [cgp(16)])).toBe('Citrix (DPI)'); // 23 bytes
    expect(await classify('tcp', 40203, 443, [Buffer.concat([hex('0102'), txt('connect Citrix.TcpProxyService v1')])])).toBe('Citrix (DPI)');
    expect(await classify('tcp', 40204, 7000, [ICA], [false])).toBe('Citrix (DPI)');
    expect(await classify('tcp', 40205, 2598, [cgp(40)], undefined, v6)).toBe('Citrix (DPI)');
  });

  it('Citrix near misses: wrong length or byte, too short for CGP, the name after a NUL, second packet, UDP', async () => {
    expect(await classify('tcp', 40210, 1494, [Buffer.concat([ICA, hex('00')])], [false])).not.toBe('Citrix (DPI)');
    expect(await classify('tcp', 40211, 1494, [hex('7f7f 4943 4101')], [false])).not.toBe('Citrix (DPI)');
    expect(await classify('tcp', 40212, 2598, [cgp(15)])).not.toBe('Citrix (DPI)'); // 22 bytes
    expect(await classify('tcp', 40213, 2598, [Buffer.concat([txt('\x1aCGP/02'), Buffer.alloc(20, 0x11)])])).not.toBe('Citrix (DPI)');
    expect(await classify('tcp', 40214, 7000, [Buffer.concat([hex('0100'), txt('connect Citrix.TcpProxyService v1')])])).not.toBe('Citrix (DPI)');
    expect(await classify('tcp', 40215, 1494, [txt('hello there'), ICA])).not.toBe('Citrix (DPI)');
    expect(await classify('udp', 40216, 1494, [ICA])).not.toBe('Citrix (DPI)');
  });

  it('CiscoVPN: UDP 10000 both ways, FE 57 7E 2B within the first 6 packets', async () => {
    const tunnel = Buffer.concat([hex('fe577e2b'), Buffer.alloc(60, 0x01)]);
    expect(await classify('udp', 10000, 10000, [tunnel])).toBe('CiscoVPN (DPI)');
    expect(await classify('udp', 10000, 10000, [hex('fe577e2b')])).toBe('CiscoVPN (DPI)');
    const other = Buffer.alloc(48, 0x07);
    expect(await classify('udp', 10000, 10000, [other, other, other, other, other, tunnel])).toBe('CiscoVPN (DPI)');
    expect(await classify('udp', 10000, 10000, [tunnel], undefined, v6)).toBe('CiscoVPN (DPI)');
  });

  it('CiscoVPN near misses: one port only, a wrong byte, too late, TCP', async () => {
    const tunnel = Buffer.concat([hex('fe577e2b'), Buffer.alloc(60, 0x01)]);
    expect(await classify('udp', 40300, 10000, [tunnel])).not.toBe('CiscoVPN (DPI)');
    expect(await classify('udp', 10000, 10000, [Buffer.concat([hex('fe577e2c'), Buffer.alloc(60, 0x01)])])).not.toBe('CiscoVPN (DPI)');
    const other = Buffer.alloc(48, 0x07);
    expect(await classify('udp', 10000, 10000, [other, other, other, other, other, other, tunnel])).not.toBe('CiscoVPN (DPI)');
    expect(await classify('tcp', 10000, 10000, [tunnel])).not.toBe('CiscoVPN (DPI)');
  });

  it('SoftEther over UDP: IP=,PORT= report, a whole PACK, after keep-alives, any port', async () => {
    expect(await classify('udp', 40400, 5004, [txt('IP=203.0.113.5,PORT=5555')])).toBe('Softether (DPI)');
    expect(await classify('udp', 40401, 443, [txt('IP=1.2.3.4,PORT=1')])).toBe('Softether (DPI)'); // 18 bytes
    const p = pack(hostPack);
    expect(p.length).toBeGreaterThanOrEqual(99);
    expect(await classify('udp', 40402, 5004, [p])).toBe('Softether (DPI)');
    expect(await classify('udp', 40403, 5004, [hex('41'), txt('IP=203.0.113.5,PORT=5555')])).toBe('Softether (DPI)');
    // two keep-alives: two one-byte datagrams in a row with the same byte are IMO's on the second (nDPI 4.11's imo.c, checked with its ndpiReader)
    expect(await classify('udp', 40406, 5004, [hex('41'), hex('41'), txt('IP=203.0.113.5,PORT=5555')])).toBe('IMO (DPI)');
    expect(await classify('udp', 40404, 5004, [hex('41'), p], [true, false])).toBe('Softether (DPI)');
    const uni = pack([...hostPack, ['label', ['unistr', 'Zürich office']]]);
    expect(await classify('udp', 40405, 1194, [uni], undefined, v6)).toBe('Softether (DPI)');
  });

  it('SoftEther near misses: no ,PORT=, too long, PACK short / extra byte / wrong count, late keep-alive, TCP', async () => {
    expect(await classify('udp', 40410, 5004, [txt('IP=203.0.113.5;PORT=5555')])).not.toBe('Softether (DPI)');
    expect(await classify('udp', 40411, 5004, [txt('IP=203.0.113.5,PORT=5555   /path')])).not.toBe('Softether (DPI)'); // 32 bytes (at most 29)
    expect(await classify('udp', 40412, 5004, [txt('ip=203.0.113.5,PORT=5555')])).not.toBe('Softether (DPI)');
    const p = pack(hostPack);
    expect(await classify('udp', 40413, 5004, [Buffer.concat([p, hex('00')])])).not.toBe('Softether (DPI)');
    expect(await classify('udp', 40414, 5004, [pack(hostPack, 1)])).not.toBe('Softether (DPI)');
    const small = pack([['host_name', ['str', 'a'.repeat(10)]], ['port', ['int', 1]], ['n', ['int64', 1]]]);
    expect(small.length).toBeLessThan(99);
    expect(await classify('udp', 40415, 5004, [small])).not.toBe('Softether (DPI)');
    expect(await classify('udp', 40416, 5004, [hex('41'), hex('41'), hex('41'), txt('IP=203.0.113.5,PORT=5555')], [true, false, true, false])).not.toBe('Softether (DPI)');
    expect(await classify('udp', 40417, 5004, [hex('42'), txt('IP=203.0.113.5,PORT=5555')])).not.toBe('Softether (DPI)');
    expect(await classify('tcp', 40418, 5004, [txt('IP=203.0.113.5,PORT=5555')])).not.toBe('Softether (DPI)');
  });

  it('Tailscale: a disco message on UDP 41641 either side', async () => {
    expect(await classify('udp', 41641, 41641, [disco()])).toBe('Tailscale (DPI)');
    expect(await classify('udp', 40500, 41641, [disco()])).toBe('Tailscale (DPI)');
    expect(await classify('udp', 41641, 40501, [disco()])).toBe('Tailscale (DPI)');
    expect(await classify('udp', 40502, 41641, [Buffer.concat([DISCO_MAGIC, hex('00')])])).toBe('Tailscale (DPI)');
    expect(await classify('udp', 40503, 41641, [disco()], undefined, v6)).toBe('Tailscale (DPI)');
  });

  it('Tailscale near misses: another port, a wrong magic byte, the magic alone, not first, TCP', async () => {
    expect(await classify('udp', 40510, 41642, [disco()])).not.toBe('Tailscale (DPI)');
    expect(await classify('udp', 40511, 41641, [disco(hex('5453f09f92ad'))])).not.toBe('Tailscale (DPI)');
    expect(await classify('udp', 40512, 41641, [DISCO_MAGIC])).not.toBe('Tailscale (DPI)');
    expect(await classify('udp', 40513, 41641, [Buffer.alloc(64, 0x09), disco()])).not.toBe('Tailscale (DPI)');
    expect(await classify('tcp', 40514, 41641, [disco()])).not.toBe('Tailscale (DPI)');
  });

  it('Cloudflare WARP: a UDP flow to (or from) a WARP address on one of its ports', async () => {
    expect(await classifyUdpAt(HOME, WARP4, 40600, 2408, [warpInit])).toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt(HOME, WARP4, 40601, 1701, [warpInit])).toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt(HOME, WARP4, 40602, 8095, [warpInit])).toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt(HOME, WARP4, 40603, 4443, [warpInit])).toBe('CloudflareWarp (DPI)');
    // the WARP address as the flow's client (nDPI also tries the client's address)
    expect(await classifyUdpAt(WARP4, HOME, 2408, 40604, [warpInit])).toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt(HOME, WARP4, 2408, 40605, [warpInit])).toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt('2001:db8::1', WARP6, 40606, 2408, [warpInit])).toBe('CloudflareWarp (DPI)');
  });

  it('Cloudflare WARP near misses: an address not in the list, another port', async () => {
    expect(await classifyUdpAt(HOME, '10.0.0.2', 40610, 2408, [warpInit])).not.toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt(HOME, WARP4, 40611, 2409, [warpInit])).not.toBe('CloudflareWarp (DPI)');
    expect(await classifyUdpAt(HOME, '162.159.191.1', 40612, 2408, [warpInit])).not.toBe('CloudflareWarp (DPI)');
  });

  it('tinc: two ID lines then two METAKEY lines over TCP/IPv4, any port', async () => {
    expect(await classify('tcp', 40700, 655, [tincId('alpha'), tincId('beta'), tincMetakey(), tincMetakey()])).toBe('TINC (DPI)');
    expect(await classify('tcp', 40701, 7655, [tincId('a'), tincId('node_2'), tincMetakey(), tincMetakey()])).toBe('TINC (DPI)');
    // METAKEY: digits and capitals up to '\n', anything may follow
    expect(await classify('tcp', 40702, 655, [tincId('alpha'), tincId('beta'), tincMetakey(), txt(`1 91 64 4 0 ${tincKey}\n4 REQ\n`)])).toBe('TINC (DPI)');
  });

  it('tinc over UDP: the tunnel between a named meta connection\'s endpoints, from the cache, once', async () => {
    const meta = [tincId('alpha'), tincId('beta'), tincMetakey(), tincMetakey()];
    const packet = Buffer.alloc(60, 0x5e);
    const got = await tincThenUdp(meta, [
      [true, 655, 655, packet], // the client's tunnel to the server's port 655
      [true, 655, 655, packet], // the same flow again: already named
      [false, 655, 40760, packet], // the entry is used up: another flow is not named
    ]);
    expect(got['6/40750-655']).toBe('TINC (DPI)');
    expect(got['17/655-655']).toBe('TINC (DPI (cache))');
    expect(got['17/655-40760']).not.toBe('TINC (DPI (cache))');
    // the server sending first (its address and port 655 as the datagram's source)
    const back = await tincThenUdp(meta, [[false, 655, 41000, packet]]);
    expect(back['17/655-41000']).toBe('TINC (DPI (cache))');
  });

  it('tinc over UDP near misses: meta connection not named, another server port, UDP first', async () => {
    const packet = Buffer.alloc(60, 0x5e);
    const short = await tincThenUdp([tincId('alpha'), tincId('beta'), tincMetakey()], [[true, 655, 655, packet]]);
    expect(short['17/655-655']).not.toBe('TINC (DPI (cache))');
    const meta = [tincId('alpha'), tincId('beta'), tincMetakey(), tincMetakey()];
    const other = await tincThenUdp(meta, [[true, 40761, 656, packet]]);
    expect(other['17/40761-656']).not.toBe('TINC (DPI (cache))');
    const early = await tincThenUdp(meta, [[true, 655, 655, packet]], true);
    expect(early['17/655-655']).not.toBe('TINC (DPI (cache))');
  });

  it('tinc near misses: another version, lower-case key, a third ID, three packets only, IPv6, UDP', async () => {
    expect(await classify('tcp', 40710, 655, [tincId('alpha', '18'), tincId('beta'), tincMetakey(), tincMetakey()])).not.toBe('TINC (DPI)');
    expect(await classify('tcp', 40711, 655, [tincId('alpha'), tincId('beta', '17.7'), tincMetakey(), tincMetakey()])).not.toBe('TINC (DPI)');
    expect(await classify('tcp', 40712, 655, [tincId('alpha'), tincId('beta'), tincMetakey(), tincMetakey(tincKey.toLowerCase())])).not.toBe('TINC (DPI)');
    expect(await classify('tcp', 40713, 655, [tincId('alpha'), tincId('beta'), tincId('gamma'), tincMetakey(), tincMetakey()])).not.toBe('TINC (DPI)');
    expect(await classify('tcp', 40714, 655, [tincId('alpha'), tincId('beta'), tincMetakey()])).not.toBe('TINC (DPI)');
    expect(await classify('tcp', 40715, 655, [tincId('alpha'), tincId('beta'), txt(`1 91 64 4 ${tincKey}\n`), tincMetakey()])).not.toBe('TINC (DPI)');
    expect(await classify('tcp', 40716, 655, [tincId('alpha'), tincId('beta'), tincMetakey(), tincMetakey()], undefined, v6)).not.toBe('TINC (DPI)');
    expect(await classify('udp', 40717, 655, [tincId('alpha'), tincId('beta'), tincMetakey(), tincMetakey()])).not.toBe('TINC (DPI)');
  });

  it('NoMachine: NXSH- / NXD- handshake over TCP, its UDP frame, any port', async () => {
    expect(await classify('tcp', 40800, 4000, [txt('NXSH-8.10.1\n'), txt('NXD-8.10.1\n')])).toBe('NoMachine (DPI)');
    expect(await classify('tcp', 40801, 4000, [txt('NXD-8.10.1\n')], [false])).toBe('NoMachine (DPI)');
    expect(await classify('tcp', 40802, 22, [txt('NXSH-7.16.1\n')])).toBe('NoMachine (DPI)');
    expect(await classify('udp', 40803, 4000, [nxUdp(64)])).toBe('NoMachine (DPI)');
    expect(await classify('udp', 40804, 4011, [nxUdp(10)])).toBe('NoMachine (DPI)');
    expect(await classify('tcp', 40805, 4000, [txt('NXSH-8.10.1\n')], undefined, v6)).toBe('NoMachine (DPI)');
    expect(await classify('udp', 40806, 4000, [nxUdp(200)], undefined, v6)).toBe('NoMachine (DPI)');
  });

  it('NoMachine near misses: too short or long, lower case, UDP fields off, not first', async () => {
    expect(await classify('tcp', 40810, 4000, [txt('NXSH-8.1\n')])).not.toBe('NoMachine (DPI)'); // 9 bytes
    expect(await classify('tcp', 40811, 4000, [txt('NXSH-8.10.1234\n')])).not.toBe('NoMachine (DPI)'); // 15 bytes
    expect(await classify('tcp', 40812, 4000, [txt('nxsh-8.10.1\n')])).not.toBe('NoMachine (DPI)');
    expect(await classify('udp', 40813, 4000, [nxUdp(64, { lenDelta: 1 })])).not.toBe('NoMachine (DPI)');
    expect(await classify('udp', 40814, 4000, [nxUdp(64, { one: 2 })])).not.toBe('NoMachine (DPI)');
    expect(await classify('udp', 40815, 4000, [nxUdp(64, { z: 1 })])).not.toBe('NoMachine (DPI)');
    expect(await classify('tcp', 40816, 4000, [txt('hello\n'), txt('NXD-8.10.1\n')])).not.toBe('NoMachine (DPI)');
  });

  it('Radmin: hello then reply, or two 14-byte packets, any port', async () => {
    expect(await classify('tcp', 40900, 4899, [radminHello(), radminReply()])).toBe('Radmin (DPI)');
    expect(await classify('tcp', 40901, 5000, [radminHello(), radminReply()])).toBe('Radmin (DPI)');
    expect(await classify('tcp', 40902, 4899, [radmin14(), radmin14()])).toBe('Radmin (DPI)');
    expect(await classify('tcp', 40903, 4899, [radmin14(), radmin14()], [true, true])).toBe('Radmin (DPI)');
    // a hello opens the stage a 14-byte packet closes too
    expect(await classify('tcp', 40904, 4899, [radminHello(), radmin14()])).toBe('Radmin (DPI)');
    expect(await classify('tcp', 40905, 4899, [radminHello(), radminReply()], undefined, v6)).toBe('Radmin (DPI)');
  });

  it('Radmin near misses: reply alone, hello from the server, wrong sizes or bytes, one 14-byte packet, UDP', async () => {
    expect(await classify('tcp', 40910, 4899, [radminReply()], [false])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40911, 4899, [radminHello(), radminReply()], [false, false])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40912, 4899, [radminHello(), radminReply(47)])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40913, 4899, [radminHello(), radminReply(46, 0x0b)])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40914, 4899, [radminHello(8, 9), radminReply()])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40915, 4899, [radmin14(), txt('something else')])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40916, 4899, [radmin14(6), radmin14()])).not.toBe('Radmin (DPI)');
    expect(await classify('tcp', 40917, 4899, [radminHello(), radminHello(), radminReply()], [true, true, false])).not.toBe('Radmin (DPI)');
    expect(await classify('udp', 40918, 4899, [radmin14(), radmin14()])).not.toBe('Radmin (DPI)');
  });

  it('UltraSurf: the 8-byte prologue on the first packet, any port', async () => {
    expect(await classify('tcp', 41000, 443, [Buffer.concat([ULTRASURF, Buffer.alloc(100, 0x3c)])])).toBe('UltraSurf (DPI)');
    expect(await classify('tcp', 41001, 8080, [ULTRASURF])).toBe('UltraSurf (DPI)');
    expect(await classify('tcp', 41002, 443, [Buffer.concat([ULTRASURF, Buffer.alloc(100, 0x3c)])], undefined, v6)).toBe('UltraSurf (DPI)');
  });

  it('UltraSurf near misses: 7 bytes, one byte wrong, second packet, UDP', async () => {
    expect(await classify('tcp', 41010, 443, [ULTRASURF.subarray(0, 7)])).not.toBe('UltraSurf (DPI)');
    expect(await classify('tcp', 41011, 443, [hex('cc1c30415ba43867 00')])).not.toBe('UltraSurf (DPI)');
    expect(await classify('tcp', 41012, 8080, [txt('hi there'), ULTRASURF])).not.toBe('UltraSurf (DPI)');
    expect(await classify('udp', 41013, 8080, [ULTRASURF])).not.toBe('UltraSurf (DPI)');
  });

  it('AVAST SecureDNS: a query for 2.securedns.… as the first datagram, any port but DNS\'s', async () => {
    expect(await classify('udp', 41100, 443, [avastQuery()])).toBe('AVASTSecureDNS (DPI)');
    expect(await classify('udp', 41101, 8443, [avastQuery(['2', 'SecureDNS', 'Avast', 'com'])])).toBe('AVASTSecureDNS (DPI)');
    expect(await classify('udp', 41102, 443, [avastQuery()], undefined, v6)).toBe('AVASTSecureDNS (DPI)');
  });

  it('AVAST SecureDNS near misses: another label, short, second datagram, TCP', async () => {
    expect(await classify('udp', 41110, 443, [avastQuery(['3', 'securedns', 'avast', 'com'])])).not.toBe('AVASTSecureDNS (DPI)');
    expect(await classify('udp', 41111, 443, [avastQuery(['2', 'securednx', 'avast', 'com'])])).not.toBe('AVASTSecureDNS (DPI)');
    expect(await classify('udp', 41112, 443, [avastQuery().subarray(0, 33)])).not.toBe('AVASTSecureDNS (DPI)');
    expect(await classify('udp', 41113, 443, [Buffer.alloc(40, 0x66), avastQuery()], [true, true])).not.toBe('AVASTSecureDNS (DPI)');
    expect(await classify('tcp', 41114, 8443, [avastQuery()])).not.toBe('AVASTSecureDNS (DPI)');
  });

  it('Nano: an RC message header with versions in nDPI\'s window, any port', async () => {
    expect(await classify('tcp', 41200, 7075, [nanoMsg()])).toBe('Nano (DPI)');
    expect(await classify('tcp', 41201, 7075, [nanoMsg(20, 20, 19, 0x0a)])).toBe('Nano (DPI)');
    expect(await classify('tcp', 41202, 9000, [nanoMsg(20, 18, 18, 0x0f)])).toBe('Nano (DPI)');
    expect(await classify('tcp', 41203, 7075, [nanoMsg()], undefined, v6)).toBe('Nano (DPI)');
  });

  it('Nano near misses: another network or versions, type > 15, 32 bytes, UDP', async () => {
    expect(await classify('tcp', 41210, 7075, [nanoMsg(20, 19, 18, 2, 'B')])).not.toBe('Nano (DPI)');
    expect(await classify('tcp', 41211, 7075, [nanoMsg(21, 19, 18)])).not.toBe('Nano (DPI)');
    expect(await classify('tcp', 41212, 7075, [nanoMsg(20, 17, 18)])).not.toBe('Nano (DPI)');
    expect(await classify('tcp', 41213, 7075, [nanoMsg(20, 20, 20)])).not.toBe('Nano (DPI)');
    expect(await classify('tcp', 41214, 7075, [nanoMsg(20, 19, 18, 0x10)])).not.toBe('Nano (DPI)');
    expect(await classify('tcp', 41215, 7075, [nanoMsg().subarray(0, 32)])).not.toBe('Nano (DPI)');
    expect(await classify('udp', 41216, 7075, [nanoMsg()])).not.toBe('Nano (DPI)');
  });

  it('i3D: its two game-server headers in a datagram of 74 bytes or more', async () => {
    expect(await classify('udp', 41300, 7777, [i3dGame()])).toBe('i3D (DPI)');
    expect(await classify('udp', 41301, 7777, [i3dGame(0x00020046, 74)])).toBe('i3D (DPI)');
    expect(await classify('udp', 41302, 30000, [i3dMedia()])).toBe('i3D (DPI)');
    expect(await classify('udp', 41303, 30000, [i3dMedia(0x9067)])).toBe('i3D (DPI)');
    expect(await classify('udp', 41304, 7777, [i3dGame()], undefined, v6)).toBe('i3D (DPI)');
  });

  it('i3D near misses: 73 bytes, another first word or source, TCP', async () => {
    expect(await classify('udp', 41310, 7777, [i3dGame(0x00010046, 73)])).not.toBe('i3D (DPI)');
    expect(await classify('udp', 41311, 7777, [i3dGame(0x00030046)])).not.toBe('i3D (DPI)');
    expect(await classify('udp', 41312, 30000, [i3dMedia(0x9078, 0x0003cfa8)])).not.toBe('i3D (DPI)');
    expect(await classify('udp', 41313, 30000, [i3dMedia(0x8078)])).not.toBe('i3D (DPI)');
    expect(await classify('tcp', 41314, 7777, [i3dGame()])).not.toBe('i3D (DPI)');
  });
});
