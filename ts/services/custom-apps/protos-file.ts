// nDPI's protos.txt (ntopng's -p): one rule line per protocol and kind,
// `<rule>,<rule>,…@<Name>[=<id>]`, where a rule is
//   tcp:<port> | tcp:<lo>-<hi> | udp:…          ports (of either end; the server's first)
//   host:"<name>"                               a host name and its subdomains
//   ip:<a.b.c.d>[/<len>][:<port>]               an IPv4 address or network
//   ipv6:[<addr>][/<len>][:<port>]              an IPv6 one
// Read as nDPI's ndpi_handle_rule reads it (the last '@' splits, a name
// twice adds rules to the one protocol, symbolic ip: names resolve) and
// written back in ntopng's layout (protos_utils.generateProtosTxt: a
// comment per protocol, one rule per line with its id, a blank line).
// Lines nDPI would discard are reported, with their line number, not lost
// silently; nBPF filters and the risk-mask lines are reported as not served.
import { isIP } from 'node:net';

import { normalizeCidr } from '../cidr.js';

export type ProtoRule =
  | { match: 'port'; l4: 'tcp' | 'udp'; lo: number; hi: number }
  | { match: 'host'; value: string }
  /** net: normalised CIDR, or a name to resolve (symbolic: its addresses once resolved); port 0: any */
  | { match: 'ip'; v6: boolean; net: string; port: number; symbolic?: boolean; resolved?: string[] };

export interface ProtoEntry {
  name: string;
  /** the id given with `=id`, when given */
  id?: number;
  rules: ProtoRule[];
}

/**
 * A risk exception (ip_risk_mask / ipv6_risk_mask / host_risk_mask): the
 * risks of flows to or from the network, or named so, are ANDed with mask.
 */
export interface RiskMask {
  kind: 'ip' | 'host';
  /** normalised CIDR, or a host name (with its subdomains) */
  value: string;
  /** the 64-bit mask, decimal */
  mask: string;
}

export interface ParseIssue {
  line: number;
  text: string;
  reason: string;
}

// nDPI turns these into '_' in a protocol name (ndpi_handle_rule)
const NAME_CHARS = /[/&^:;'" ]/g;
const HOST_NAME = /^(\*\.)?[a-z0-9_]([a-z0-9_.-]{0,251}[a-z0-9_.-])?$/i;

const port = (s: string): number | null => (/^\d{1,5}$/.test(s) && +s <= 65535 ? +s : null);

/** One rule's text ("tcp:81", 'host:"x.com"', "ip:10.0.0.0/8:443"); a string: why it is not one. */
export function parseRule(text: string): ProtoRule | string {
  const s = text.trim();
  const colon = s.indexOf(':');
  const kind = colon < 0 ? '' : s.slice(0, colon).toLowerCase();
  const value = s.slice(colon + 1).trim();
  if (kind === 'tcp' || kind === 'udp') {
    const m = /^(\d+)(?:-(\d+))?$/.exec(value);
    const lo = m ? port(m[1]) : null;
    const hi = m ? port(m[2] ?? m[1]) : null;
    if (lo === null || hi === null || lo > hi) return `'${value}' is not a port or a port range lo-hi (0-65535)`;
    return { match: 'port', l4: kind, lo, hi };
  }
  if (kind === 'host') {
    // "*.example.com" and ".example.com" are "example.com" (its subdomains are matched anyway)
    const name = value.replace(/^"(.*)"$/, '$1').trim().toLowerCase().replace(/^\*?\./, '');
    if (!name || name.length > 253 || !HOST_NAME.test(name)) return `'${value}' is not a host name`;
    return { match: 'host', value: name };
  }
  if (kind === 'ip' || kind === 'ipv6') return parseAddressRule(value, kind === 'ipv6');
  if (kind === 'nbpf') return 'nBPF filters are not served (nDPI skips them too when built without nBPF)';
  return `unknown rule kind '${kind || s}' (tcp:, udp:, host:, ip:, ipv6:)`;
}

// ip:1.2.3.4, ip:1.2.3.0/24, ip:1.2.3.4:443, ip:1.2.3.0/24:443, ip:www.example.org;
// ipv6:[::1], ipv6:[2001:db8::]/32, ipv6:[::1]:443, ipv6:[2001:db8::]/32:443
function parseAddressRule(value: string, v6: boolean): ProtoRule | string {
  let addr: string, len: string | undefined, p: string | undefined;
  const bad = `'${value}' is not an ${v6 ? 'IPv6' : 'IPv4'} address, network or host name (with an optional :port)`;
  if (value.startsWith('[')) {
    const m = /^\[([^\]]+)\](?:\/(\d{1,3}))?(?::(\d{1,5}))?$/.exec(value);
    if (!m) return bad;
    [, addr, len, p] = m;
    v6 = true;
  } else {
    const m = /^([^/:]+)(?:\/(\d{1,2}))?(?::(\d{1,5}))?$/.exec(value);
    if (!m) return bad;
    [, addr, len, p] = m;
  }
  const portNum = p === undefined ? 0 : port(p);
  if (portNum === null) return bad;
  const family = isIP(addr);
  if (!family) {
    // a symbolic address: nDPI resolves it when loading (getaddrinfo)
    if (len !== undefined || !HOST_NAME.test(addr) || addr.startsWith('*.')) return bad;
    return { match: 'ip', v6, net: addr.toLowerCase(), port: portNum, symbolic: true };
  }
  if ((family === 6) !== v6) return bad;
  const net = normalizeCidr(len === undefined ? addr : `${addr}/${len}`);
  if (!net) return bad;
  return { match: 'ip', v6, net, port: portNum };
}

