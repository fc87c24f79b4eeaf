// Cento-style INI rules file → policies. Sections:
//   [shunt]                          default = K, tcp = K, udp = K, <protocol> = K
//   [egress.aggregated]              default = <action>     (queue 0)
//   [egress.aggregated.<idx>]        default = <action>     (queue idx)
//   [egress.aggregated[.<idx>].subnet]   <cidr> = <action>
//   [egress.aggregated[.<idx>].protocol] <protocol> = <action>
//   the same for egress.balanced, and [bridge], [bridge.subnet], [bridge.protocol].
// Comments start with # or ;. Every error names the file and line.
import { readFileSync } from 'node:fs';

import {
  emptyPolicies, l4Proto, parseAction, parseCount, parseProtocol, parseSubnet, PolicyError, target, targetKey,
  type EgressPolicies, type TargetKind,
} from './policy.js';

export function parseRulesFile(path: string): EgressPolicies {
  return parseRules(readFileSync(path, 'utf8'), path);
}

export function parseRules(text: string, name = 'rules'): EgressPolicies {
  const p = emptyPolicies();
  let section = '';
  text.split(/\r?\n/).forEach((raw, i) => {
    const where = `${name}:${i + 1}`;
    const line = raw.replace(/\s[#;].*$/, '').trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) return;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) {
      section = sec[1].trim().toLowerCase();
      if (!sectionTarget(section)) throw new PolicyError(`${where}: unknown section [${sec[1]}]`);
      return;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new PolicyError(`${where}: expected 'key = value'`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (!section) throw new PolicyError(`${where}: '${key}' outside any section`);
    try {
      apply(p, section, key, value);
    } catch (e) {
      throw new PolicyError(`${where}: ${(e as Error).message}`);
    }
  });
  return p;
}

type Scope = 'default' | 'subnet' | 'protocol';

function sectionTarget(s: string): { kind: TargetKind | 'shunt'; queue?: number; scope: Scope } | null {
  if (s === 'shunt') return { kind: 'shunt', scope: 'default' };
  const m = /^(?:egress\.(aggregated|balanced)|(bridge))(?:\.(\d{1,4}))?(?:\.(subnet|protocol))?$/.exec(s);
  if (!m) return null;
  const kind = (m[1] ?? m[2]) as TargetKind;
  if (m[3] !== undefined && kind !== 'aggregated') return null;
  return { kind, queue: m[3] !== undefined ? Number(m[3]) : undefined, scope: (m[4] as Scope) ?? 'default' };
}

function apply(p: EgressPolicies, section: string, key: string, value: string): void {
  const t = sectionTarget(section)!;
  if (t.kind === 'shunt') {
    const n = parseCount(value, key);
    const k = key.toLowerCase();
    if (k === 'default') p.shunt.default = n;
    else if (isL4(k)) p.shunt.l4[k] = n;
    else p.shunt.protocols[parseProtocol(key)] = n;
    return;
  }
  const tp = target(p, targetKey(t.kind, t.queue));
  if (t.scope === 'subnet') tp.subnets[parseSubnet(key)] = parseAction(value);
  else if (t.scope === 'protocol') tp.protocols[parseProtocol(key)] = parseAction(value);
  else if (key.toLowerCase() === 'default') tp.default = parseAction(value);
  else throw new PolicyError(`unknown key '${key}' (only 'default' here; rules go in .subnet and .protocol sections)`);
}

function isL4(k: string): boolean {
  try {
    l4Proto(k);
    return true;
  } catch {
    return false;
  }
}
