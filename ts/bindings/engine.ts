// ⑦ Engine: one monitored interface or capture playlist. Options are
// defaulted and validated here; the addon only checks types.
import { availableParallelism } from 'node:os';

import { z } from 'zod';

import { HOST_CHECK_NAMES, type HostCheckHits, type HostCheckName } from '../services/alerts/types.js';
import { FlowgateError } from './errors.js';
import { ipText } from './ip-text.js';
import {
  addon,
  type EgressPolicies,
  type EgressStats,
  type AddonInfo,
  type EngineStats,
  type FlowRecord,
  type HostDetail,
  type HostRecord,
  type HostScoreRow,
  type L7Stats,
  type NativeEngine,
  type NativeEngineOptions,
  type NativeState,
  type NetworkCheckHits,
  type BcastTooLarge,
  type Page,
  type Cursor,
  type NativeHostQuery,
  type NativeFlowQuery,
  type TrafficBy,
  type HostPoolMember,
  type UserRulesSpec,
  type BehaviourPage,
  type BehaviourQuery,
  type NoTxSide,
  type RecorderStats,
  type NativeExtraction,
  type NativeExtractionOptions,
  type NativeVlanBridge,
  type NativeRepeater,
} from './native.js';

export type {
  EgressAction,
  EgressConfig,
  EgressOutput,
  EgressPolicies,
  EgressStats,
  EgressTargetPolicy,
  EgressTargetStats,
} from './native.js';
export type { RecorderStats, NativeExtraction, NativeExtractionOptions, NativeVlanBridge, NativeRepeater } from './native.js';

/**
 * Opens a PCAP extraction over a recording directory or capture files; the
 * filter is compiled now: FlowgateError E_BPF with libpcap's message when
 * it does not compile, E_FILE_OPEN when a capture file cannot be read.
 */
export function openExtraction(o: NativeExtractionOptions): NativeExtraction {
  return new addon.NativeExtraction(o);
}

/** Starts a repeater: UDP to `group` (IPv4 as a number; 0 any multicast) and `port` (0 any) between the interfaces (FlowgateError E_REPEATER when it cannot). */
export function openRepeater(o: { group: number; port: number; trusted: string[]; restricted: string[] }): NativeRepeater {
  return new addon.NativeRepeater(o);
}

/** Opens the user-space VLAN bridge of a parent interface (FlowgateError E_VLAN when it cannot). */
export function openVlanBridge(parent: string): NativeVlanBridge {
  return new addon.NativeVlanBridge(parent);
}

export type { BcastTooLarge, BehaviourPage, BehaviourRow, NetworkCheckHits, TrafficBy, HostScoreRow, ScoreBreakdown, HostPoolMember, UserRulesSpec } from './native.js';

/** Engine.setRiskScores: by nDPI risk id (64 entries each). */
export interface RiskScoreTable {
  cli: ArrayLike<number>;
  srv: ArrayLike<number>;
  /** ntopng's ScoreCategory: 0 network, 1 security */
  category: ArrayLike<number>;
  /** AlertLevel of the alert's score (the predominant alert's severity) */
  level: ArrayLike<number>;
  /** risks whose alert is raised, as [low word, high word] */
  alerting: [number, number];
}
export type { HostCheckHits, HostCheckName } from '../services/alerts/types.js';
export type { EngineStats, FlowRecord, HostDetail, HostDscp, HostL7App, HostL7Category, HostRecord, L7Stats, NativeState as EngineState, Page, Cursor } from './native.js';

/** ntopng's defaults: RFC 1918 and RFC 4193 (ULA) networks are local. */
export const DEFAULT_LOCAL_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

const Seconds = z.number().nonnegative();

export const EgressOutputSchema = z.union([
  z.object({ iface: z.string().min(1) }).strict(),
  z.object({ pcap: z.string().min(1), rotateBytes: z.number().int().min(0).optional() }).strict(),
]);

export const EgressConfigSchema = z
  .object({
    aggregated: z.array(EgressOutputSchema).optional(),
    balanced: z.array(EgressOutputSchema).min(1).optional(),
    bridge: z.tuple([z.string().min(1), z.string().min(1)]).optional(),
  })
  .strict()
  .refine((e) => !e.bridge || e.bridge[0] !== e.bridge[1], { message: 'bridge needs two different interfaces' });

export const EgressActionSchema = z.enum(['forward', 'discard', 'shunt', 'slice-l4', 'slice-l3']);
const Count = z.number().int().min(0).max(0x7fffffff);
const IdKey = z.string().regex(/^\d{1,5}$/, 'an integer id');

export const EgressPoliciesSchema = z
  .object({
    shunt: z
      .object({
        default: Count.default(10),
        l4: z.record(IdKey, Count).default({}),
        apps: z.record(IdKey, Count).default({}),
      })
      .default({ default: 10, l4: {}, apps: {} }),
    targets: z.array(
      z
        .object({
          target: z.enum(['aggregated', 'balanced', 'bridge']),
          queue: z.number().int().min(0).optional(),
          default: EgressActionSchema.default('forward'),
          subnets: z.array(z.object({ cidr: z.string().min(1), action: EgressActionSchema })).default([]),
          protocols: z.array(z.object({ id: z.number().int().min(0).max(65535), action: EgressActionSchema })).default([]),
        })
        .refine((t) => t.target === 'aggregated' || t.queue === undefined, { message: 'queue is for aggregated targets only' }),
    ),
  })
  .strict();

export type EgressPoliciesInput = z.input<typeof EgressPoliciesSchema>;

