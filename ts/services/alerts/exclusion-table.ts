// ⑧ Alert exclusions as lookups: what the stored exclusions (exclusions.ts,
// ntopng's alert_exclusions layout {<subject>: {type, flow_alerts,
// host_alerts}}) become where alerts are raised. Built on each thread that
// needs it: the host checks (main thread) and the flow writer's decoder
// (flow decoder thread, sent the exclusions on every change as it is sent the risk
// mask). While no exclusion exists the per-row cost is one boolean test;
// otherwise one hash lookup per address (plus the few CIDR and domain
// subjects, scanned).
import ipaddr from 'ipaddr.js';

import { FLOW_CHECK_ALERTS, FLOW_RISK_ALERTS } from './catalogue.js';

/** ntopng's alert_consts.ALL_ALERT_KEY: every alert of the subdir */
export const ALL_ALERT_KEY = 0;

export type SubjectType = 'host' | 'domain' | 'certificate';

/** One excluded subject, as ntopng keeps it (alert_exclusions.lua). */
export interface ExclusionSubject {
  type: SubjectType;
  /** flow alert ids (FlowAlertTypeEnum) excluded for it; 0: all */
  flow_alerts: number[];
  /** host alert ids (host_alert_keys.lua) excluded for it; 0: all */
  host_alerts: number[];
}

/** subject key ('ip', 'ip@vlan', 'net/len[@vlan]', domain, certificate) → subject */
export type ExclusionRecord = Record<string, ExclusionSubject>;