/**
 * A rule as the application editor gives it (ntopng's getProtosTxtRule):
 * the forms above, or a bare IPv4 address or network (an ip: rule).
 */
export function parseApiRule(text: string): ProtoRule | string {
  const s = text.trim();
  if (!s.includes(':') && normalizeCidr(s)) return parseAddressRule(s, false);
  return parseRule(s);
}

/** A rule's text in the file. */
export function ruleText(r: ProtoRule): string {
  if (r.match === 'port') return `${r.l4}:${r.lo === r.hi ? r.lo : `${r.lo}-${r.hi}`}`;
  if (r.match === 'host') return `host:"${r.value}"`;
  const p = r.port ? `:${r.port}` : '';
  if (!r.v6) return `ip:${r.symbolic || !r.net.endsWith('/32') ? r.net : r.net.slice(0, -3)}${p}`;
  if (r.symbolic) return `ipv6:${r.net}${p}`;
  const [a, len] = r.net.split('/');
  return `ipv6:[${a}]${len === '128' ? '' : `/${len}`}${p}`;
}

/** The protocol name as nDPI keeps it (the characters it cannot hold become '_'). */
export const protoName = (s: string) => s.trim().replace(NAME_CHARS, '_');

export interface ProtosTxt {
  protocols: ProtoEntry[];
  riskMasks: RiskMask[];
  /** valid lines not served (nBPF filters, trusted issuer DNs): written back as they were */
  kept: string[];
  issues: ParseIssue[];
}

/** `<type>:<key>=<mask>` (nDPI's mask rules, no '@'): the exception, or why it is not one. */
function parseRiskMask(line: string): RiskMask | string | null {
  const m = /^(ip_risk_mask|ipv6_risk_mask|host_risk_mask):(.+)=(-?\d{1,20})$/.exec(line);
  if (!m) return null;
  let mask = BigInt(m[3]);
  if (mask < 0n) mask = BigInt.asUintN(64, mask); // atoll's two's complement
  if (mask >= 1n << 64n) return `mask ${m[3]} is not 64-bit`;
  if (m[1] === 'host_risk_mask') {
    const r = parseRule(`host:${m[2]}`);
    return typeof r === 'string' ? r : { kind: 'host', value: r.match === 'host' ? r.value : '', mask: mask.toString() };
  }
  const v6 = m[1] === 'ipv6_risk_mask';
  const key = m[2].replace(/^\[([^\]]+)\](\/\d+)?$/, '$1$2');
  const net = isIP(key.split('/')[0]) === (v6 ? 6 : 4) ? normalizeCidr(key) : null;
  return net ? { kind: 'ip', value: net, mask: mask.toString() } : `'${m[2]}' is not an ${v6 ? 'IPv6' : 'IPv4'} address or network`;
}