/**
 * The packet workers an interface gets by default: what the machine can
 * spare (one core stays for the event loop and the services), at least one,
 * at most 16 (beyond that the shards' merges in queries cost more than the
 * packet path gains).
 */
export function defaultWorkers(): number {
  return Math.min(16, Math.max(1, availableParallelism() - 1));
}

export const EngineOptions = z
  .object({
    /** capture files replayed in order as one playlist */
    files: z.array(z.string().min(1)).min(1).optional(),
    /** a network interface to capture from */
    iface: z.string().min(1).optional(),
    snaplen: z.number().int().min(64).max(262144).default(65535),
    promisc: z.boolean().default(true),
    /** the kernel capture ring of a live interface (TPACKET_V3 blocks through libpcap), MiB */
    ringMb: z.number().int().min(1).max(4096).default(64),
    bpf: z.string().default(''),
    maxFlows: z.number().int().min(1).max(1 << 26).default(131072),
    maxHosts: z.number().int().min(2).max(1 << 26).default(131072),
    /** the MAC (device) table */
    maxMacs: z.number().int().min(1).max(1 << 24).default(16384),
    flowIdleSec: Seconds.default(60),
    flowLifetimeSec: Seconds.default(0),
    /** a snapshot record of each flow every this many seconds of its life (ntopng's periodic flow dump, 300 s); 0 = off */
    periodicDumpSec: Seconds.default(300),
    localHostIdleSec: Seconds.default(300),
    remoteHostIdleSec: Seconds.default(60),
    /** classify applications (nDPI-style); false measures the pipeline without it */
    dpi: z.boolean().default(true),
    /** the checks' packet-path part (host-check counters, flow and host scores); false measures the pipeline without it */
    checks: z.boolean().default(true),
    /** per-host L7/DSCP counters: 40-byte table entries per host slot (a host uses one per application, category and DSCP mark); 0 turns them off */
    l7EntriesPerHost: z.number().int().min(0).max(256).default(5),
    /** the share of the flow table that may hold classifier state (FlowInfo, 64 B) at once; beyond it flows are classified without their risks and metadata (flow_info_full). The pools reserve address space only: an entry's memory is touched when first used, so the default (every flow) costs what the traffic uses */
    flowInfoShare: z.number().gt(0).max(1).default(1),
    /**
     * packet workers for this interface (shards: each flow lives in one, hosts
     * have a part in each that queries sum); default: what the machine can
     * spare, max(1, availableParallelism() - 1) capped at 16 (defaultWorkers())
     */
    workers: z.number().int().min(1).max(64).optional(),
    /** the share that may hold protocol metadata (FlowMeta, 256 B: names, JA3/JA4, HTTP fields …) at once (flow_meta_full) */
    flowMetaShare: z.number().gt(0).max(1).default(1),
    /** the share of the host table that may hold side state at once, local and remote hosts each (a local host's top sites, ICMP, used ports, behavioural counters: 1.5 KB, the site names shared; a remote host's behavioural counters: 0.75 KB) (host_side_full) */
    hostSideShare: z.number().gt(0).max(1).default(1),
    /** keys of the service map and of the periodicity map each (native/src/flow/behaviour_maps.h); 0 turns both off */
    behaviourMapEntries: z.number().int().min(0).max(1 << 22).default(8192),
    /** IEC 60870-5-104 type-id transitions a flow shows this long are learned, new ones later alerted (ntopng's iec60870_learning_period, 6 h) */
    iecLearningSec: z.number().int().min(0).max(0xffffffff).default(21600),
    /** 'full' pipeline, 'read-only' (reader baseline) or 'decode-only' */
    mode: z.enum(['full', 'read-only', 'decode-only']).default('full'),
    /** 0: as fast as possible; 1: original timing; 2: twice as fast … */
    replaySpeed: z.number().nonnegative().default(0),
    loop: z.boolean().default(false),
    /** expire (and emit) every flow when a file playlist ends */
    flushAtEnd: z.boolean().default(false),
    /** expired-flow ring size in records (rounded up to a power of two; default 65536) */
    ringRecords: z.number().int().min(1024).max(1 << 24).optional(),
    /** fault the tables in at construction (startup) instead of on first use by packets */
    prefault: z.boolean().default(false),
    localNetworks: z.array(z.string()).default(DEFAULT_LOCAL_NETWORKS),
    /** egress queues (Cento): aggregated / balanced outputs, or an inline bridge (then no files or iface) */
    egress: EgressConfigSchema.optional(),
    /** record every packet into rotating pcap files in `dir`, keeping at most maxBytes (the oldest files go first) */
    record: z
      .object({
        dir: z.string().min(1),
        maxBytes: z.number().int().min(8 << 20),
        fileBytes: z.number().int().min(1 << 20).optional(),
        ringBytes: z.number().int().min(1 << 20).max(2 ** 31).optional(),
      })
      .strict()
      .optional(),
  })
  .refine((o) => (o.egress?.bridge ? !o.files && !o.iface : (o.files ? 1 : 0) + (o.iface ? 1 : 0) === 1), {
    message: 'give exactly one of files or iface (neither with egress.bridge)',
  });

export type EngineOptionsInput = z.input<typeof EngineOptions>;

