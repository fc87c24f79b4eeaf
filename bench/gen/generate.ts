// Deterministic synthetic capture generator: writes a classic pcap (LE, µs, linktype 1)
// with many interleaved TCP/UDP flows carrying real application payloads, plus an optional
// JSONL list of the flows with their exact per-direction frame/byte counts.
//
// Traffic model
//  - Hosts: `hosts` clients; each client is IPv4 (10.0.0.0/8) or IPv6 (fd00:0:0:1::/64) with
//    probability ipv6Share, and sits on VLAN 10..19 with probability vlanShare (so the shares
//    apply to flows in expectation). Servers: max(16, hosts/10) addresses = 2 v4 + 2 v6 DNS
//    resolvers (8.8.8.8, 1.1.1.1, ...), 2 v4 + 2 v6 NTP servers, and public "web" servers split
//    v4/v6 by ipv6Share, each with a hostname from HOSTNAMES (its SNI / Host); DNS answers
//    return the addresses of the servers carrying the queried name.
//  - Flows: app drawn from `mix` (merged over DEFAULT_MIX), client uniform-ish (every host used
//    when flows >= hosts), server popularity skewed; 5-tuples are unique (also ignoring VLAN).
//    Server ports 443 (TLS, QUIC), 80, 53, 22, 123; client ports 1024..65535, except QUIC
//    clients and both ends of *_other flows, which use 49152..65535 minus the ports tshark maps
//    to a dissector (so tshark dissects QUIC as QUIC and leaves *_other payloads as data).
//    Packets per flow: the app's minimum (TCP 4: SYN, SYN-ACK, ACK, first client payload;
//    UDP 2) plus a heavy-tailed (Pareto) share of the remaining budget, so the total is exactly
//    `packets` whenever packets >= sum of minimums.
//  - Per flow: TCP handshake, the app's handshake (TLS ClientHello/ServerHello, HTTP GET/200,
//    SSH banners + KEXINIT + ECDH + NEWKEYS, DNS query/answer, NTP request/reply, QUIC
//    Initial/Initial), bulk packets (TLS application_data records, HTTP keep-alive exchanges,
//    SSH encrypted packets, QUIC 1-RTT short-header packets, opaque bytes for *_other, more
//    DNS/NTP exchanges), then FIN/FIN/ACK when at least 4 bulk packets remain. Sequence and
//    acknowledgement numbers are consistent (tshark reports no TCP analysis warnings).
//  - Time: flow starts uniform over the first 97% of the capture; request/response turns cost
//    the flow's RTT (2..120 ms), bulk gaps are exponential; flows are merged with a heap, so
//    file order == time order and thousands of flows are active at once.
//  - Bulk frame sizes: sizes.max with probability 0.45, else uniform in [sizes.min, sizes.max]
//    (the whole frame, VLAN tag included; raised to the app's minimum payload if needed).
// Determinism: everything derives from `seed` through independent Rng streams (one per flow),
// no Math.random / Date.now; same options + seed => byte-identical pcap and JSONL.

import { closeSync, openSync, writeSync } from 'node:fs';
import { Rng } from './rng.js';
import {
  HeaderTemplate,
  IPPROTO_TCP,
  IPPROTO_UDP,
  PoolChecksum,
  TCP_ACK,
  TCP_FIN,
  TCP_PSH,
  TCP_SYN,
  formatIp,
  parseIp,
  synAckOptions,
  synOptions,
} from './packets.js';
import {
  DNS_TYPE_A,
  DNS_TYPE_AAAA,
  HTTP_PATHS,
  SSH_CLIENT_BANNER,
  SSH_SERVER_BANNERS,
  USER_AGENTS,
  dnsQuery,
  dnsResponse,
  httpRequest,
  httpResponse,
  ntpRequest,
  ntpResponse,
  quicClientInitial,
  quicInitialSecret,
  quicServerInitial,
  sshEcdhInit,
  sshEcdhReplyNewKeys,
  sshKexInit,
  sshNewKeys,
  tlsClientHelloRecord,
  tlsServerHelloRecords,
  writeTlsAppDataHeader,
} from './payloads.js';

export type AppName = 'tls' | 'http' | 'dns' | 'quic' | 'ssh' | 'ntp' | 'tcp_other' | 'udp_other';

export const APPS: readonly AppName[] = ['tls', 'http', 'dns', 'quic', 'ssh', 'ntp', 'tcp_other', 'udp_other'];

export const DEFAULT_MIX: Readonly<Record<AppName, number>> = {
  tls: 0.35,
  http: 0.15,
  dns: 0.2,
  quic: 0.1,
  ssh: 0.05,
  ntp: 0.05,
  tcp_other: 0.05,
  udp_other: 0.05,
};

export interface GenOptions {
  out: string; // pcap path
  seed?: number; // default 1; same options + seed => byte-identical file
  hosts?: number; // distinct client hosts (default 10000); servers: max(16, hosts/10) addresses
  flows?: number; // number of flows (default 200000)
  packets?: number; // total packets, approximately (default 2000000)
  vlanShare?: number; // fraction of flows with an 802.1Q tag (default 0.1), VLAN ids 10..19
  ipv6Share?: number; // fraction of IPv6 flows (default 0.2)
  mix?: Partial<Record<AppName, number>>; // app weights, merged over DEFAULT_MIX (set 0 to disable an app)
  sizes?: { min: number; max: number }; // frame sizes for bulk data packets (default 64..1514)
  flowsOut?: string; // optional JSONL path: the known flow list
  startTime?: number; // epoch seconds of the first packet (default 1700000000)
  durationSec?: number; // capture timespan (default 60)
}

export interface GenResult {
  packets: number;
  bytes: number; // sum of frame lengths (capinfos "Data size"); the file adds 24 + 16/packet
  flows: number;
  hosts: number; // distinct client hosts present in the capture (= min(hosts, flows))
  file: string;
}

/** One line of the flowsOut JSONL file. */
export interface FlowRecord {
  proto: 'tcp' | 'udp';
  vlan: number;
  cli: string;
  cport: number;
  srv: string;
  sport: number;
  app: AppName;
  host: string | null;
  c2s_pkts: number;
  c2s_bytes: number;
  s2c_pkts: number;
  s2c_bytes: number;
}

