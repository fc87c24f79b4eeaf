// ⑧ The network configuration ntopng keeps for its unexpected-server and
// unexpected-gateway checks (ntopng.prefs.nw_config_<key> in its Redis, read
// by Prefs::reloadServersConfiguration / ServerConfiguration): per key, a
// comma-separated list of addresses or CIDRs, each with an optional @VLAN
// (spaces ignored). Kept in LMDB; the flow checks get the parsed lists now
// and after every change.
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';
import type { Database } from 'lmdb';

import { parseHostSubject } from '../alerts/exclusion-table.js';
import type { ConfigStore } from '../config-store.js';

/** get/network/config.lua's keys, in its order */
export const NETWORK_CONFIG_KEYS = ['dns_list', 'ntp_list', 'dhcp_list', 'smtp_list', 'gateway_list'] as const;
export type NetworkConfigKey = (typeof NETWORK_CONFIG_KEYS)[number];
export type NetworkConfigValues = Record<NetworkConfigKey, string>;

/** One parsed entry: a network (IPv4 as ::ffff:a.b.c.d, the engine's form) on a VLAN. */
export interface ServerEntry {
  vlan: number;
  /** 16 address bytes */
  bytes: number[];
  /** prefix length over the 16 bytes */
  prefix: number;
}

export class NetworkConfigError extends Error {}

const MAX_LIST = 16 * 1024;

/** A list's entries; throws NetworkConfigError naming the first bad one. */
export function parseServerList(text: string): ServerEntry[] {
  if (text.length > MAX_LIST) throw new NetworkConfigError(`the list is longer than ${MAX_LIST} characters`);
  const out: ServerEntry[] = [];
  for (const raw of text.replace(/ /g, '').split(',')) {
    if (!raw) continue;
    const at = raw.lastIndexOf('@');
    if (at >= 0 && (!/^\d{1,4}$/.test(raw.slice(at + 1)) || Number(raw.slice(at + 1)) > 4095)) throw new NetworkConfigError(`'${raw}': the VLAN after @ must be 0-4095`);
    // the same subject form as alert exclusions (address or CIDR, @vlan); the address as node reads it (no '010', no '10.1')
    const p = parseHostSubject(raw);
    if (!p || !isIP((at < 0 ? raw : raw.slice(0, at)).split('/')[0])) throw new NetworkConfigError(`'${raw}': not an address or a CIDR`);
    const [a, len] = p.net;
    const v4 = a.kind() === 'ipv4';
    out.push({ vlan: p.vlan, bytes: v4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...a.toByteArray()] : a.toByteArray(), prefix: len + (v4 ? 96 : 0) });
  }
  return out;
}

/** Whether the 16 bytes at `at` of `buf`, on `vlan`, fall in one of the entries. */
export function inServerList(list: readonly ServerEntry[], buf: Uint8Array, at: number, vlan: number): boolean {
  outer: for (const e of list) {
    if (e.vlan !== vlan) continue;
    let bits = e.prefix;
    for (let i = 0; bits > 0; i++, bits -= 8) {
      const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
      if ((buf[at + i] & mask) !== (e.bytes[i] & mask)) continue outer;
    }
    return true;
  }
  return false;
}

const EMPTY: NetworkConfigValues = { dns_list: '', ntp_list: '', dhcp_list: '', smtp_list: '', gateway_list: '' };

export class NetworkConfig {
  private values: NetworkConfigValues;
  private readonly listeners = new Set<() => void>();

  private constructor(private readonly db: Database<NetworkConfigValues, string>) {
    const v = db.get('config');
    this.values = { ...EMPTY };
    // what was stored by this version: each list kept only if it still parses
    for (const k of NETWORK_CONFIG_KEYS) if (v && typeof v[k] === 'string' && ok(v[k])) this.values[k] = v[k];
  }

  static open(store: ConfigStore): NetworkConfig {
    return new NetworkConfig(store.db<NetworkConfigValues>('network_config'));
  }

  get(): NetworkConfigValues {
    return { ...this.values };
  }

  /** The parsed list of a key. */
  list(key: NetworkConfigKey): ServerEntry[] {
    return parseServerList(this.values[key]);
  }

  /** Whether an address on a VLAN is in a key's list (ntopng's ServerConfiguration::findAddress). */
  contains(key: NetworkConfigKey, ip: string, vlan: number): boolean {
    if (!isIP(ip)) return false;
    const a = ipaddr.parse(ip);
    const bytes = a.kind() === 'ipv4' ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...a.toByteArray()] : a.toByteArray();
    return inServerList(this.list(key), Uint8Array.from(bytes), 0, vlan);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sets some lists (each checked first: nothing changes when one is bad). */
  async set(changes: Partial<NetworkConfigValues>): Promise<void> {
    const next = { ...this.values };
    for (const [k, v] of Object.entries(changes)) {
      if (!(NETWORK_CONFIG_KEYS as readonly string[]).includes(k)) throw new NetworkConfigError(`unknown key '${k}' (one of ${NETWORK_CONFIG_KEYS.join(', ')})`);
      if (typeof v !== 'string') throw new NetworkConfigError(`'${k}': the value must be a string`);
      parseServerList(v);
      next[k as NetworkConfigKey] = v;
    }
    await this.db.put('config', next);
    this.values = next;
    for (const l of this.listeners) l();
  }
}

function ok(text: string): boolean {
  try {
    parseServerList(text);
    return true;
  } catch {
    return false;
  }
}