export const HostSort = ['ip', 'name', 'since', 'last', 'alerts', 'country', 'vlan', 'num_flows', 'traffic', 'thpt', 'sent', 'rcvd', 'score'] as const;
export const HostMode = ['all', 'local', 'remote', 'broadcast_domain', 'filtered', 'blacklisted', 'dhcp', 'broadcast', 'multicast'] as const;
export const FlowSort = ['bytes', 'thpt', 'duration', 'first_seen', 'last_seen', 'client', 'server', 'vlan', 'proto', 'l7', 'serial', 'packets', 'score'] as const;

export interface HostQuery {
  sort?: (typeof HostSort)[number];
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
  mode?: (typeof HostMode)[number];
  vlan?: number;
  /** a host pool id: its hosts only */
  pool?: number;
  /** only hosts inside these networks (a user's allowed networks) */
  allowed?: string[];
  /** include ndpi, ndpi_categories and dscp in each row */
  detail?: boolean;
  /** rows without the nested counters (HostBrief): lists that show few fields convert 2–3x faster */
  brief?: boolean;
}

/** A host row of a `brief` query: without the per-family traffic, packet-size, TCP and score-breakdown objects. */
export type HostBrief = Omit<HostRecord, 'tcp' | 'udp' | 'icmp' | 'other_ip' | 'pktStats' | 'tcpPacketStats' | 'udpBytesSent' | 'score_breakdown'>;

export interface FlowQuery {
  sort?: (typeof FlowSort)[number];
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
  host?: string;
  hostVlan?: number;
  vlan?: number;
  l4proto?: number;
  l7?: number;
  allowed?: string[];
}

type ProtocolInfo = AddonInfo['dpi']['protocols'][number];

/** nDPI's registry indexed once (the API looks names up per row, per request). */
let registryIndex: { byId: Map<number, ProtocolInfo>; byName: Map<string, number>; category: Map<number, string> } | null = null;
function registry() {
  if (!registryIndex) {
    const { protocols, categories } = addon.info().dpi;
    registryIndex = {
      byId: new Map(protocols.map((p) => [p.id, p])),
      byName: new Map(protocols.map((p) => [p.name.toLowerCase(), p.id])),
      category: new Map(categories.map((c) => [c.id, c.name])),
    };
  }
  return registryIndex;
}

export const protocolInfo = (id: number): ProtocolInfo | undefined => registry().byId.get(id);
export const categoryName = (id: number): string => registry().category.get(id) ?? 'Unspecified';

/** nDPI's name for a classification: "TLS.YouTube", "DNS", "Unknown". */
export function l7Name(master: number, app: number): string {
  const a = protocolInfo(app)?.name ?? 'Unknown';
  if (!master || master === app) return a;
  return `${protocolInfo(master)?.name ?? 'Unknown'}.${a}`;
}

/**
 * nDPI protocol id by name (case-insensitive; "TLS.YouTube" names YouTube)
 * or by number; undefined when the registry has no such protocol.
 */
export function l7Id(v: string): number | undefined {
  const s = v.trim();
  if (/^\d+$/.test(s)) return registry().byId.has(+s) ? +s : undefined;
  const app = s.includes('.') ? s.slice(s.lastIndexOf('.') + 1) : s;
  return registry().byName.get(app.toLowerCase());
}

/** An expired flow as drained from the engine's ring. */
export interface ExpiredFlow {
  cli_ip: string;
  srv_ip: string;
  cli_port: number;
  srv_port: number;
  vlan: number;
  proto: number;
  ip_version: number;
  first_ns: bigint;
  last_ns: bigint;
  cli2srv_bytes: number;
  srv2cli_bytes: number;
  cli2srv_pkts: number;
  srv2cli_pkts: number;
  serial: number;
  retr: number;
  ooo: number;
  lost: number;
  l7_master: number;
  l7_app: number;
  l7_category: number;
  cli_flags: number;
  srv_flags: number;
  tunnel: number;
  reason: 'idle' | 'lifetime' | 'flushed' | 'evicted';
  dscp_cli: number;
  dscp_srv: number;
  ttl_cli: number;
  ttl_srv: number;
  /** nDPI's confidence name */
  confidence: string;
  /** nDPI flow risk ids and names */
  risk_ids: number[];
  risks: string[];
  /** 'end': the flow ended; 'periodic': a snapshot of a flow still active (counters so far) */
  kind: 'end' | 'periodic';
  /** ntopng's CLIENT/SERVER_LOCATION: 0 remote, 1 local, 2 multicast */
  cli_location: number;
  srv_location: number;
  /** the hosts' pools when the record was made (ntopng's host_pool_id; 0: the default pool) */
  cli_pool: number;
  srv_pool: number;
  /** the hosts' MACs, 'aa:bb:…' ('00:00:00:00:00:00' when unknown) */
  cli_mac: string;
  srv_mac: string;
  /** ntopng's flow INFO: DNS query, HTTP host + URL, TLS/QUIC SNI, SSH banner … ('' when none) */
  info: string;
  /** the hosts' names as learned ('' when none), truncated to 31 bytes */
  cli_name: string;
  srv_name: string;
  /** ntopng's CLIENT/SERVER_NW_LATENCY_US: the TCP handshake's halves in µs (0: not measured) */
  cli_nw_latency_us: number;
  srv_nw_latency_us: number;
}

function riskIds(mask: bigint): number[] {
  const ids: number[] = [];
  for (let i = 0; mask; i++, mask >>= 1n) if (mask & 1n) ids.push(i);
  return ids;
}