/** Hostnames used for SNI / Host / DNS queries. */
export const HOSTNAMES: readonly string[] = [
  'www.google.com', 'www.youtube.com', 'www.facebook.com', 'netflix.com', 'www.netflix.com', 'github.com',
  'api.github.com', 'www.amazon.com', 'www.wikipedia.org', 'en.wikipedia.org', 'www.instagram.com', 'twitter.com',
  'x.com', 'www.linkedin.com', 'www.reddit.com', 'www.microsoft.com', 'login.microsoftonline.com',
  'outlook.office365.com', 'www.apple.com', 'www.icloud.com', 'www.cloudflare.com', 'cdn.jsdelivr.net',
  'fonts.googleapis.com', 'www.gstatic.com', 'ajax.googleapis.com', 'www.bing.com', 'duckduckgo.com',
  'www.yahoo.com', 'www.ebay.com', 'www.paypal.com', 'zoom.us', 'slack.com', 'discord.com', 'www.twitch.tv',
  'open.spotify.com', 'www.dropbox.com', 'docs.google.com', 'drive.google.com', 'mail.google.com',
  'web.whatsapp.com', 'www.tiktok.com', 's3.amazonaws.com', 'update.googleapis.com', 'ocsp.digicert.com',
  'registry.npmjs.org', 'pypi.org', 'stackoverflow.com', 'www.nytimes.com', 'www.bbc.co.uk', 'deb.debian.org',
];

// ---- pcap writer -------------------------------------------------------------------------

/** Streaming classic-pcap writer with a large user-space buffer (fs.writeSync in chunks). */
export class PcapWriter {
  readonly buf: Buffer;
  pos = 0;
  packets = 0;
  bytes = 0;
  fileBytes = 0;
  private fd: number;

  /** buf[poolBase, poolBase + pool.length) holds the optional payload pool (never written out) */
  readonly poolBase: number;
  private readonly limit: number;

  /**
   * `pool`: optional byte pool stored behind the write area of the same buffer, so frames can
   * take opaque payload bytes with buf.copyWithin() (no per-packet view allocation).
   */
  constructor(path: string, chunkBytes = 8 << 20, pool?: Uint8Array, snaplen = 65535) {
    this.fd = openSync(path, 'w');
    this.buf = Buffer.allocUnsafe(chunkBytes + (pool ? pool.length : 0));
    this.limit = chunkBytes;
    this.poolBase = chunkBytes;
    if (pool) this.buf.set(pool, chunkBytes);
    const h = this.buf;
    h.writeUInt32LE(0xa1b2c3d4, 0);
    h.writeUInt16LE(2, 4);
    h.writeUInt16LE(4, 6);
    h.writeInt32LE(0, 8); // thiszone
    h.writeUInt32LE(0, 12); // sigfigs
    h.writeUInt32LE(snaplen, 16);
    h.writeUInt32LE(1, 20); // LINKTYPE_ETHERNET
    this.pos = 24;
  }

  /** Reserve room for a frame of up to maxLen bytes; returns the offset to write the frame at. */
  begin(maxLen: number): number {
    if (this.pos + 16 + maxLen > this.limit) this.flush();
    return this.pos + 16;
  }

  /** Finish the record started by begin(): write the record header. */
  commit(tsUs: number, frameLen: number): void {
    const b = this.buf;
    const p = this.pos;
    const sec = Math.floor(tsUs / 1e6);
    b.writeUInt32LE(sec >>> 0, p);
    b.writeUInt32LE(tsUs - sec * 1e6, p + 4);
    b.writeUInt32LE(frameLen, p + 8);
    b.writeUInt32LE(frameLen, p + 12);
    this.pos = p + 16 + frameLen;
    this.packets++;
    this.bytes += frameLen;
  }

