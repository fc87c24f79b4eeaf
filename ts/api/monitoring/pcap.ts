// ⑨ PCAP: live extraction of recorded packets (rest/v1|v2/get/pcap/
// live_extraction.lua) and the BPF filter equivalent to a historical
// query's tags (pro get/db/filter/bpf.lua, ntopng's tag_utils.build_bpf).
import { isIP } from 'node:net';

import { FlowgateError } from '../../bindings/errors.js';
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';

/**
 * ntopng's preparePcapDownloadFilter: an unprivileged user with allowed
 * networks gets only their packets, `(net A or net B) and (<filter>)`.
 */
export function restrictFilter(filter: string, ctx: ApiCtx): string {
  if (ctx.user.role === 'administrator') return filter;
  const nets = ctx.user.allowed_networks.filter((n) => n !== '0.0.0.0/0' && n !== '::/0');
  if (!nets.length) return filter;
  const any = nets.map((n) => `net ${n}`).join(' or ');
  return filter ? `(${any}) and (${filter})` : any;
}

/** get/pcap/live_extraction: the packets of [epoch_begin, epoch_end] (whole seconds) passing bpf_filter, as a pcap file. */
export function liveExtraction(ctx: ApiCtx, p: { epoch_begin: number; epoch_end: number; bpf_filter?: string }): Response {
  const u = ctx.user;
  if (u.role !== 'administrator' && !u.allow_pcap_download) throw new ApiError(RC.NOT_GRANTED, `user ${u.username} may not download packets (allow_pcap_download)`);
  if (p.epoch_end < p.epoch_begin) throw new ApiError(RC.INVALID_ARGUMENTS, 'epoch_end is before epoch_begin');
  const given = p.bpf_filter?.trim() ?? '';
  const filter = restrictFilter(given, ctx);
  const extractions = ctx.deps.extractions!;
  let body: ReadableStream<Uint8Array>;
  try {
    body = extractions.open(ctx.iface, { begin: p.epoch_begin, end: p.epoch_end, filter });
  } catch (e) {
    if (!(e instanceof FlowgateError)) throw e;
    // ntopng answers not granted where no recording is available (recording_utils.isExtractionAvailable)
    if (e.code === 'E_NOT_RECORDED') throw new ApiError(RC.NOT_GRANTED, e.message);
    if (e.code === 'E_BPF') throw new ApiError(RC.BAD_FORMAT, `bpf_filter: ${e.message}`);
    throw new ApiError(RC.INTERNAL_ERROR, e.message);
  }
  // tracker.lua logs runLiveExtraction(ifid, from, to, filter) as user activity
  track(ctx, 'runLiveExtraction', [ctx.iface.ifid, p.epoch_begin, p.epoch_end, given]);
  return new Response(body, {
    headers: {
      'content-type': 'application/vnd.tcpdump.pcap',
      'content-disposition': `attachment; filename="${p.epoch_begin}-${p.epoch_end}.pcap"`,
    },
  });
}

// ── get/db/filter/bpf ───────────────────────────────────────────────────

/** The filter parameters of get/db/filter/bpf (the spec's ID, TXT and NUM filters, and tag_utils' CIDR tags). */
export const BPF_TAGS = [
  'vlan_id', 'ip_version', 'l4proto', 'ip', 'cli_ip', 'srv_ip', 'network_cidr', 'cli_network_cidr', 'srv_network_cidr',
  'network', 'cli_network', 'srv_network', 'cli_port', 'srv_port', 'mac', 'cli_mac', 'srv_mac',
  // what packets do not carry: a flow's classification, location, names, measures
  'l7proto', 'l7proto_master', 'l7cat', 'traffic_direction', 'network_name', 'src2dst_dscp', 'country', 'cli_country',
  'srv_country', 'cli_asn', 'srv_asn', 'observation_point_id', 'probe_ip', 'snmp_interface', 'input_snmp', 'output_snmp',
  'l7_error_id', 'cli_proc_name', 'srv_proc_name', 'cli_user_name', 'srv_user_name', 'flow_risk', 'name', 'cli_name',
  'srv_name', 'src2dst_tcp_flags', 'dst2src_tcp_flags', 'info', 'cli_nw_latency', 'srv_nw_latency', 'severity', 'score',
  'bytes', 'packets', 'host_pool_id', 'cli_host_pool_id', 'srv_host_pool_id',
] as const;

/** ntopng's l4_keys by name (l4_protocol_list.lua), as l4_proto_to_id looks them up */
const L4_IDS: Readonly<Record<string, number>> = {
  ip: 0, icmp: 1, igmp: 2, tcp: 6, udp: 17, ipv6: 41, rsvp: 46, gre: 47, esp: 50, ipv6_icmp: 58, icmpv6: 58, ospf: 89, pim: 103, vrrp: 112, hip: 139, sctp: 132,
};

const MAC = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i;

function bad(tag: string, v: string, what: string): never {
  throw new ApiError(RC.INVALID_ARGUMENTS, `${tag}: '${v.slice(0, 64)}' is not ${what}`);
}