const info = addon.info();
const layout = info.expiredFlow;
// The engine names the checks it counts (in its threshold order): the alert contract's.
if (info.hostChecks.length !== HOST_CHECK_NAMES.length || !HOST_CHECK_NAMES.every((c) => info.hostChecks.includes(c))) {
  throw new Error(`addon host checks (${info.hostChecks.join()}) differ from HOST_CHECK_NAMES (${HOST_CHECK_NAMES.join()})`);
}
export { ipText };

const REASONS = ['idle', 'lifetime', 'flushed', 'evicted'] as const;

/**
 * The expired-flow record's layout for readers decoding drained bytes
 * themselves (the flow store): size, and per field its offset, type and —
 * for 'str' fields — capacity (the gap to the next field).
 */
export const expiredLayout = (() => {
  const entries = Object.entries(layout.fields).sort((a, b) => a[1][0] - b[1][0]);
  const fields: Record<string, { off: number; type: string; len: number }> = {};
  entries.forEach(([k, [off, type]], i) => {
    const next = i + 1 < entries.length ? entries[i + 1][1][0] : layout.size;
    fields[k] = { off, type, len: next - off };
  });
  return { size: layout.size, fields };
})();

const utf8 = new TextDecoder('utf-8');
/** A NUL-terminated char array as text (bytes that are not UTF-8 become U+FFFD). */
export function cString(b: Uint8Array, at: number, cap: number): string {
  let end = at;
  const stop = at + cap;
  while (end < stop && b[end] !== 0) end++;
  if (end === at) return '';
  // ASCII, the common case, without TextDecoder's call overhead
  let ascii = true;
  for (let i = at; i < end; i++) if (b[i] > 0x7e || b[i] < 0x20) { ascii = false; break; }
  return ascii ? String.fromCharCode.apply(null, b.subarray(at, end) as unknown as number[]) : utf8.decode(b.subarray(at, end));
}

function macText(b: Uint8Array, at: number): string {
  let s = '';
  for (let i = 0; i < 6; i++) s += (i ? ':' : '') + b[at + i].toString(16).padStart(2, '0').toUpperCase();
  return s;
}

// Field offsets come from the addon (engine/records.h), looked up once.
const F = Object.fromEntries(Object.entries(layout.fields).map(([k, [off]]) => [k, off])) as Record<string, number>;

function decodeExpired(v: DataView, b: Uint8Array, base: number): ExpiredFlow {
  const u8 = (k: string) => v.getUint8(base + F[k]);
  const u16 = (k: string) => v.getUint16(base + F[k], true);
  const u32 = (k: string) => v.getUint32(base + F[k], true);
  const u64 = (k: string) => Number(v.getBigUint64(base + F[k], true));
  return {
    cli_ip: ipText(b, base + F.cli_ip),
    srv_ip: ipText(b, base + F.srv_ip),
    cli_port: u16('cli_port'),
    srv_port: u16('srv_port'),
    vlan: u16('vlan'),
    proto: u8('proto'),
    ip_version: u8('ip_version'),
    first_ns: v.getBigUint64(base + F.first_ns, true),
    last_ns: v.getBigUint64(base + F.last_ns, true),
    cli2srv_bytes: u64('cli2srv_bytes'),
    srv2cli_bytes: u64('srv2cli_bytes'),
    cli2srv_pkts: u32('cli2srv_pkts'),
    srv2cli_pkts: u32('srv2cli_pkts'),
    serial: u32('serial'),
    retr: u32('retr'),
    ooo: u32('ooo'),
    lost: u32('lost'),
    l7_master: u16('l7_master'),
    l7_app: u16('l7_app'),
    l7_category: u16('l7_category'),
    cli_flags: u8('cli_flags'),
    srv_flags: u8('srv_flags'),
    tunnel: u8('tunnel'),
    reason: REASONS[u8('reason')] ?? 'idle',
    dscp_cli: u8('dscp_cli'),
    dscp_srv: u8('dscp_srv'),
    ttl_cli: u8('ttl_cli'),
    ttl_srv: u8('ttl_srv'),
    confidence: info.dpi.confidence[u8('confidence')] ?? 'Unknown',
    ...((ids) => ({ risk_ids: ids, risks: ids.map((i) => info.dpi.risks[i] ?? String(i)) }))(riskIds(v.getBigUint64(base + F.risks, true))),
    kind: u8('kind') === 1 ? 'periodic' : 'end',
    cli_location: u8('cli_location'),
    cli_pool: u8('cli_pool'),
    srv_pool: u8('srv_pool'),
    srv_location: u8('srv_location'),
    cli_mac: macText(b, base + F.cli_mac),
    srv_mac: macText(b, base + F.srv_mac),
    info: cString(b, base + F.info, expiredLayout.fields.info.len),
    cli_name: cString(b, base + F.cli_name, expiredLayout.fields.cli_name.len),
    srv_name: cString(b, base + F.srv_name, expiredLayout.fields.srv_name.len),
    cli_nw_latency_us: u32('cli_nw_latency_us'),
    srv_nw_latency_us: u32('srv_nw_latency_us'),
  };
}

/**
 * The stats buffer's named slots as one object literal, compiled once from
 * the addon's layout: filling ~110 properties one by one cost ~30 µs a call,
 * a literal of known shape ~1 µs (the monitoring API reads this per request).
 */