  flush(): void {
    let off = 0;
    while (off < this.pos) off += writeSync(this.fd, this.buf, off, this.pos - off);
    this.fileBytes += this.pos;
    this.pos = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

// ---- address plan ------------------------------------------------------------------------

const APP_TCP: readonly boolean[] = [true, true, false, false, true, false, true, false];
const A_TLS = 0, A_HTTP = 1, A_DNS = 2, A_QUIC = 3, A_SSH = 4, A_NTP = 5, A_TCPO = 6, A_UDPO = 7;

/** Minimum packets per flow (TCP: SYN, SYN-ACK, ACK, first client data; UDP: request + reply). */
const APP_MIN_PKTS = [4, 4, 2, 2, 4, 2, 4, 2];
/** Relative share of the "bulk" packet budget an app's flows get (DNS/NTP flows stay small). */
const APP_BULK_FACTOR = [1, 0.8, 0.02, 1, 0.6, 0.02, 1, 0.7];

/**
 * Dynamic port range (IANA 49152-65535) used for QUIC client ports and both ends of *_other
 * flows. Ports that tshark 4.x maps to a dissector (`tshark -G decodes`) are skipped: for UDP
 * tshark has no port registration for QUIC (heuristic only), so a registered client port would
 * win over QUIC; *_other payloads are opaque and must stay undissected.
 */
/** MAC length of the negotiated SSH MAC (hmac-sha2-256-etm@openssh.com, see sshKexInit). */
const SSH_MAC_LEN = 32;

const DYN_PORT_LO = 49152;
const DYN_PORT_HI = 65535;
const DYN_PORT_AVOID = new Set([
  49999, 54328, 56000, 56001, 56500, 56501, 57000, 57001, 57032, 57033, 57500, 57501, 57532, 57533, 59000, 59001,
  59032, 59033, 59500, 59501, 59532, 59533, 60001,
]);

function dynPort(r: Rng): number {
  for (;;) {
    const p = r.range(DYN_PORT_LO, DYN_PORT_HI);
    if (!DYN_PORT_AVOID.has(p)) return p;
  }
}

const V4_PREFIXES: readonly [number, number][] = [
  [93, 184], [142, 250], [151, 101], [104, 18], [172, 217], [157, 240], [140, 82], [13, 107], [23, 185], [185, 199],
  [52, 84], [31, 13],
];
const V6_PREFIXES: readonly [number, number][] = [
  [0x2606, 0x2800], [0x2a00, 0x1450], [0x2a03, 0x2880], [0x2606, 0x4700], [0x2620, 0x01ec], [0x2a04, 0x4e42],
  [0x2600, 0x9000], [0x2a01, 0x0111],
];

interface Server {
  v6: boolean;
  addr: Uint8Array;
  str: string;
  kind: 0 | 1 | 2; // general / DNS resolver / NTP
  name: string | null;
  ttl: number;
}

function clientAddr(h: number, v6: boolean): Uint8Array {
  if (!v6) {
    const c = (h % 254) + 1;
    const a = Math.floor(h / 254);
    return new Uint8Array([10, Math.floor(a / 256) % 256, a % 256, c]);
  }
  const id = h + 1;
  const b = new Uint8Array(16);
  b[0] = 0xfd;
  b[7] = 1; // fd00:0:0:1::/64
  b[12] = (id >>> 24) & 0xff;
  b[13] = (id >>> 16) & 0xff;
  b[14] = (id >>> 8) & 0xff;
  b[15] = id & 0xff;
  return b;
}

function clientMac(h: number): Uint8Array {
  return new Uint8Array([0x02, 0x1a, (h >>> 24) & 0xff, (h >>> 16) & 0xff, (h >>> 8) & 0xff, h & 0xff]);
}

function routerMac(vlan: number): Uint8Array {
  return new Uint8Array([0x00, 0x00, 0x0c, 0x9f, 0xf0, vlan & 0xff]);
}

function generalServerAddr(j: number, v6: boolean): Uint8Array {
  if (!v6) {
    const [a, b] = V4_PREFIXES[j % V4_PREFIXES.length]!;
    const q = Math.floor(j / V4_PREFIXES.length);
    return new Uint8Array([a, b, Math.floor(q / 250) % 256, (q % 250) + 2]);
  }
  const [a, b] = V6_PREFIXES[j % V6_PREFIXES.length]!;
  const q = Math.floor(j / V6_PREFIXES.length) + 1;
  const out = new Uint8Array(16);
  out[0] = a >> 8;
  out[1] = a & 0xff;
  out[2] = b >> 8;
  out[3] = b & 0xff;
  out[12] = (q >>> 24) & 0xff;
  out[13] = (q >>> 16) & 0xff;
  out[14] = (q >>> 8) & 0xff;
  out[15] = q & 0xff;
  return out;
}

const SPECIAL_SERVERS: readonly { ip: string; kind: 1 | 2 }[] = [
  { ip: '8.8.8.8', kind: 1 },
  { ip: '1.1.1.1', kind: 1 },
  { ip: '2001:4860:4860::8888', kind: 1 },
  { ip: '2606:4700:4700::1111', kind: 1 },
  { ip: '216.239.35.0', kind: 2 },
  { ip: '162.159.200.1', kind: 2 },
  { ip: '2001:4860:4806::', kind: 2 },
  { ip: '2606:4700:f1::1', kind: 2 },
];

/**
 * *_other payloads start with a fixed 2-byte tag (udp 0xa5 0x5a, tcp 0x5a 0xa5) followed by random
 * bytes: fully random leading bytes occasionally satisfy one of tshark's heuristics (UDP: RTCP,
 * CLTP/R-GOOSE; TCP: Thrift, ...) and get dissected as a malformed packet of that protocol.
 */
function otherMagic(b: Uint8Array, p: number, udp: boolean): void {
  b[p] = udp ? 0xa5 : 0x5a;
  b[p + 1] = udp ? 0x5a : 0xa5;
}

// ---- per-flow state machine --------------------------------------------------------------

const DIR_C2S = 0;
const DIR_S2C = 1;

const K_SYN = 0, K_SYNACK = 1, K_ACK = 2, K_SCRIPT = 3, K_DATA = 4, K_FIN = 5, K_HTTP_REQ = 6, K_HTTP_RESP = 7,
  K_DNS_Q = 8, K_DNS_R = 9, K_NTP_Q = 10, K_NTP_R = 11;

/** Script (application handshake) directions per app, after the TCP handshake. */
const SCRIPTS: readonly (readonly number[])[] = [
  [DIR_C2S, DIR_S2C], // tls: ClientHello, ServerHello
  [DIR_C2S, DIR_S2C], // http: GET, 200 OK
  [DIR_C2S, DIR_S2C], // dns: query, answer
  [DIR_C2S, DIR_S2C], // quic: client Initial, server Initial
  [DIR_C2S, DIR_S2C, DIR_C2S, DIR_S2C, DIR_C2S, DIR_S2C, DIR_C2S], // ssh: banners, KEXINITs, ECDH, NEWKEYS
  [DIR_C2S, DIR_S2C], // ntp
  [DIR_C2S], // tcp_other
  [DIR_C2S, DIR_S2C], // udp_other
];

interface Ctx {
  pool: Buffer; // random bytes for opaque payloads
  poolSum: PoolChecksum;
  sizeMin: number;
  sizeMax: number;
  endUs: number; // capture end (offset µs)
  startEpochUs: number;
  nameAddrs4: Map<string, Uint8Array[]>;
  nameAddrs6: Map<string, Uint8Array[]>;
  c2sPkts: Uint32Array;
  c2sBytes: Float64Array;
  s2cPkts: Uint32Array;
  s2cBytes: Float64Array;
}

class Flow {
  t: number; // time (µs offset) of the next packet
  done = false;
  private k = 0; // packets emitted
  // per-direction counters (kept in the object while the flow is active: one cache line)
  private c2sPkts = 0;
  private c2sBytes = 0;
  private s2cPkts = 0;
  private s2cBytes = 0;
  private readonly n: number;
  private readonly tcp: boolean;
  private readonly L: number; // script packets
  private readonly B: number; // bulk packets
  private readonly r: Rng;
  private readonly hc: HeaderTemplate; // client -> server headers
  private readonly hs: HeaderTemplate; // server -> client headers
  private ipIdC: number;
  private ipIdS: number;
  private cseq: number;
  private sseq: number;
  private readonly rtt: number;
  private readonly gap: number;
  private dir = DIR_C2S;
  private kind = K_SYN;
  private scriptIdx = 0;
  private prevDir = -1;
  /** per direction: the peer sent data/SYN/FIN since this side's last segment */
  private readonly ackPending = [false, false];
  // app state
  private tlsVersion: 0x0303 | 0x0304 = 0x0304;
  private sessionId: Uint8Array = new Uint8Array(0);
  private quicDcid: Uint8Array = new Uint8Array(0);
  private quicScid: Uint8Array = new Uint8Array(0);
  private quicServerCid: Uint8Array = new Uint8Array(0);
  private quicInitial: Buffer | null = null;
  private dnsId = 0;
  private dnsType = DNS_TYPE_A;
  private ntpTx: Uint8Array = new Uint8Array(8);
  private httpPath = '/';
  private ua = '';
  private sshBanner = '';
  private sshPad: Uint8Array = new Uint8Array(16);

  constructor(
    private readonly ctx: Ctx,
    private readonly id: number,
    private readonly app: number,
    seed: number,
    n: number,
    startUs: number,
    private readonly host: string | null,
    cli: Uint8Array,
    srv: Uint8Array,
    cliMac: Uint8Array,
    vlan: number,
    cport: number,
    sport: number,
    srvTtl: number,
  ) {
    const r = (this.r = new Rng(seed, 0x40000000 + id));
    this.n = n;
    this.tcp = APP_TCP[app]!;
    const script = SCRIPTS[app]!;
    const v6 = cli.length === 16;
    const proto = this.tcp ? IPPROTO_TCP : IPPROTO_UDP;
    const gw = routerMac(vlan);
    const flowLabel = r.u32() & 0xfffff;
    this.ipIdC = r.u32() & 0xffff;
    this.ipIdS = r.u32() & 0xffff;
    this.hc = new HeaderTemplate({
      srcMac: cliMac, dstMac: gw, vlan, v6, src: cli, dst: srv, ttl: 64, ipId: 0, flowLabel,
      proto, sport: cport, dport: sport, seq: 0, ack: 0, flags: 0, window: 0, tcpOptions: null,
    });
    this.hs = new HeaderTemplate({
      srcMac: gw, dstMac: cliMac, vlan, v6, src: srv, dst: cli, ttl: srvTtl, ipId: 0,
      flowLabel: r.u32() & 0xfffff, proto, sport, dport: cport, seq: 0, ack: 0, flags: 0, window: 0, tcpOptions: null,
    });
    this.cseq = r.u32();
    this.sseq = r.u32();
    if (this.tcp) {
      const rest = Math.max(0, n - 3);
      this.L = Math.min(script.length, rest);
      this.B = rest - this.L; // includes the 3 teardown packets when >= 4 remain
    } else {
      this.L = Math.min(script.length, n);
      this.B = n - this.L;
    }
    // timing budget: request/response turns cost one RTT each, the rest are bulk gaps; keep the
    // whole flow inside the capture window (timestamps are clamped to its end as a last resort)
    let rttTurns = this.tcp ? 2 : 0; // SYN-ACK, server FIN
    for (let i = 0; i < this.L; i++) if (script[i] === DIR_S2C) rttTurns++;
    if (app === A_HTTP) rttTurns += Math.ceil(this.B / 3);
    else if (app === A_DNS || app === A_NTP) rttTurns += Math.ceil(this.B / 2);
    const window = Math.max(0, ctx.endUs - startUs);
    const rtt0 = r.logUniform(2000, 120000);
    this.rtt = Math.max(1, Math.round(Math.min(rtt0, (window * 0.4) / Math.max(1, rttTurns))));
    const room = Math.max(0, window * 0.85 - this.rtt * rttTurns - n * 250);
    const dur = Math.min(room, r.logUniform(50_000, 30_000_000));
    this.gap = this.B > 0 ? Math.max(1, dur / this.B) : 0;
    this.t = startUs;
    if (app === A_TLS) {
      this.tlsVersion = r.chance(0.75) ? 0x0304 : 0x0303;
      this.sessionId = r.bytes(32);
    } else if (app === A_QUIC) {
      this.quicDcid = r.bytes(8);
      this.quicScid = r.bytes(8);
      this.quicServerCid = r.bytes(8);
    } else if (app === A_DNS) {
      this.dnsType = v6 && r.chance(0.7) ? DNS_TYPE_AAAA : DNS_TYPE_A;
    } else if (app === A_HTTP) {
      this.httpPath = r.pick(HTTP_PATHS);
      this.ua = r.pick(USER_AGENTS);
    } else if (app === A_SSH) {
      this.sshBanner = r.pick(SSH_SERVER_BANNERS);
      this.sshPad = r.bytes(16);
    }
    this.planKind();
  }

  /** Decide what the packet number `k` is (direction + kind). */
  private planKind(): void {
    const k = this.k;
    const app = this.app;
    const r = this.r;
    if (this.tcp) {
      if (k === 0) return this.set(DIR_C2S, K_SYN);
      if (k === 1) return this.set(DIR_S2C, K_SYNACK);
      if (k === 2) return this.set(DIR_C2S, K_ACK);
      const s = k - 3;
      if (s < this.L) {
        this.scriptIdx = s;
        return this.set(SCRIPTS[app]![s]!, K_SCRIPT);
      }
      const j = s - this.L;
      const teardown = this.B >= 4 ? 3 : 0;
      if (j >= this.B - teardown) {
        const f = j - (this.B - teardown);
        if (f === 0) return this.set(DIR_C2S, K_FIN);
        if (f === 1) return this.set(DIR_S2C, K_FIN);
        return this.set(DIR_C2S, K_ACK);
      }
      if (app === A_HTTP) {
        const m = j % 3;
        return m === 0 ? this.set(DIR_C2S, K_ACK) : m === 1 ? this.set(DIR_C2S, K_HTTP_REQ) : this.set(DIR_S2C, K_HTTP_RESP);
      }
      const u = r.float();
      if (app === A_TLS) {
        if (u < 0.55) return this.set(DIR_S2C, K_DATA);
        if (u < 0.7) return this.set(DIR_C2S, K_DATA);
        if (u < 0.95) return this.set(DIR_C2S, K_ACK);
        return this.set(DIR_S2C, K_ACK);
      }
      if (app === A_SSH) {
        if (u < 0.4) return this.set(DIR_C2S, K_DATA);
        if (u < 0.85) return this.set(DIR_S2C, K_DATA);
        if (u < 0.95) return this.set(DIR_C2S, K_ACK);
        return this.set(DIR_S2C, K_ACK);
      }
      if (u < 0.4) return this.set(DIR_C2S, K_DATA);
      if (u < 0.8) return this.set(DIR_S2C, K_DATA);
      if (u < 0.9) return this.set(DIR_C2S, K_ACK);
      return this.set(DIR_S2C, K_ACK);
    }
    if (k < this.L) {
      this.scriptIdx = k;
      return this.set(SCRIPTS[app]![k]!, K_SCRIPT);
    }
    const j = k - this.L;
    if (app === A_DNS) return j % 2 === 0 ? this.set(DIR_C2S, K_DNS_Q) : this.set(DIR_S2C, K_DNS_R);
    if (app === A_NTP) return j % 2 === 0 ? this.set(DIR_C2S, K_NTP_Q) : this.set(DIR_S2C, K_NTP_R);
    if (app === A_QUIC) return this.set(r.chance(0.3) ? DIR_C2S : DIR_S2C, K_DATA);
    return this.set(r.chance(0.5) ? DIR_C2S : DIR_S2C, K_DATA);
  }

  private set(dir: number, kind: number): void {
    // a pure ACK only when the peer sent something not yet acknowledged (else it is a dup ACK)
    if (kind === K_ACK && !this.ackPending[dir]) kind = this.app === A_HTTP ? K_HTTP_REQ : K_DATA;
    this.dir = dir;
    this.kind = kind;
  }

  /** Advance the clock to the next packet's time. */
  private planTime(): void {
    const r = this.r;
    let g: number;
    const inHandshake = this.tcp ? this.k < 3 + this.L : this.k < this.L;
    if (inHandshake || this.kind === K_FIN || this.kind === K_HTTP_RESP || this.kind === K_DNS_R || this.kind === K_NTP_R) {
      if (this.dir === DIR_S2C && this.prevDir === DIR_C2S) g = this.rtt * (0.9 + 0.2 * r.float()) + r.int(1500);
      else g = 20 + r.int(400);
    } else {
      g = r.exp(this.gap);
    }
    // never run past the capture end: a gap takes at most 1/(remaining+1) of the time left
    const left = this.ctx.endUs - this.t;
    const remaining = this.n - this.k; // packets still to send, the next one included
    g = Math.min(g, left / (remaining + 1));
    this.t = Math.min(this.t + Math.round(g), this.ctx.endUs);
  }

  /** MSS advertised in SYN / SYN-ACK: what the largest bulk frame can carry (1460 / 1440 by default). */
  private mss(): number {
    return Math.max(536, Math.min(65495, this.ctx.sizeMax - 14 - (this.hc.v6 ? 40 : 20) - 20));
  }

  private frameTarget(): number {
    const c = this.ctx;
    return this.r.chance(0.45) ? c.sizeMax : this.r.range(c.sizeMin, c.sizeMax);
  }

  /** Emit the planned packet, then plan the next one (or mark the flow done). */
  emit(w: PcapWriter): void {
    const tsUs = this.ctx.startEpochUs + this.t;
    const dir = this.dir;
    switch (this.kind) {
      case K_SYN:
        this.send(w, tsUs, dir, TCP_SYN, null, synOptions(this.mss(), 7), 64240);
        break;
      case K_SYNACK:
        this.send(w, tsUs, dir, TCP_SYN | TCP_ACK, null, synAckOptions(this.mss(), 7), 65160);
        break;
      case K_ACK:
        this.send(w, tsUs, dir, TCP_ACK, null);
        break;
      case K_FIN:
        this.send(w, tsUs, dir, TCP_FIN | TCP_ACK, null);
        break;
      case K_SCRIPT:
        this.send(w, tsUs, dir, TCP_PSH | TCP_ACK, this.scriptPayload(tsUs));
        break;
      case K_HTTP_REQ:
        this.httpPath = this.r.pick(HTTP_PATHS);
        this.send(w, tsUs, dir, TCP_PSH | TCP_ACK, httpRequest(this.host!, this.httpPath, this.ua));
        break;
      case K_HTTP_RESP:
        this.send(w, tsUs, dir, TCP_PSH | TCP_ACK, this.httpResp(tsUs));
        break;
      case K_DNS_Q:
        this.dnsType = this.dnsType === DNS_TYPE_A ? DNS_TYPE_AAAA : DNS_TYPE_A;
        this.send(w, tsUs, dir, 0, this.dnsQ());
        break;
      case K_DNS_R:
        this.send(w, tsUs, dir, 0, this.dnsR());
        break;
      case K_NTP_Q:
        this.send(w, tsUs, dir, 0, this.ntpQ(tsUs));
        break;
      case K_NTP_R:
        this.send(w, tsUs, dir, 0, this.ntpR(tsUs));
        break;
      case K_DATA:
        this.sendData(w, tsUs, dir);
        break;
    }
    this.prevDir = dir;
    this.k++;
    if (this.k >= this.n) {
      this.done = true;
      this.flushCounters();
      return;
    }
    this.planKind();
    this.planTime();
  }

  // -- payload builders

  private scriptPayload(tsUs: number): Buffer {
    const r = this.r;
    const i = this.scriptIdx;
    switch (this.app) {
      case A_TLS:
        if (i === 0) {
          return tlsClientHelloRecord({
            sni: this.host!, random: r.bytes(32), sessionId: this.sessionId, keyShare: r.bytes(32),
            alpn: ['h2', 'http/1.1'],
          });
        }
        return tlsServerHelloRecords({
          version: this.tlsVersion, random: r.bytes(32), sessionId: this.sessionId,
          cipher: this.tlsVersion === 0x0304 ? r.pick([0x1301, 0x1302, 0x1303]) : r.pick([0xc02f, 0xc030, 0xcca8]),
          keyShare: r.bytes(32), alpn: r.chance(0.7) ? 'h2' : 'http/1.1',
        });
      case A_HTTP:
        return i === 0 ? httpRequest(this.host!, this.httpPath, this.ua) : this.httpResp(tsUs);
      case A_DNS:
        return i === 0 ? this.dnsQ() : this.dnsR();
      case A_NTP:
        return i === 0 ? this.ntpQ(tsUs) : this.ntpR(tsUs);
      case A_QUIC:
        if (i === 0) {
          this.quicInitial = quicInitialSecret(this.quicDcid);
          return quicClientInitial({
            dcid: this.quicDcid, scid: this.quicScid, sni: this.host!, random: r.bytes(32), keyShare: r.bytes(32),
            initialSecret: this.quicInitial,
          });
        }
        return quicServerInitial({
          originalDcid: this.quicDcid, dcid: this.quicScid, scid: this.quicServerCid, random: r.bytes(32),
          keyShare: r.bytes(32), initialSecret: this.quicInitial ?? undefined,
        });
      case A_SSH:
        switch (i) {
          case 0:
            return Buffer.from(SSH_CLIENT_BANNER, 'latin1');
          case 1:
            return Buffer.from(this.sshBanner, 'latin1');
          case 2:
            return sshKexInit(r.bytes(16), false, this.sshPad);
          case 3:
            return sshKexInit(r.bytes(16), true, this.sshPad);
          case 4:
            return sshEcdhInit(r.bytes(32), this.sshPad);
          case 5:
            return sshEcdhReplyNewKeys(r.bytes(32), r.bytes(32), r.bytes(64), this.sshPad);
          default:
            return sshNewKeys(this.sshPad);
        }
      default: {
        // *_other: opaque bytes
        const len = 16 + r.int(200);
        const o = r.int(this.ctx.pool.length - len);
        const b = Buffer.from(this.ctx.pool.subarray(o, o + len));
        if (this.app === A_UDPO || this.app === A_TCPO) otherMagic(b, 0, this.app === A_UDPO);
        return b;
      }
    }
  }

  private httpResp(tsUs: number): Buffer {
    const total = Math.max(200, this.frameTarget() - this.hs.len());
    return httpResponse({
      path: this.httpPath, host: this.host!, epochSec: Math.floor(tsUs / 1e6), totalLen: total,
      seed: this.r.u32() & 0xffffff, binary: this.ctx.pool,
    });
  }

  private dnsQ(): Buffer {
    this.dnsId = this.r.u32() & 0xffff;
    return dnsQuery(this.dnsId, this.host!, this.dnsType, true);
  }

  private dnsR(): Buffer {
    const name = this.host!;
    const v6 = this.dnsType === DNS_TYPE_AAAA;
    let list = (v6 ? this.ctx.nameAddrs6 : this.ctx.nameAddrs4).get(name);
    if (!list || list.length === 0) {
      // no server of that family carries the name: a stable address derived from the name
      let h = 0;
      for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) >>> 0;
      list = [v6 ? parseIp(`2606:2800:220:1:248:1893:${((h >>> 16) & 0xffff).toString(16)}:${(h & 0xffff).toString(16)}`) : new Uint8Array([93, 184, (h >>> 8) & 0xff, (h & 0xfd) + 1])];
    }
    const count = Math.min(list.length, 1 + ((this.id + this.k) % 4));
    const start = this.k % list.length;
    const addrs: Uint8Array[] = [];
    for (let i = 0; i < count; i++) addrs.push(list[(start + i) % list.length]!);
    return dnsResponse(this.dnsId, name, this.dnsType, addrs, 300);
  }

  private ntpQ(tsUs: number): Buffer {
    const b = ntpRequest(tsUs);
    this.ntpTx = b.subarray(40, 48);
    return b;
  }

  private ntpR(tsUs: number): Buffer {
    return ntpResponse({
      stratum: 1, refId: Buffer.from('GOOG', 'latin1'), refEpochUs: tsUs - 16_000_000 - this.r.int(1_000_000),
      originRaw: this.ntpTx, rxEpochUs: tsUs - 30 - this.r.int(200), txEpochUs: tsUs,
    });
  }

  // -- frame emission

  private account(dir: number, len: number): void {
    if (dir === DIR_C2S) {
      this.c2sPkts++;
      this.c2sBytes += len;
    } else {
      this.s2cPkts++;
      this.s2cBytes += len;
    }
  }

  /** Store the flow's counters in the context tables (once, when the flow is done). */
  private flushCounters(): void {
    const c = this.ctx;
    c.c2sPkts[this.id] = this.c2sPkts;
    c.c2sBytes[this.id] = this.c2sBytes;
    c.s2cPkts[this.id] = this.s2cPkts;
    c.s2cBytes[this.id] = this.s2cBytes;
  }

  /** Write the headers of the next segment in direction `dir`; returns the payload offset. */
  private headers(buf: Uint8Array, off: number, dir: number, flags: number, plen: number, options: Uint8Array | null, window: number): number {
    if (dir === DIR_C2S) {
      this.ipIdC = (this.ipIdC + 1) & 0xffff;
      return this.hc.write(buf, off, plen, this.ipIdC, this.cseq, this.sseq, flags, window, options);
    }
    this.ipIdS = (this.ipIdS + 1) & 0xffff;
    return this.hs.write(buf, off, plen, this.ipIdS, this.sseq, this.cseq, flags, window, options);
  }

  private advance(dir: number, flags: number, plen: number): void {
    if (!this.tcp) return;
    const inc = plen + (flags & (TCP_SYN | TCP_FIN) ? 1 : 0);
    this.ackPending[dir] = false;
    if (inc) this.ackPending[1 - dir] = true;
    if (dir === DIR_C2S) this.cseq = (this.cseq + inc) >>> 0;
    else this.sseq = (this.sseq + inc) >>> 0;
  }

  private send(
    w: PcapWriter,
    tsUs: number,
    dir: number,
    flags: number,
    payload: Uint8Array | null,
    options: Uint8Array | null = null,
    window = dir === DIR_C2S ? 502 : 501,
  ): void {
    const t = dir === DIR_C2S ? this.hc : this.hs;
    const plen = payload ? payload.length : 0;
    const optLen = options ? options.length : 0;
    const len = t.len(optLen) + plen;
    const off = w.begin(len);
    const buf = w.buf;
    const p = this.headers(buf, off, dir, flags, plen, options, window);
    if (payload) buf.set(payload, p);
    t.finish(buf, off, plen, optLen);
    w.commit(tsUs, len);
    this.account(dir, len);
    this.advance(dir, flags, plen);
  }

  /** Bulk data packet with opaque (pool) bytes shaped per app. */
  private sendData(w: PcapWriter, tsUs: number, dir: number): void {
    const flags = TCP_PSH | TCP_ACK;
    const t = dir === DIR_C2S ? this.hc : this.hs;
    const hl = t.len();
    let prefix = 0;
    let minPayload = 8;
    if (this.app === A_TLS) {
      prefix = 5;
      minPayload = 22;
    } else if (this.app === A_QUIC) {
      prefix = 9;
      minPayload = 32;
    } else if (this.app === A_SSH) {
      prefix = 4; // packet_length (plaintext with -etm MACs)
      minPayload = 4 + 16 + SSH_MAC_LEN;
    } else {
      prefix = 2; // *_other tag
    }
    let plen = Math.min(65000, Math.max(minPayload, this.frameTarget() - hl));
    if (this.app === A_SSH) {
      // one SSH binary packet per segment: aes128-ctr + hmac-sha2-256-etm framing,
      // uint32 length || ciphertext (multiple of 16) || 32-byte MAC
      plen = 4 + Math.max(16, (plen - 4 - SSH_MAC_LEN) & ~15) + SSH_MAC_LEN;
    }
    const off = w.begin(hl + plen);
    const buf = w.buf;
    const p = this.headers(buf, off, dir, flags, plen, null, dir === DIR_C2S ? 502 : 501);
    if (this.app === A_TLS) {
      writeTlsAppDataHeader(buf, p, plen - 5);
    } else if (this.app === A_QUIC) {
      buf[p] = 0x40 | (this.r.u32() & 0x1f); // short header, fixed bit (low bits are protected)
      buf.set(dir === DIR_C2S ? this.quicServerCid : this.quicScid, p + 1);
    } else if (this.app === A_SSH) {
      const len = plen - 4 - SSH_MAC_LEN;
      buf[p] = len >>> 24;
      buf[p + 1] = (len >>> 16) & 0xff;
      buf[p + 2] = (len >>> 8) & 0xff;
      buf[p + 3] = len & 0xff;
    } else if (prefix === 2) {
      otherMagic(buf, p, this.app === A_UDPO);
    }
    const n = plen - prefix;
    const po = this.r.int(this.ctx.pool.length - n);
    buf.copyWithin(p + prefix, w.poolBase + po, w.poolBase + po + n);
    // the L4 header length is even, so the pool bytes start at an odd segment offset iff prefix is odd
    t.finish(buf, off, plen, 0, prefix, this.ctx.poolSum.sum(po, n, (prefix & 1) === 1));
    w.commit(tsUs, hl + plen);
    this.account(dir, hl + plen);
    this.advance(dir, flags, plen);
  }
}

// ---- binary min-heap of (time, flow id) ------------------------------------------------

class FlowHeap {
  size = 0;
  private t: Float64Array;
  private id: Int32Array;

