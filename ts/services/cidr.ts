// CIDR text, checked strictly (node's parser: no octal '010', no short
// '10.0.0') and normalised to the network address (ipaddr.js); a bare
// address is a host route. Shared by users' allowed networks and egress rules.
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

export function normalizeCidr(text: string): string | null {
  const s = text.trim();
  const addr = s.split('/')[0];
  if (!isIP(addr)) return null;
  try {
    const cidr = s.includes('/') ? s : `${s}/${isIP(addr) === 4 ? 32 : 128}`;
    const [a, prefix] = ipaddr.parseCIDR(cidr);
    const net = a.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
    return `${net.toString()}/${prefix}`;
  } catch {
    return null;
  }
}

/** A dotted IPv4 address as an unsigned number (the caller checked it is IPv4). */
export const ipv4ToNumber = (ip: string): number => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);

export const numberToIpv4 = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** The network number of an IPv4 address (as a number) under a prefix length. */
export const ipv4Network = (n: number, prefix: number): number => Math.floor(n / 2 ** (32 - prefix)) * 2 ** (32 - prefix);

/**
 * The networks of `allowed` (undefined: everything) inside `cidr`, both
 * normalised: two CIDRs are nested or apart, so each allowed one is kept
 * whole, narrowed to `cidr`, or dropped. An empty list matches nothing.
 */
export function narrowNetworks(allowed: readonly string[] | undefined, cidr: string): string[] {
  if (!allowed) return [cidr];
  const [c, cp] = ipaddr.parseCIDR(cidr);
  const out: string[] = [];
  for (const a of allowed) {
    const [n, np] = ipaddr.parseCIDR(a);
    if (n.kind() !== c.kind()) continue;
    if (np >= cp && n.match(c, cp)) out.push(a);
    else if (cp > np && c.match(n, np)) out.push(cidr);
  }
  return out;
}