const buildStats = ((): ((b: Float64Array) => EngineStats) => {
  const L = info.stats;
  const at = (name: string) => L.scalars.indexOf(name);
  const nested = new Set(['tcp_retransmissions', 'tcp_out_of_order', 'tcp_lost', 'tcp_keep_alive', 'decode_non_ip', 'decode_ip_fragments', 'decode_tunnel_packets']);
  const fields = L.scalars.map((n, i) => (nested.has(n) ? null : `${JSON.stringify(n)}: b[${i}]`)).filter(Boolean);
  const tcp = `tcpPacketStats: { retransmissions: b[${at('tcp_retransmissions')}], out_of_order: b[${at('tcp_out_of_order')}], lost: b[${at('tcp_lost')}], keep_alive: b[${at('tcp_keep_alive')}] }`;
  const dec = [
    ...info.decodeErrors.map((n, i) => `${JSON.stringify(n)}: b[${L.decode + i}]`),
    `"decode.non_ip": b[${at('decode_non_ip')}]`,
    `"decode.ip.fragments": b[${at('decode_ip_fragments')}]`,
    `"decode.tunnel.packets": b[${at('decode_tunnel_packets')}]`,
  ];
  return new Function('b', `return { ${fields.join(', ')}, ${tcp}, decode: { ${dec.join(', ')} }, l4: [], dscp: [], bcast_domains: [] };`) as (b: Float64Array) => EngineStats;
})();

/** Seconds of packet time between two timeseries ticks (Engine::kTickStep). */
export const TICK_STEP = 60;

/** `last`: the tick after a file playlist's last packet (longer steps close their partial step too). */
export type TickListener = (boundary: number, prev: number, last: boolean) => void | Promise<void>;

export class Engine {
  readonly options: z.output<typeof EngineOptions>;
  /** the packet workers running: options.workers, else defaultWorkers(); one with an inline bridge */
  readonly workers: number;
  private readonly native: NativeEngine;
  private done: Promise<void> | null = null;
  private resolveDone: (() => void) | null = null;
  private closed = false;
  private expiredListener: (() => void) | null = null;
  private tickListeners: TickListener[] = [];
  private localNets: string[] = [];
  private readonly drainBuf = new ArrayBuffer(layout.size * 4096);
  private readonly statsBuf = new Float64Array(info.stats.size);

  constructor(opts: EngineOptionsInput) {
    const parsed = EngineOptions.safeParse(opts);
    if (!parsed.success) {
      throw new FlowgateError(`invalid engine options: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}`, 'E_INVALID');
    }
    const o = (this.options = parsed.data);
    const workers = o.workers ?? defaultWorkers();
    this.native = new addon.NativeEngine({
      files: o.files,
      iface: o.iface,
      snaplen: o.snaplen,
      promisc: o.promisc,
      bufferMb: o.ringMb,
      bpf: o.bpf,
      maxFlows: o.maxFlows,
      maxHosts: o.maxHosts,
      maxMacs: o.maxMacs,
      flowIdleSec: o.flowIdleSec,
      flowLifetimeSec: o.flowLifetimeSec,
      periodicDumpSec: o.periodicDumpSec,
      localHostIdleSec: o.localHostIdleSec,
      remoteHostIdleSec: o.remoteHostIdleSec,
      dpi: o.dpi,
      checks: o.checks,
      l7EntriesPerHost: o.l7EntriesPerHost,
      flowInfoShare: o.flowInfoShare,
      workers,
      flowMetaShare: o.flowMetaShare,
      hostSideShare: o.hostSideShare,
      behaviourMapEntries: o.behaviourMapEntries,
      iecLearningSec: o.iecLearningSec,
      mode: o.mode === 'full' ? 0 : o.mode === 'read-only' ? 1 : 2,
      replaySpeed: o.replaySpeed,
      loop: o.loop,
      flushAtEnd: o.flushAtEnd,
      prefault: o.prefault,
      ringRecords: o.ringRecords,
      egress: o.egress as NativeEngineOptions['egress'],
      record: o.record,
    });
    this.workers = this.native.state().workers;
    this.setLocalNetworks(o.localNetworks);
  }

  /** Entry sizes and the libpcap version the addon was built with. */
  static info() {
    return info;
  }

  /**
   * The operator's classification rules, for every engine from the next new
   * flow on; the registry (names, categories) follows at once. Throws a
   * TypeError naming what is invalid (nothing changes then).
   */
  static loadCountries(files: string[]): Promise<{ networks: number; ranges: number; ms: number }> {
    return addon.loadCountries(files);
  }

  /** The country the engines give a host at this address ('' for none: no table, private, unknown). */
  static countryOf(ip: string): string {
    return addon.countryOf(ip);
  }

  static setUserRules(rules: UserRulesSpec): void {
    addon.setUserRules(rules);
    info.dpi = addon.info().dpi;
    registryIndex = null;
  }

  get isFile(): boolean {
    return !!this.options.files;
  }

  start(): this {
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
    this.native.start((ev, a, b) => {
      if (ev === 'done') this.resolveDone?.();
      // Events the worker queued before close() joined it reach the loop
      // later: the stores their listeners write to may be closed by then.
      else if (this.closed) return;
      else if (ev === 'expired') this.expiredListener?.();
      else if (ev === 'tick' || ev === 'last_tick') this.onTickEvent(a, b, ev === 'last_tick');
    });
    return this;
  }

  /**
   * Timeseries ticks on packet time (Engine::tick in engine.h): called on the
   * JS thread at each boundary (a multiple of TICK_STEP seconds) with the
   * previous tick's boundary; every flow's counters are credited up to the
   * boundary, and the traffic since `prev` lies in the step starting at
   * `prev`; `last` marks the one after a playlist's last packet. The engine waits (files; live at most 250 ms) until the listener
   * returns, or until its promise settles: read what is needed with the
   * query methods, then return. Set it before start() to see every tick.
   */
  onTick(listener: TickListener | null): this {
    this.tickListeners = listener ? [listener] : [];
    this.native.setTickListener(listener !== null);
    return this;
  }