  constructor(cap: number) {
    this.t = new Float64Array(Math.max(1, cap));
    this.id = new Int32Array(Math.max(1, cap));
  }

  private less(i: number, j: number): boolean {
    const a = this.t[i]!, b = this.t[j]!;
    return a < b || (a === b && this.id[i]! < this.id[j]!);
  }

  private swap(i: number, j: number): void {
    const t = this.t[i]!;
    this.t[i] = this.t[j]!;
    this.t[j] = t;
    const d = this.id[i]!;
    this.id[i] = this.id[j]!;
    this.id[j] = d;
  }

  topTime(): number {
    return this.t[0]!;
  }

  topId(): number {
    return this.id[0]!;
  }

  push(time: number, id: number): void {
    let i = this.size++;
    this.t[i] = time;
    this.id[i] = id;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Replace the top's time (key only increases) and restore the heap. */
  updateTop(time: number): void {
    this.t[0] = time;
    this.down(0);
  }

  pop(): void {
    this.size--;
    if (this.size > 0) {
      this.t[0] = this.t[this.size]!;
      this.id[0] = this.id[this.size]!;
      this.down(0);
    }
  }

  private down(i: number): void {
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      if (l + 1 < n && this.less(l + 1, l)) m = l + 1;
      if (!this.less(m, i)) break;
      this.swap(i, m);
      i = m;
    }
  }
}

// ---- generator ---------------------------------------------------------------------------

function num(v: number | undefined, dflt: number, name: string, min: number, max = Infinity): number {
  const x = v ?? dflt;
  if (typeof x !== 'number' || !Number.isFinite(x) || x < min || x > max) {
    throw new RangeError(`generate: ${name} must be a number in [${min}, ${max}], got ${String(v)}`);
  }
  return x;
}

export function generate(opts: GenOptions): GenResult {
  const seed = Math.floor(num(opts.seed, 1, 'seed', 0, Number.MAX_SAFE_INTEGER));
  const H = Math.floor(num(opts.hosts, 10000, 'hosts', 1, 16_000_000));
  const F = Math.floor(num(opts.flows, 200000, 'flows', 1, 50_000_000));
  const P = Math.floor(num(opts.packets, 2000000, 'packets', 1));
  const vlanShare = num(opts.vlanShare, 0.1, 'vlanShare', 0, 1);
  const ipv6Share = num(opts.ipv6Share, 0.2, 'ipv6Share', 0, 1);
  const sizeMin = Math.floor(num(opts.sizes?.min, 64, 'sizes.min', 42, 65000));
  const sizeMax = Math.floor(num(opts.sizes?.max, 1514, 'sizes.max', sizeMin, 65000));
  const startTime = num(opts.startTime, 1700000000, 'startTime', 0, 4294967295);
  const durationSec = num(opts.durationSec, 60, 'durationSec', 0.001, 4294967295);
  const mixIn = { ...DEFAULT_MIX, ...(opts.mix ?? {}) };
  const mixW = APPS.map((a) => num(mixIn[a], 0, `mix.${a}`, 0));
  const mixSum = mixW.reduce((a, b) => a + b, 0);
  if (!(mixSum > 0)) throw new RangeError('generate: mix weights sum to 0');
  const mixCum: number[] = [];
  let acc = 0;
  for (const wgt of mixW) mixCum.push((acc += wgt / mixSum));

  const endUs = Math.round(durationSec * 1e6);
  const startEpochUs = Math.round(startTime * 1e6);

  // -- hosts: address family and VLAN are properties of the host
  const hr = new Rng(seed, 1);
  const hostV6 = new Uint8Array(H);
  const hostVlan = new Uint8Array(H);
  for (let h = 0; h < H; h++) {
    hostV6[h] = hr.float() < ipv6Share ? 1 : 0;
    hostVlan[h] = hr.float() < vlanShare ? 10 + hr.int(10) : 0;
  }

  // -- servers: 8 well-known resolver/NTP addresses + general servers, S addresses in total
  const sr = new Rng(seed, 2);
  const S = Math.max(16, Math.floor(H / 10));
  const servers: Server[] = [];
  for (const sp of SPECIAL_SERVERS) {
    const addr = parseIp(sp.ip);
    servers.push({ v6: addr.length === 16, addr, str: formatIp(addr), kind: sp.kind, name: null, ttl: 50 + sr.int(10) });
  }
  const G = S - SPECIAL_SERVERS.length;
  let G6 = Math.round(G * ipv6Share);
  if (ipv6Share > 0 && G6 < 1) G6 = 1;
  if (ipv6Share < 1 && G6 > G - 1) G6 = G - 1;
  const G4 = G - G6;
  const gen4: number[] = [];
  const gen6: number[] = [];
  const nameAddrs4 = new Map<string, Uint8Array[]>();
  const nameAddrs6 = new Map<string, Uint8Array[]>();
  for (let j = 0; j < G; j++) {
    const v6 = j >= G4;
    const addr = generalServerAddr(v6 ? j - G4 : j, v6);
    const name = sr.pick(HOSTNAMES);
    const m = v6 ? nameAddrs6 : nameAddrs4;
    const l = m.get(name) ?? [];
    if (l.length < 8) l.push(addr);
    m.set(name, l);
    (v6 ? gen6 : gen4).push(servers.length);
    servers.push({ v6, addr, str: formatIp(addr), kind: 0, name, ttl: 44 + sr.int(14) });
  }
  const dns4 = [0, 1], dns6 = [2, 3], ntp4 = [4, 5], ntp6 = [6, 7];

  // -- flows
  const fr = new Rng(seed, 3);
  const cliOf = new Uint32Array(F);
  for (let i = 0; i < F; i++) cliOf[i] = i < H ? i : Math.floor(H * Math.pow(fr.float(), 1.6));
  for (let i = F - 1; i > 0; i--) {
    const j = fr.int(i + 1);
    const t = cliOf[i]!;
    cliOf[i] = cliOf[j]!;
    cliOf[j] = t;
  }
  const appOf = new Uint8Array(F);
  const srvOf = new Uint32Array(F);
  const cportOf = new Uint16Array(F);
  const sportOf = new Uint16Array(F);
  const hostOf: (string | null)[] = new Array<string | null>(F);
  // (client, server, proto, port) uniqueness; numeric keys while they fit in 2^53
  const numericKeys = H * S * 2 * 65536 < Number.MAX_SAFE_INTEGER;
  const usedNum = new Set<number>();
  const usedStr = new Set<string>();
  for (let i = 0; i < F; i++) {
    const u = fr.float();
    let app = 0;
    while (app < APPS.length - 1 && u >= mixCum[app]!) app++;
    while (mixW[app] === 0) app = (app + 1) % APPS.length; // float edge
    appOf[i] = app;
    const cli = cliOf[i]!;
    const v6 = hostV6[cli] === 1;
    let srv: number;
    if (app === A_DNS) srv = fr.pick(v6 ? dns6 : dns4);
    else if (app === A_NTP) srv = fr.pick(v6 ? ntp6 : ntp4);
    else {
      const list = v6 ? gen6 : gen4;
      srv = list[Math.floor(list.length * Math.pow(fr.float(), 2))]!;
    }
    srvOf[i] = srv;
    const tcp = APP_TCP[app]!;
    let sport: number;
    switch (app) {
      case A_TLS: case A_QUIC: sport = 443; break;
      case A_HTTP: sport = 80; break;
      case A_DNS: sport = 53; break;
      case A_SSH: sport = 22; break;
      case A_NTP: sport = 123; break;
      default: sport = dynPort(fr);
    }
    sportOf[i] = sport;
    const dyn = app === A_TCPO || app === A_UDPO || app === A_QUIC;
    const lo = dyn ? DYN_PORT_LO : 1024;
    const base = ((cli * S + srv) * 2 + (tcp ? 1 : 0)) * 65536;
    const skey = `${cli}/${srv}/${tcp ? 't' : 'u'}/`;
    const taken = (p: number): boolean => (numericKeys ? usedNum.has(base + p) : usedStr.has(skey + p));
    let cport = -1;
    for (let tries = 0; tries < 64; tries++) {
      const p = dyn ? dynPort(fr) : fr.range(1024, 65535);
      if (!taken(p)) {
        cport = p;
        break;
      }
    }
    if (cport < 0) {
      for (let p = lo; p <= 65535; p++) {
        if (!taken(p) && !(dyn && DYN_PORT_AVOID.has(p))) {
          cport = p;
          break;
        }
      }
    }
    if (cport < 0) throw new Error(`generate: out of client ports for host ${cli} -> server ${srv}; use more hosts`);
    if (numericKeys) usedNum.add(base + cport);
    else usedStr.add(skey + cport);
    cportOf[i] = cport;
    if (app === A_TLS || app === A_HTTP || app === A_QUIC) hostOf[i] = servers[srv]!.name;
    else if (app === A_DNS) hostOf[i] = fr.pick(HOSTNAMES);
    else hostOf[i] = null;
  }
  usedNum.clear();
  usedStr.clear();

  // -- packets per flow: minimum + heavy-tailed share of the remaining budget
  const pr = new Rng(seed, 4);
  const npk = new Uint32Array(F);
  const weight = new Float64Array(F);
  let minSum = 0;
  let wSum = 0;
  for (let i = 0; i < F; i++) {
    const app = appOf[i]!;
    npk[i] = APP_MIN_PKTS[app]!;
    minSum += npk[i]!;
    const pareto = Math.min(500, Math.pow(1 - pr.float(), -1 / 1.3));
    weight[i] = APP_BULK_FACTOR[app]! * pareto;
    wSum += weight[i]!;
  }
  const extra = P - minSum;
  if (extra > 0 && wSum > 0) {
    let given = 0;
    for (let i = 0; i < F; i++) {
      const e = Math.floor((extra * weight[i]!) / wSum);
      npk[i]! += e;
      given += e;
    }
    for (let rem = extra - given; rem > 0; rem--) npk[pr.int(F)]!++;
  }

  // -- start times: sorted uniform over the first 97% of the capture
  const tr = new Rng(seed, 5);
  const startUs = new Float64Array(F);
  for (let i = 0; i < F; i++) startUs[i] = Math.floor(tr.float() * endUs * 0.97);
  startUs.sort();
  const first = startUs[0]!; // the first packet is at startTime exactly
  for (let i = 0; i < F; i++) startUs[i] = startUs[i]! - first;

  // -- opaque payload pool
  const pool = Buffer.alloc(1 << 20);
  new Rng(seed, 6).fill(pool);

  const ctx: Ctx = {
    pool, poolSum: new PoolChecksum(pool), sizeMin, sizeMax, endUs, startEpochUs, nameAddrs4, nameAddrs6,
    c2sPkts: new Uint32Array(F), c2sBytes: new Float64Array(F), s2cPkts: new Uint32Array(F), s2cBytes: new Float64Array(F),
  };

  const hostMacs = new Map<number, Uint8Array>();
  const w = new PcapWriter(opts.out, 8 << 20, pool);
  const heap = new FlowHeap(F);
  const active: (Flow | undefined)[] = new Array<Flow | undefined>(F);
  let next = 0;
  try {
    for (;;) {
      if (next < F && (heap.size === 0 || startUs[next]! <= heap.topTime())) {
        const i = next++;
        const cli = cliOf[i]!;
        const srv = servers[srvOf[i]!]!;
        let mac = hostMacs.get(cli);
        if (!mac) hostMacs.set(cli, (mac = clientMac(cli)));
        const f = new Flow(
          ctx, i, appOf[i]!, seed, npk[i]!, startUs[i]!, hostOf[i]!, clientAddr(cli, hostV6[cli] === 1), srv.addr, mac,
          hostVlan[cli]!, cportOf[i]!, sportOf[i]!, srv.ttl,
        );
        active[i] = f;
        heap.push(f.t, i);
        continue;
      }
      if (heap.size === 0) break;
      const id = heap.topId();
      const f = active[id]!;
      f.emit(w);
      if (f.done) {
        heap.pop();
        active[id] = undefined;
      } else {
        heap.updateTop(f.t);
      }
    }
  } finally {
    w.close();
  }

  // -- flow list
  if (opts.flowsOut) {
    const fd = openSync(opts.flowsOut, 'w');
    try {
      let chunk = '';
      for (let i = 0; i < F; i++) {
        const cli = cliOf[i]!;
        const rec: FlowRecord = {
          proto: APP_TCP[appOf[i]!] ? 'tcp' : 'udp',
          vlan: hostVlan[cli]!,
          cli: formatIp(clientAddr(cli, hostV6[cli] === 1)),
          cport: cportOf[i]!,
          srv: servers[srvOf[i]!]!.str,
          sport: sportOf[i]!,
          app: APPS[appOf[i]!]!,
          host: hostOf[i]!,
          c2s_pkts: ctx.c2sPkts[i]!,
          c2s_bytes: ctx.c2sBytes[i]!,
          s2c_pkts: ctx.s2cPkts[i]!,
          s2c_bytes: ctx.s2cBytes[i]!,
        };
        chunk += JSON.stringify(rec) + '\n';
        if (chunk.length > 1 << 20) {
          writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk) writeSync(fd, chunk);
    } finally {
      closeSync(fd);
    }
  }

  const seen = new Uint8Array(H);
  let hostsUsed = 0;
  for (let i = 0; i < F; i++) {
    if (!seen[cliOf[i]!]) {
      seen[cliOf[i]!] = 1;
      hostsUsed++;
    }
  }
  return { packets: w.packets, bytes: w.bytes, flows: F, hosts: hostsUsed, file: opts.out };
}