/** The protocols a protos.txt defines, in the order of their first line, its risk exceptions, and the lines left out. */
export function parseProtosTxt(text: string): ProtosTxt {
  const byName = new Map<string, ProtoEntry>();
  const issues: ParseIssue[] = [];
  const riskMasks: RiskMask[] = [];
  const kept: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '').trim();
    if (!line || line.startsWith('#')) continue;
    const issue = (reason: string) => issues.push({ line: i + 1, text: line.slice(0, 200), reason });
    const at = line.lastIndexOf('@');
    if (at < 0) {
      const r = parseRiskMask(line);
      if (r && typeof r !== 'string') riskMasks.push(r);
      else if (r) issue(r);
      else if (line.startsWith('trusted_issuer_dn:')) {
        kept.push(line);
        issue('trusted issuer DNs are not served (kept in the file)');
      } else issue('no @<protocol>');
      continue;
    }
    if (line.startsWith('nbpf:')) {
      kept.push(line);
      issue('nBPF filters are not served, as nDPI built without nBPF (kept in the file)');
      continue;
    }
    let name = protoName(line.slice(at + 1));
    let id: number | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      const n = name.slice(eq + 1);
      if (!/^\d{1,5}$/.test(n) || +n > 65535) {
        issue(`'${n}' is not a protocol id`);
        continue;
      }
      id = +n;
      name = name.slice(0, eq);
    }
    if (!name || name.length > 64) {
      issue('protocol names have 1-64 characters');
      continue;
    }
    const rules: ProtoRule[] = [];
    for (const part of line.slice(0, at).split(',')) {
      const r = parseRule(part);
      if (typeof r === 'string') issue(r);
      else rules.push(r);
    }
    const key = name.toLowerCase();
    if (!rules.length && !byName.has(key)) continue;  // nothing left to define it by (reported above)
    const e = byName.get(key) ?? { name, rules: [] };
    if (id !== undefined && e.id !== undefined && e.id !== id) {
      issue(`${name} already has id ${e.id}`);
      continue;
    }
    if (id !== undefined) e.id = id;
    e.rules.push(...rules);
    byName.set(key, e);
  }
  return { protocols: [...byName.values()], riskMasks, kept, issues };
}

/**
 * The file ntopng writes (generateProtosTxt): per protocol a comment, its
 * rules with its id, a blank line; then what ntopng would drop and nDPI
 * reads (the risk exceptions) or keeps (lines not served here), so nothing
 * of the operator's is lost.
 */
export function renderProtosTxt(
  /** id undefined: one of nDPI's protocols (written without one) */
  protocols: readonly { name: string; id?: number; rules: readonly ProtoRule[] }[],
  extra: { riskMasks?: readonly RiskMask[]; kept?: readonly string[] } = {},
): string {
  let out = '';
  for (const p of protocols) {
    out += `# ${p.name}\n`;
    for (const r of p.rules) out += `${ruleText(r)}@${p.name}${p.id === undefined ? '' : `=${p.id}`}\n`;
    out += '\n';
  }
  const masks = extra.riskMasks ?? [];
  if (masks.length) {
    out += '# risk exceptions\n';
    for (const m of masks) {
      if (m.kind === 'host') out += `host_risk_mask:"${m.value}"=${m.mask}\n`;
      else if (isIP(m.value.split('/')[0]) === 6) out += `ipv6_risk_mask:[${m.value.split('/')[0]}]/${m.value.split('/')[1]}=${m.mask}\n`;
      else out += `ip_risk_mask:${m.value}=${m.mask}\n`;
    }
    out += '\n';
  }
  for (const k of extra.kept ?? []) out += `${k}\n`;
  return out;
}