  /**
   * One more tick listener beside the others (the timeseries sampler, the
   * host checks …): the engine goes on once every one has returned or its
   * promise settled. Returns its remover.
   */
  addTickListener(listener: TickListener): () => void {
    this.tickListeners.push(listener);
    this.native.setTickListener(true);
    return () => {
      const i = this.tickListeners.indexOf(listener);
      if (i >= 0) this.tickListeners.splice(i, 1);
      this.native.setTickListener(this.tickListeners.length > 0);
    };
  }

  /** Lets the worker go on after the tick at `boundary` (done automatically when the listener returns). */
  tickDone(boundary: number): void {
    this.native.tickDone(boundary);
  }

  // Called from the worker's thread-safe function: an exception thrown out
  // of it would end the process, so a listener's is reported and the tick
  // goes on to the others.
  private onTickEvent(boundary: number, prev: number, last: boolean): void {
    const pending: Promise<unknown>[] = [];
    for (const l of this.tickListeners) {
      try {
        const r = l(boundary, prev, last);
        if (r instanceof Promise) pending.push(r);
      } catch (e) {
        console.error(`flowgate: tick listener at ${boundary}: ${(e as Error)?.stack ?? String(e)}`);
      }
    }
    if (pending.length) void Promise.allSettled(pending).then(() => this.tickDone(boundary));
    else this.tickDone(boundary);
  }

  /**
   * Called (on the JS thread) when expired flows wait in the ring; the
   * listener should drainExpired(). Rings again after each drain.
   */
  onExpired(listener: (() => void) | null): this {
    this.expiredListener = listener;
    return this;
  }

  /** Resolves when a file playlist has been replayed (or the source failed). */
  async waitDone(): Promise<NativeState> {
    if (!this.done) throw new FlowgateError('engine not started', 'E_STATE');
    await this.done;
    return this.native.state();
  }

  stop(): void {
    this.native.stop();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.native.stop();
  }

  state(): NativeState {
    return this.native.state();
  }

  stats(): EngineStats {
    const b = this.statsBuf;
    this.native.stats(b);
    const L = info.stats;
    const o = buildStats(b);
    for (let p = 0; p < 256; p++) if (b[L.l4 + p]) o.l4.push({ proto: p, packets: b[L.l4 + p], bytes: b[L.l4 + 256 + p] });
    for (let d = 0; d < 64; d++) if (b[L.dscp + d]) o.dscp.push({ dscp: d, packets: b[L.dscp + d], bytes: b[L.dscp + 64 + d] });
    for (let k = 0; k < b[L.bcast]; k++) {
      const net = b[L.bcast + 1 + 3 * k];
      const ip = [24, 16, 8, 0].map((s) => Math.floor(net / 2 ** s) % 256).join('.');
      o.bcast_domains.push({ network: `${ip}/${b[L.bcast + 2 + 3 * k]}`, hits: b[L.bcast + 3 + 3 * k] });
    }
    return o;
  }



  /** The host pools' members (MAC first, then the longest network); every host is re-assigned before this returns. */
  setHostPools(members: HostPoolMember[]): void {
    this.native.setHostPools(members);
  }

