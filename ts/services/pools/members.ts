// ⑧ Host pool members as ntopng writes them: a MAC ('AA:BB:CC:DD:EE:FF'),
// or an address or network with its VLAN ('192.168.1.0/24@0'). Relaxed
// forms are accepted as ntopng's checkPoolMember(…, fix_relaxed) does: no
// prefix is a host (/32, /128), no '@' is VLAN 0. A member is kept in one
// canonical spelling (upper-case MAC; address masked to its prefix, IPv6 as
// RFC 5952) so the same host is never two members.
import ipaddr from 'ipaddr.js';

import type { HostPoolMember } from '../../bindings/engine.js';

export interface ParsedMember {
  /** the canonical member text */
  member: string;
  kind: 'mac' | 'net' | 'ip';
  /** MAC: the MAC; net/ip: the address (net: with /prefix) as ntopng's member details show it */
  name: string;
  vlan: number;
  /** net/ip only */
  addr?: ipaddr.IPv4 | ipaddr.IPv6;
  prefix?: number;
}

const MAC = /^([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2})$/i;

/** The member in canonical form, or null when it is not a MAC, an address or a CIDR (with an optional @VLAN 0-4095). */
export function parseMember(text: string): ParsedMember | null {
  const t = text.trim();
  if (!t || t.length > 64) return null;
  if (MAC.test(t)) {
    const mac = t.toUpperCase();
    return { member: mac, kind: 'mac', name: mac, vlan: 0 };
  }
  let rest = t;
  let vlan = 0;
  const at = t.indexOf('@');
  if (at >= 0) {
    const v = t.slice(at + 1);
    if (at === 0 || !/^\d{1,4}$/.test(v) || Number(v) > 4095) return null;
    vlan = Number(v);
    rest = t.slice(0, at);
  }
  const slash = rest.indexOf('/');
  const addrText = slash < 0 ? rest : rest.slice(0, slash);
  // the address as written in full (ipaddr.js would also take '10.1' or octal forms)
  if (!ipaddr.IPv4.isValidFourPartDecimal(addrText) && !(addrText.includes(':') && ipaddr.IPv6.isValid(addrText))) return null;
  let addr = ipaddr.parse(addrText);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = rest.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) return null;
    prefix = Number(p);
  }
  const bytes = addr.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = prefix - i * 8;
    bytes[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  const masked = ipaddr.fromByteArray(bytes);
  const text2 = masked.toString();
  return prefix === max
    ? { member: `${text2}/${prefix}@${vlan}`, kind: 'ip', name: text2, vlan, addr: masked, prefix }
    : { member: `${text2}/${prefix}@${vlan}`, kind: 'net', name: `${text2}/${prefix}`, vlan, addr: masked, prefix };
}

/** host_pools:get_member_details: name, vlan, member, type, hostkey (ntopng's hostinfo2hostkey: '@vlan' only when not 0) */
export function memberDetails(m: ParsedMember) {
  return { name: m.name, vlan: m.vlan, member: m.member, type: m.kind, hostkey: m.vlan ? `${m.name}@${m.vlan}` : m.name };
}

/** The engine's form of a host pool's members. */
export function engineMember(m: ParsedMember, pool: number): HostPoolMember {
  return m.kind === 'mac' ? { mac: m.member.toLowerCase(), pool } : { net: `${m.addr!.toString()}/${m.prefix}`, vlan: m.vlan, pool };
}

/**
 * The pool of an address on a VLAN by the members' networks (longest prefix
 * first, as the engine's table): what routes a host alert to its pool's
 * recipients without asking the engine.
 */
export class NetPoolMatcher {
  /** by prefix length (longest first): 'kind/vlan/masked address' → pool */
  private readonly levels: { prefix: number; v4: boolean; nets: Map<string, number> }[] = [];

  add(m: ParsedMember, pool: number): void {
    if (m.kind === 'mac') return;
    const v4 = m.addr!.kind() === 'ipv4';
    let l = this.levels.find((x) => x.prefix === m.prefix && x.v4 === v4);
    if (!l) {
      this.levels.push((l = { prefix: m.prefix!, v4, nets: new Map() }));
      this.levels.sort((a, b) => b.prefix - a.prefix);
    }
    l.nets.set(`${m.vlan}/${m.addr!.toString()}`, pool);
  }

  lookup(ip: string, vlan: number): number | undefined {
    if (!ipaddr.isValid(ip)) return undefined;
    let a = ipaddr.parse(ip);
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
    const v4 = a.kind() === 'ipv4';
    const bytes = a.toByteArray();
    for (const l of this.levels) {
      if (l.v4 !== v4) continue;
      const b = bytes.slice();
      for (let i = 0; i < b.length; i++) {
        const keep = l.prefix - i * 8;
        b[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (0xff << (8 - keep)) & 0xff;
      }
      const hit = l.nets.get(`${vlan}/${ipaddr.fromByteArray(b).toString()}`);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
}