/** A host subject key split: address or network, and its VLAN (0: untagged). */
export function parseHostSubject(key: string): { net: [ipaddr.IPv4 | ipaddr.IPv6, number]; vlan: number } | null {
  const at = key.lastIndexOf('@');
  const addr = at < 0 ? key : key.slice(0, at);
  const vlan = at < 0 ? 0 : Number(key.slice(at + 1));
  try {
    const net = addr.includes('/') ? ipaddr.parseCIDR(addr) : (() => {
      const a = ipaddr.parse(addr);
      return [a, a.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
    })();
    return { net, vlan };
  } catch {
    return null;
  }
}

/** A flow alert mask: [nDPI risks 0–31, risks 32–63, ntopng's own flow checks (FLOW_CHECK_ALERTS bits)] */
type FlowMask = [number, number, number];

/** the bits raising each flow alert id (several risks may share one) */
const BITS_OF_ALERT = new Map<number, FlowMask>();
for (const r of FLOW_RISK_ALERTS) {
  const m = BITS_OF_ALERT.get(r.alertId) ?? [0, 0, 0];
  if (r.risk < 32) m[0] |= 1 << r.risk;
  else m[1] |= 1 << (r.risk - 32);
  BITS_OF_ALERT.set(r.alertId, m);
}
for (const c of FLOW_CHECK_ALERTS) {
  const m = BITS_OF_ALERT.get(c.alertId) ?? [0, 0, 0];
  m[2] |= 1 << c.bit;
  BITS_OF_ALERT.set(c.alertId, m);
}

/** the mask of these flow alert ids (0: every alert) */
function flowMaskOf(ids: readonly number[]): FlowMask {
  const out: FlowMask = [0, 0, 0];
  for (const id of ids) {
    if (id === ALL_ALERT_KEY) return [-1, -1, -1];
    const m = BITS_OF_ALERT.get(id);
    if (m) for (let i = 0; i < 3; i++) out[i] |= m[i];
  }
  return out;
}

const hex16 = (b: Uint8Array, at: number) => {
  let s = '';
  for (let i = 0; i < 16; i++) s += (b[at + i] < 16 ? '0' : '') + b[at + i].toString(16);
  return s;
};
const bytesHex = (bytes: number[]) => bytes.map((x) => x.toString(16).padStart(2, '0')).join('');
/** IPv4-mapped IPv6 bytes of a v4 address (how the engine's records hold it) */
const mappedHex = (a: ipaddr.IPv4) => '00000000000000000000ffff' + bytesHex(a.toByteArray());

interface Range {
  /** 32 hex digits (16 bytes, v4 as mapped) */
  lo: string;
  hi: string;
  vlan: number;
  flow: FlowMask;
  host: Set<number> | null;
}

/**
 * The lookups of one exclusion record. Addresses are keyed by their 16-byte
 * form (v4 as mapped, as the engine's records hold them) and VLAN.
 */
export class ExclusionMatcher {
  /** 'hex|vlan' → flow alert mask / host alert ids (null: every one) */
  private readonly flowHosts = new Map<string, FlowMask>();
  private readonly hostHosts = new Map<string, Set<number> | null>();
  private readonly ranges: Range[] = [];
  /** lower-case domain and its flow alert mask */
  private readonly domains: [string, FlowMask][] = [];
  readonly empty: boolean;
  /** out values of flowExcluded (no allocation per row) */
  lo = 0;
  hi = 0;
  own = 0;

  constructor(rec: ExclusionRecord) {
    for (const [key, s] of Object.entries(rec)) {
      const flow = flowMaskOf(s.flow_alerts ?? []);
      const hostIds = s.host_alerts ?? [];
      const host = hostIds.includes(ALL_ALERT_KEY) ? null : new Set(hostIds);
      if (s.type === 'domain') {
        if (flow[0] || flow[1] || flow[2]) this.domains.push([key.toLowerCase(), flow]);
        continue;
      }
      if (s.type !== 'host') continue; // certificates: flows rows carry none to match (see exclusions.ts)
      const p = parseHostSubject(key);
      if (!p) continue;
      const [a, len] = p.net;
      const full = a.kind() === 'ipv4' ? 32 : 128;
      if (len === full) {
        const k = `${a.kind() === 'ipv4' ? mappedHex(a as ipaddr.IPv4) : bytesHex(a.toByteArray())}|${p.vlan}`;
        this.flowHosts.set(k, flow);
        if (hostIds.length) this.hostHosts.set(k, host);
      } else {
        const cidr = `${a.toString()}/${len}`;
        const lo = a.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
        const hi = a.kind() === 'ipv4' ? ipaddr.IPv4.broadcastAddressFromCIDR(cidr) : ipaddr.IPv6.broadcastAddressFromCIDR(cidr);
        const hx = (x: ipaddr.IPv4 | ipaddr.IPv6) => (x.kind() === 'ipv4' ? mappedHex(x as ipaddr.IPv4) : bytesHex(x.toByteArray()));
        this.ranges.push({ lo: hx(lo), hi: hx(hi), vlan: p.vlan, flow, host: hostIds.length ? host : new Set() });
      }
    }
    this.empty = !this.flowHosts.size && !this.hostHosts.size && !this.ranges.length && !this.domains.length;
  }

  private add(m: FlowMask): void {
    this.lo |= m[0];
    this.hi |= m[1];
    this.own |= m[2];
  }

  private addrFlow(hex: string, vlan: number): void {
    const m = this.flowHosts.get(`${hex}|${vlan}`);
    if (m) this.add(m);
    for (const r of this.ranges) if (r.vlan === vlan && hex >= r.lo && hex <= r.hi) this.add(r.flow);
  }

  /**
   * The alerts a flow does not raise: its client or server is an excluded
   * host, or its server name / info is an excluded domain (or a subdomain of
   * one). Addresses as 16 bytes at `cliAt` / `srvAt` of `b`. Sets `lo` / `hi`
   * (risks) and `own` (FLOW_CHECK_ALERTS bits); returns whether any is set.
   */
  flowExcluded(b: Uint8Array, cliAt: number, srvAt: number, vlan: number, info: string, srvName: string): boolean {
    this.lo = 0;
    this.hi = 0;
    this.own = 0;
    if (this.flowHosts.size || this.ranges.length) {
      this.addrFlow(hex16(b, cliAt), vlan);
      this.addrFlow(hex16(b, srvAt), vlan);
    }
    if (this.domains.length && (info || srvName)) {
      const i = info.toLowerCase(), n = srvName.toLowerCase();
      for (const [d, m] of this.domains) if (domainMatch(i, d) || domainMatch(n, d)) this.add(m);
    }
    return (this.lo | this.hi | this.own) !== 0;
  }

  /** A host alert of this host is excluded (host subjects, exact or by network). */
  hostExcluded(ip: string, vlan: number, alertId: number): boolean {
    if (this.empty) return false;
    let hex: string;
    try {
      const a = ipaddr.parse(ip);
      hex = a.kind() === 'ipv4' ? mappedHex(a as ipaddr.IPv4) : bytesHex(a.toByteArray());
    } catch {
      return false;
    }
    const k = `${hex}|${vlan}`;
    if (this.hostHosts.has(k)) {
      const s = this.hostHosts.get(k)!;
      if (s === null || s.has(alertId)) return true;
    }
    for (const r of this.ranges) {
      if (r.vlan === vlan && hex >= r.lo && hex <= r.hi && (r.host === null || r.host.has(alertId))) return true;
    }
    return false;
  }
}

/** the name is the domain or one of its subdomains (INFO may carry a URL after the host: only its host part counts) */
function domainMatch(name: string, domain: string): boolean {
  if (!name) return false;
  const slash = name.indexOf('/');
  const host = slash < 0 ? name : name.slice(0, slash);
  return host === domain || (host.length > domain.length && host.endsWith(domain) && host[host.length - domain.length - 1] === '.');
}

// The flow decoder's copy (module state: one per thread), as catalogue.ts keeps the enabled risks.
let flowMatcher: ExclusionMatcher | null = null;

/** Sets the exclusions flows decoded from now on obey (the flow decoder thread or the writer's local sink). */
export function setFlowExclusions(rec: ExclusionRecord): void {
  const m = new ExclusionMatcher(rec);
  flowMatcher = m.empty ? null : m;
}

/** The decoder's matcher, null while there is no exclusion (the common case: one test per row). */
export const flowExclusions = (): ExclusionMatcher | null => flowMatcher;