  /**
   * The IEC 60870-5-104 checks' configuration: the type ids the
   * unexpected-type-id check allows (integers 0-255; ids from 128 up are
   * never checked), null while that check is off (all allowed). Applies to
   * the next batch on.
   */
  setIecConfig(c: { allowedTypeIds: readonly number[] | null }): void {
    const ids = c.allowedTypeIds;
    if (ids !== null && !(Array.isArray(ids) && ids.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)))
      throw new FlowgateError('IEC config: allowedTypeIds is null or integers 0-255', 'E_INVALID');
    this.native.setIecConfig(ids === null ? null : [...ids]);
  }

  setLocalNetworks(cidrs: string[]): void {
    this.native.setLocalNetworks(cidrs);
    this.localNets = [...cidrs];
  }

  /** The local networks in force, in the order their indices (trafficBy().networks) refer to. */
  get localNetworks(): readonly string[] {
    return this.localNets;
  }

  /** Traffic per VLAN and per local network since startup (credited by flow accounting steps). */
  trafficBy(): TrafficBy {
    return this.native.trafficBy();
  }

  /**
   * New table maximums (ntopng's incr_flows doubles the flow table): the
   * tables are rebuilt between two batches, every flow and host kept.
   * Throws FlowgateError E_LIMIT when a maximum is below the current count.
   */
  setLimits(limits: { maxFlows?: number; maxHosts?: number }): void {
    const s = this.stats();
    const maxFlows = limits.maxFlows ?? s.max_flows, maxHosts = limits.maxHosts ?? s.max_hosts;
    for (const [k, v] of [['maxFlows', maxFlows], ['maxHosts', maxHosts]] as const) {
      if (!Number.isInteger(v) || v < 2 || v > 1 << 26) throw new FlowgateError(`${k} must be an integer in 2..${1 << 26}`, 'E_INVALID');
    }
    this.native.setLimits(maxFlows, maxHosts);
  }

  /**
   * Replaces every egress policy at once (targets not listed forward
   * everything); the engine switches tables between two packet batches.
   * Throws FlowgateError E_INVALID naming the bad entry, E_STATE without egress.
   */
  setEgressPolicies(p: EgressPoliciesInput): void {
    const parsed = EgressPoliciesSchema.safeParse(p);
    if (!parsed.success) {
      throw new FlowgateError(`invalid egress policies: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'policies'}: ${i.message}`).join('; ')}`, 'E_INVALID');
    }
    this.native.setEgressPolicies(parsed.data as EgressPolicies);
  }

  /** A looped playlist's passes so far, the time shift between two passes and the first packet's time (ns). */
  replayInfo(): { passes: number; periodNs: bigint; firstNs: bigint } {
    return this.native.replayInfo();
  }

  /** Packets each worker has taken, in worker order; null when the addon does not count them per worker. */
  workerPackets(): number[] | null {
    return this.native.workerPackets?.() ?? null;
  }

  /** The recorder's counters (null when this engine does not record). */
  recorderStats(): RecorderStats | null {
    return this.native.recorderStats();
  }

  /** Counters per egress target, output and policy (empty without egress). */
  egressStats(): EgressStats {
    return this.native.egressStats();
  }

  hosts(q: HostQuery & { detail: true }): Page<HostDetail>;
  hosts(q: HostQuery & { brief: true }): Page<HostBrief>;
  hosts(q?: HostQuery): Page<HostRecord>;
  hosts(q: HostQuery = {}): Page<HostRecord | HostBrief> {
    return this.native.hosts(this.hostQuery(q));
  }

  /** hosts() as a Cursor: the page is ordered now, its rows copied and converted a slice at a time. */
  hostsCursor(q: HostQuery & { detail: true }): Cursor<HostDetail>;
  hostsCursor(q: HostQuery & { brief: true }): Cursor<HostBrief>;
  hostsCursor(q?: HostQuery): Cursor<HostRecord>;
  hostsCursor(q: HostQuery = {}): Cursor<HostRecord | HostBrief> {
    return this.native.hosts({ ...this.hostQuery(q), cursor: true });
  }

  private hostQuery(q: HostQuery): NativeHostQuery {
    return {
      sort: indexOf(HostSort, q.sort ?? 'ip', 'host sort'),
      desc: q.order === 'desc',
      offset: q.offset ?? 0,
      limit: q.limit ?? 10,
      mode: indexOf(HostMode, q.mode ?? 'all', 'host mode'),
      vlan: q.vlan ?? -1,
      pool: q.pool ?? -1,
      allowed: q.allowed ?? [],
      detail: q.detail ?? false,
      brief: q.brief ?? false,
    };
  }

  host(ip: string, vlan?: number): HostDetail | null {
    return vlan === undefined ? this.native.host(ip) : this.native.host(ip, vlan);
  }

  /**
   * ntopng's packet-counting host checks (SYN/FIN/RST scan, flow flood, ICMP
   * flood), measured by the engine per minute of packet time: each tick closes
   * a minute (the traffic since the previous tick) and resets the counters.
   * Called inside an onTick listener, returns the hosts for which, in the
   * minute that ended at this tick, the attacker or the victim hits of at
   * least one check named in `thresholds` are strictly above its threshold;
   * each result carries both figures of every check named (also those below).
   * Outside a tick it answers for the last minute closed (none before the
   * first tick: []); a host gone since that tick is not returned, nor one
   * created since. Filtered natively under the batch lock.
   */
  hostCheckHits(thresholds: Partial<Record<HostCheckName, number>>): HostCheckHits[] {
    if (thresholds === null || typeof thresholds !== 'object') throw new FlowgateError('thresholds must be an object of check name → number', 'E_INVALID');
    for (const [k, v] of Object.entries(thresholds)) {
      if (!(HOST_CHECK_NAMES as readonly string[]).includes(k)) throw new FlowgateError(`unknown host check '${k}' (one of ${HOST_CHECK_NAMES.join(', ')})`, 'E_INVALID');
      if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) throw new FlowgateError(`threshold of ${k} must be a finite number >= 0`, 'E_INVALID');
    }
    return this.native.hostCheckHits(info.hostChecks.map((c) => thresholds[c] ?? -1));
  }

  /**
   * ntopng's network checks' figures (NetworkStats: hits.syn_scan_victim,
   * hits.flow_flood_victim) of each local network with any, for the minute
   * closed at the last tick (inside a tick listener: the minute that ended
   * there), counted per network by the engine.
   */
  networkCheckHits(): NetworkCheckHits[] {
    return this.native.networkCheckHits();
  }

  /**
   * The ARP packets naming a broadcast domain too large (sender and target in
   * no common /16, ntopng's pushBroadcastDomainTooLargeAlert) in the minute
   * closed at the last tick: the first 64, and how many more.
   */
  bcastTooLarge(): BcastTooLarge {
    return this.native.bcastTooLarge();
  }

  /**
   * The local hosts that have a MAC, packed (no object per host, for checks
   * walking every host each minute): triplets [IPv4 address as a number, or
   * -1 for IPv6; VLAN; MAC as a 48-bit number].
   */
  localMacs(): Float64Array {
    return this.native.localMacs();
  }

  /** The local hosts whose MAC is a networking device (a MAC more than 8 hosts were seen behind). */
  gatewayHosts(): { ip: string; vlan: number }[] {
    return this.native.gatewayHosts();
  }

  /**
   * ntopng's RX-only views (NetworkInterface::getRxOnlyHostsList): the hosts
   * with one-way TCP/UDP flows counted, and the clients of active flows to
   * servers that never sent a packet; local and remote.
   */
  noTxPeers(allowed?: string[]): { local: NoTxSide; remote: NoTxSide } {
    return this.native.noTxPeers(allowed);
  }

  /**
   * ntopng's top visited sites (MostVisitedList): the sites local clients
   * named in HTTP, TLS, QUIC, Tor and DNS flows, most visited first; the
   * interface's, or one host's (null: no such host).
   */
  topSites(ip?: string, vlan = 0): { site: string; contacts: number }[] | null {
    return ip === undefined ? this.native.topSites() : this.native.topSites(ip, vlan);
  }

  /** A page of the service or the periodicity map, filtered, sorted and cut natively. */
  behaviourMap(which: 'service' | 'periodicity', q: BehaviourQuery): BehaviourPage {
    return this.native.behaviourMap(which, q);
  }

  /**
   * ntopng's score_threshold host check: the hosts whose score as client or
   * as server (the shares of their active flows' alerts) is strictly above
   * `threshold`, filtered natively under the batch lock.
   */
  hostScoresAbove(threshold: number): HostScoreRow[] {
    if (!(typeof threshold === 'number' && Number.isInteger(threshold) && threshold >= 0 && threshold <= 0xffffffff))
      throw new FlowgateError('threshold must be an integer from 0 to 2^32-1', 'E_INVALID');
    return this.native.hostScoresAbove(threshold);
  }

  /**
   * The flow score table (flow/scores.h): per nDPI risk id its alert's
   * client / server share, score category and severity level, and the
   * risks whose alert is raised. Every active flow is re-scored at once.
   */
  setRiskScores(t: RiskScoreTable): void {
    const ok = (a: ArrayLike<number>, max: number) => a.length === 64 && Array.from(a).every((v) => Number.isInteger(v) && v >= 0 && v <= max);
    if (!ok(t.cli, 0xffff) || !ok(t.srv, 0xffff) || !ok(t.category, 1) || !ok(t.level, 255))
      throw new FlowgateError('risk score table: 64 entries each (cli, srv 0..65535, category 0..1, level 0..255)', 'E_INVALID');
    const [lo, hi] = t.alerting;
    if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 0 && hi >= 0 && lo <= 0xffffffff && hi <= 0xffffffff))
      throw new FlowgateError('risk score table: alerting is [low word, high word]', 'E_INVALID');
    this.native.setRiskScores(Uint16Array.from(t.cli), Uint16Array.from(t.srv), Uint8Array.from(t.category), Uint8Array.from(t.level), [lo, hi]);
  }

  flows(q: FlowQuery = {}): Page<FlowRecord> {
    return this.native.flows(this.flowQuery(q));
  }

  /** flows() as a Cursor: the page is ordered now, its rows copied and converted a slice at a time. */
  flowsCursor(q: FlowQuery = {}): Cursor<FlowRecord> {
    return this.native.flows({ ...this.flowQuery(q), cursor: true });
  }

  private flowQuery(q: FlowQuery): NativeFlowQuery {
    return {
      sort: indexOf(FlowSort, q.sort ?? 'bytes', 'flow sort'),
      desc: (q.order ?? 'desc') === 'desc',
      offset: q.offset ?? 0,
      limit: q.limit ?? 10,
      host: q.host,
      hostVlan: q.hostVlan ?? -1,
      vlan: q.vlan ?? -1,
      l4proto: q.l4proto ?? -1,
      l7: q.l7 ?? -1,
      allowed: q.allowed ?? [],
    };
  }

  /** Interface bytes, packets and flows per application and category since startup. */
  l7Stats(): L7Stats {
    return this.native.l7Stats();
  }

  flowCounters(allowed: string[] = []) {
    return this.native.flowCounters(allowed);
  }

  /**
   * Takes flows that expired since the last call: at most `max` records
   * (periodic snapshots among them are skipped), and never more than were
   * waiting when called (the worker keeps adding meanwhile).
   */
  /**
   * Copies waiting records (whole ones, at most what `buf` holds) into `buf`
   * and returns how many: for readers decoding the bytes themselves with
   * `expiredLayout` (the flow store), without an object per flow.
   */
  drainExpiredRaw(buf: ArrayBuffer): number {
    return this.native.drainExpired(buf, Math.floor(buf.byteLength / layout.size));
  }

  /**
   * Ends up to `max` active flows now (reason 'flushed') and puts their
   * records in the expired ring, never more than it has room for; returns
   * how many. The service's shutdown: active flows go to the flow store.
   */
  expireActive(max = 4096): number {
    return this.native.expireActive(max);
  }

  drainExpired(max = 65536): ExpiredFlow[] {
    const out: ExpiredFlow[] = [];
    const view = new DataView(this.drainBuf);
    const bytes = new Uint8Array(this.drainBuf);
    const perCall = this.drainBuf.byteLength / layout.size;
    while (out.length < max) {
      const want = Math.min(perCall, max - out.length);
      const n = this.native.drainExpired(this.drainBuf, want);
      // periodic snapshots are for the flow store (drainExpiredRaw): flows that ended only
      for (let i = 0; i < n; i++) if (bytes[i * layout.size + F.kind] === 0) out.push(decodeExpired(view, bytes, i * layout.size));
      if (n < want) break;
    }
    return out;
  }
}

function indexOf<T extends string>(list: readonly T[], v: string, what: string): number {
  const i = list.indexOf(v as T);
  if (i < 0) throw new FlowgateError(`unknown ${what} '${v}' (one of ${list.join(', ')})`, 'E_INVALID');
  return i;
}