/** `host A` / `net A/n`: an address of either family, or a network (never text pasted into the filter). */
function hostOrNet(tag: string, v: string): string {
  const [a, len, more] = v.split('/');
  if (more !== undefined || !isIP(a)) bad(tag, v, 'an address or a CIDR network');
  if (len === undefined) return `host ${a}`;
  const bits = isIP(a) === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(len) || Number(len) > bits) bad(tag, v, 'an address or a CIDR network');
  return `net ${a}/${Number(len)}`;
}

/**
 * One condition per tag value. Unlike ntopng's table (tag_utils.defined_tags'
 * bpf_key): an IPv6 address is `host`, not `ip host` (libpcap refuses that);
 * a CIDR value is `net`; a transport protocol matches both IP versions; and
 * vlan_id, ip_version and local network ids, which BPF can express, are
 * turned into filters too. null: the tag or operator has no BPF form.
 */
function condition(tag: string, v: string, localNets: readonly string[]): string | null {
  switch (tag) {
    case 'l4proto': {
      const id = /^\d+$/.test(v) ? Number(v) : L4_IDS[v.toLowerCase()];
      if (id === undefined || id > 255) bad(tag, v, 'a transport protocol');
      return `(ip proto ${id} or ip6 proto ${id})`;
    }
    case 'ip_version':
      if (v !== '4' && v !== '6') bad(tag, v, '4 or 6');
      return v === '4' ? 'ip' : 'ip6';
    case 'ip':
    case 'cli_ip':
    case 'srv_ip':
    case 'network_cidr':
    case 'cli_network_cidr':
    case 'srv_network_cidr':
      return hostOrNet(tag, v);
    case 'network':
    case 'cli_network':
    case 'srv_network': {
      if (!/^\d+$/.test(v)) bad(tag, v, 'a local network id');
      const net = localNets[Number(v)];
      if (!net) bad(tag, v, 'the id of a local network');
      return `net ${net}`;
    }
    case 'cli_port':
    case 'srv_port':
      if (!/^\d{1,5}$/.test(v) || Number(v) > 65535) bad(tag, v, 'a port');
      return `port ${Number(v)}`;
    case 'mac':
    case 'cli_mac':
    case 'srv_mac':
      if (!MAC.test(v)) bad(tag, v, 'a MAC address');
      return `ether host ${v.toLowerCase().replaceAll('-', ':')}`;
    case 'vlan_id':
      if (!/^\d{1,4}$/.test(v) || Number(v) > 4095) bad(tag, v, 'a VLAN id');
      return `vlan ${Number(v)}`;
    default:
      return null;
  }
}

/**
 * tag_utils.build_bpf: per tag, its `eq` values are alternatives (or) and
 * its `neq` values all excluded (and not); the tags' groups are joined with
 * `and`. ntopng joins values with upper-case AND / OR, which libpcap does
 * not parse: lower case here. A VLAN goes first (libpcap's `vlan` moves the
 * offsets of what follows it), one value only; other operators (lt, in …),
 * like tags packets do not carry, are left out and listed in `unsupported`.
 */
export function buildBpf(filters: Readonly<Record<string, string | undefined>>, localNets: readonly string[]): { bpf: string; unsupported: string[] } {
  const groups: string[] = [];
  const unsupported: string[] = [];
  for (const tag of BPF_TAGS) {
    const raw = filters[tag];
    if (raw === undefined || raw === '') continue;
    const eq: string[] = [], neq: string[] = [];
    let skipped = false;
    for (const part of raw.split(',')) {
      if (!part.trim()) continue;
      const cut = part.lastIndexOf(';');
      const value = (cut >= 0 ? part.slice(0, cut) : part).trim();
      const op = cut >= 0 ? part.slice(cut + 1).trim() : 'eq';
      const c = op === 'eq' || (op === 'neq' && tag !== 'vlan_id') ? condition(tag, value, localNets) : null;
      if (c === null) skipped = true;
      else (op === 'eq' ? eq : neq).push(c);
    }
    if (tag === 'vlan_id' && eq.length > 1) eq.length = 0, skipped = true;
    if (skipped) unsupported.push(tag);
    if (neq.length) groups.push(`(${neq.map((c) => `not ${c}`).join(' and ')})`);
    if (eq.length) groups.push(tag === 'vlan_id' ? eq[0] : `(${eq.join(' or ')})`);
  }
  return { bpf: groups.join(' and '), unsupported };
}

export function dbFilterBpf(ctx: ApiCtx, p: Record<string, string | undefined> & { epoch_begin?: number; epoch_end?: number }) {
  if (p.epoch_begin !== undefined && p.epoch_end !== undefined && p.epoch_end < p.epoch_begin) throw new ApiError(RC.INVALID_ARGUMENTS, 'epoch_end is before epoch_begin');
  return buildBpf(p, ctx.iface.engine.localNetworks);
}
