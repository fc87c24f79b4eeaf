// ⑧ The monitored interfaces: one Engine per -i argument, its ifid being the
// position on the command line. Later services (REST API, history) look
// engines up here.
import { statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { basename, join } from 'node:path';

import { DEFAULT_LOCAL_NETWORKS, Engine, type EgressConfig, type EngineOptionsInput } from '../bindings/engine.js';

export interface InterfaceSpec {
  /** interface name or capture file path ('bridge:A,B' for an inline bridge) */
  source: string;
  loop?: boolean;
  /** egress queues fed by this interface, or an inline bridge (then `source` is only its name) */
  egress?: EgressConfig;
}

export interface MonitoredInterface {
  ifid: number;
  /** what ntopng shows as ifname: the device, or the capture file path */
  ifname: string;
  isFile: boolean;
  engine: Engine;
  /** the interface's own addresses in CIDR form (live interfaces only) */
  addresses: string[];
  /** expired flows taken from the engine */
  expired: number;
  /** the directory of its packet recording (--record), else undefined */
  recordDir?: string;
}

/** Takes an interface's expired-flow records (the flow writer). */
export interface ExpiredSink {
  attach(i: MonitoredInterface): void;
}

export interface EngineDefaults extends Omit<EngineOptionsInput, 'files' | 'iface' | 'loop' | 'localNetworks' | 'record'> {
  localNetworks?: string[];
  /** record every interface's packets, each in <dir>/<ifid>, keeping at most maxBytes each */
  record?: { dir: string; maxBytes: number };
}

/** A source is a capture file when a regular file of that name exists. */
export function isCaptureFile(source: string): boolean {
  try {
    return statSync(source).isFile();
  } catch {
    return false;
  }
}

/** IPv4/IPv6 addresses of a local interface as CIDRs (empty if unknown). */
export function interfaceAddresses(name: string): string[] {
  const list = networkInterfaces()[name] ?? [];
  return list.map((a) => {
    const prefix = a.cidr ? a.cidr.split('/')[1] : a.family === 'IPv4' ? '32' : '128';
    return `${a.address.split('%')[0]}/${prefix}`;
  });
}

export class Interfaces {
  readonly list: MonitoredInterface[] = [];

  constructor(specs: InterfaceSpec[], defaults: EngineDefaults = {}) {
    const { localNetworks = DEFAULT_LOCAL_NETWORKS, record, ...engineOpts } = defaults;
    try {
      specs.forEach((spec, ifid) => {
        const bridge = spec.egress?.bridge;
        const isFile = !bridge && isCaptureFile(spec.source);
        const addresses = isFile ? [] : bridge ? bridge.flatMap(interfaceAddresses) : interfaceAddresses(spec.source);
        const recordDir = record ? join(record.dir, String(ifid)) : undefined;
        const engine = new Engine({
          ...engineOpts,
          ...(recordDir ? { record: { dir: recordDir, maxBytes: record!.maxBytes } } : {}),
          ...(bridge ? {} : isFile ? { files: [spec.source], loop: spec.loop ?? false } : { iface: spec.source }),
          ...(spec.egress ? { egress: spec.egress } : {}),
          localNetworks: [...localNetworks, ...addresses],
        });
        this.list.push({ ifid, ifname: spec.source, isFile, engine, addresses, expired: 0, recordDir });
      });
    } catch (e) {
      this.close();
      throw e;
    }
  }

  get(ifid: number): MonitoredInterface | undefined {
    return this.list[ifid];
  }

  /**
   * Starts the engines. Their expired flows go to `sink` (the historical
   * store's writer); without one they are counted and let go.
   */
  start(sink?: ExpiredSink | null, log: (line: string) => void = (l) => console.error(l)): void {
    for (const i of this.list) {
      watchRefusals(i, log);
      if (sink) sink.attach(i);
      else
        i.engine.onExpired(() => {
          i.expired += i.engine.drainExpired().length;
        });
      i.engine.start();
    }
  }

  close(): void {
    for (const i of this.list) i.engine.close();
  }

  static shortName(i: MonitoredInterface): string {
    return i.isFile ? basename(i.ifname) : i.ifname;
  }
}

/** The engine counters of state its full tables and pools refused, with what to raise. */
const REFUSALS = [
  ['flow_table_full', 'flow table full', 'flows refused (raise --max-flows or POST edit/monitor/incr_flows)'],
  ['host_table_full', 'host table full', 'hosts refused (raise --max-hosts or POST edit/monitor/incr_hosts)'],
  ['mac_table_full', 'MAC table full', 'devices refused'],
  ['host_l7_pool_full', 'host L7 pool full', 'hosts whose application counters stopped (raise --l7-entries-per-host)'],
  ['host_contacts_full', 'host L7 pool full (contacts)', 'contact counts (server contacts, countries, domains, no-TX peers), blacklisted and one-way flow counts, and used ports or ICMP types past a host\'s list not kept (raise --l7-entries-per-host)'],
  ['host_side_full', 'host side pools full', 'hosts without their side state — a local host\'s top sites, ICMP, used ports or behavioural counters, a remote host\'s behavioural counters (raise --host-side-share)'],
  ['flow_info_full', 'classifier pool full', 'flows classified without their risks and metadata (raise --flow-info-share)'],
  ['flow_meta_full', 'metadata pool full', 'flows without their protocol metadata (raise --flow-meta-share)'],
  ['flow_score_full', 'flow score pool full', 'alerted flows whose score did not reach their hosts'],
  ['flow_iec_full', 'IEC 60870-5-104 pool full', 'IEC flows not checked'],
] as const;

/**
 * A full table refuses state silently in the packet path: at each tick
 * (a minute of packet time) the refusals since the last one are logged,
 * the first one at once and then the rate while they go on.
 */
function watchRefusals(i: MonitoredInterface, log: (line: string) => void): void {
  const last: Record<string, number> = {};
  const seen = new Set<string>();
  i.engine.addTickListener(() => {
    const s = i.engine.stats() as unknown as Record<string, number>;
    for (const [key, what, unit] of REFUSALS) {
      const n = s[key] ?? 0, d = n - (last[key] ?? 0);
      last[key] = n;
      if (d <= 0) continue;
      log(`flowgate: ifid ${i.ifid}: ${what}: ${d} ${unit} in the last minute${seen.has(key) ? '' : ' (first refusal)'} (${n} since start)`);
      seen.add(key);
    }
  });
}
