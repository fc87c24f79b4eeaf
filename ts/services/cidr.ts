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
