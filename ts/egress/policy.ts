// The egress policy model: per target (each aggregated queue, the balanced
// queues, the bridge) a default action, subnet rules and application
// protocol rules; shunt packet counts. Validated here, turned into the
// engine's table (protocol names → nDPI ids) in one place.
import { BlockList, isIP } from 'node:net';

import { l7Id, l7Name } from '../bindings/engine.js';
import { normalizeCidr } from '../services/cidr.js';

export const ACTIONS = ['forward', 'discard', 'shunt', 'slice-l4', 'slice-l3'] as const;
export type Action = (typeof ACTIONS)[number];
export type TargetKind = 'aggregated' | 'balanced' | 'bridge';

export interface TargetPolicy {
  default: Action;
  /** normalised CIDR → action */
  subnets: Record<string, Action>;
  /** nDPI protocol name as the registry spells it → action */
  protocols: Record<string, Action>;
}

export interface EgressPolicies {
  shunt: {
    /** packets forwarded per flow by `shunt` (Cento's default 10) */
    default: number;
    /** per L4 protocol name (tcp, udp, …) */
    l4: Record<string, number>;
    /** per application protocol name */
    protocols: Record<string, number>;
  };
  /** 'aggregated:<queue>', 'balanced', 'bridge' */
  targets: Record<string, TargetPolicy>;
}

export class PolicyError extends Error {}

export const emptyPolicies = (): EgressPolicies => ({ shunt: { default: 10, l4: {}, protocols: {} }, targets: {} });

export const targetKey = (kind: TargetKind, queue?: number) => (kind === 'aggregated' ? `aggregated:${queue ?? 0}` : kind);

export function parseAction(v: string | undefined): Action {
  const a = (v ?? '').trim().toLowerCase();
  if (!(ACTIONS as readonly string[]).includes(a)) {
    throw new PolicyError(`invalid action '${v ?? ''}': one of ${ACTIONS.join(', ')}`);
  }
  return a as Action;
}

/** A CIDR (v4 or v6; a bare address is a host route), normalised to its network address. */
export function parseSubnet(v: string | undefined): string {
  const s = (v ?? '').trim();
  const n = normalizeCidr(s);
  if (!n) throw new PolicyError(`invalid subnet '${s}': expected CIDR such as 192.168.1.0/24 or 2001:db8::/32`);
  return n;
}

/**
 * An application protocol as the classifier names it: "TLS", "YouTube" or
 * "TLS.YouTube" (the rule is then the application's). Returns the
 * registry's spelling of the application and, when given, of the master.
 */
export function parseProtocolName(v: string | undefined): { name: string; master?: string } {
  let s: string;
  try {
    s = decodeURIComponent((v ?? '').trim());
  } catch {
    throw new PolicyError(`protocol name '${v}' is not valid percent-encoding`);
  }
  const unknown = () => new PolicyError(`unknown application protocol '${s}' (an nDPI protocol name, e.g. TLS, DNS, YouTube)`);
  const parts = s.split('.');
  if (!s || parts.length > 2) throw unknown();
  const ids = parts.map((p) => l7Id(p));
  if (ids.some((id) => id === undefined || id === 0)) throw unknown();
  const name = l7Name(0, ids[ids.length - 1]!);
  return parts.length === 2 ? { name, master: l7Name(0, ids[0]!) } : { name };
}

export const parseProtocol = (v: string | undefined): string => parseProtocolName(v).name;

const L4 = { icmp: 1, igmp: 2, tcp: 6, udp: 17, gre: 47, esp: 50, icmpv6: 58, sctp: 132 } as Record<string, number>;

export function l4Proto(name: string): number {
  const n = L4[name.trim().toLowerCase()];
  if (n === undefined) throw new PolicyError(`unknown L4 protocol '${name}' (one of ${Object.keys(L4).join(', ')})`);
  return n;
}

export function parseCount(v: string, what: string): number {
  const s = v.trim();
  if (!/^\d{1,9}$/.test(s)) throw new PolicyError(`${what}: '${v}' is not a packet count`);
  return Number(s);
}

export function target(p: EgressPolicies, key: string): TargetPolicy {
  return (p.targets[key] ??= { default: 'forward', subnets: {}, protocols: {} });
}

/** The engine's table. */
export interface NativeEgressPolicies {
  shunt: { default: number; l4: Record<number, number>; apps: Record<number, number> };
  targets: {
    target: TargetKind;
    queue?: number;
    default: Action;
    subnets: { cidr: string; action: Action }[];
    protocols: { id: number; action: Action }[];
  }[];
}

export function toNative(p: EgressPolicies): NativeEgressPolicies {
  const ids = (rec: Record<string, number>) => Object.fromEntries(Object.entries(rec).map(([k, v]) => [l7Id(k)!, v]));
  return {
    shunt: {
      default: p.shunt.default,
      l4: Object.fromEntries(Object.entries(p.shunt.l4).map(([k, v]) => [l4Proto(k), v])),
      apps: ids(p.shunt.protocols),
    },
    targets: Object.entries(p.targets).map(([key, t]) => {
      const [kind, q] = key.split(':') as [TargetKind, string | undefined];
      return {
        target: kind,
        ...(q !== undefined ? { queue: Number(q) } : {}),
        default: t.default,
        subnets: Object.entries(t.subnets).map(([cidr, action]) => ({ cidr, action })),
        protocols: Object.entries(t.protocols).map(([name, action]) => ({ id: l7Id(name)!, action })),
      };
    }),
  };
}

/** The rule in force for a subnet query: the exact rule, else the longest covering one, else the default. */
export function subnetInForce(t: TargetPolicy, cidr: string): { scope: 'subnet' | 'default'; match?: string; action: Action } {
  if (t.subnets[cidr]) return { scope: 'subnet', match: cidr, action: t.subnets[cidr] };
  const [addr, len] = cidr.split('/');
  const fam = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
  let best: string | undefined;
  for (const rule of Object.keys(t.subnets)) {
    const [ra, rl] = rule.split('/');
    if ((isIP(ra) === 6 ? 'ipv6' : 'ipv4') !== fam || +rl > +len) continue;
    const bl = new BlockList();
    bl.addSubnet(ra, +rl, fam);
    if (bl.check(addr, fam) && (!best || +rl > +best.split('/')[1])) best = rule;
  }
  return best ? { scope: 'subnet', match: best, action: t.subnets[best] } : { scope: 'default', action: t.default };
}
