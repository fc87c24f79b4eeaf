// ⑧ Device protocol policies (ntopng's presets_utils.lua and the device
// protocols page): per device type (a MAC's DeviceType: 1 printer, 2 video,
// 7 tv, 10 nas, 11 multimedia, 12 iot …) the application protocols a device
// may use as client and as server. Types with one of ntopng's presets allow
// the preset's protocols and deny the rest; the others allow everything.
// The operator's changes (edit_device_protocols.lua) are kept in LMDB
// (db `device_protocols`, `<devtype>/<client|server>/<protocol id>` →
// '0' deny / '1' allow) on top of the presets, as ntopng keeps them in Redis.
// The flow check device_protocol_not_allowed reads the result (params of
// the flow-record checks): ntopng's Ntop::getDeviceAllowedProtocolStatus.
import type { Database } from 'lmdb';

import { l7Id } from '../../bindings/engine.js';
import type { ConfigStore } from '../config-store.js';

export const DROP = '0';
export const ALLOW = '1';
export type Role = 'client' | 'server';
export const ROLES: readonly Role[] = ['client', 'server'];

/** ntopng's device types (discover_utils id2label), index = DeviceType */
export const DEVICE_TYPES = ['unknown', 'printer', 'video', 'workstation', 'laptop', 'tablet', 'phone', 'tv', 'networking', 'wifi', 'nas', 'multimedia', 'iot'] as const;

// presets_utils.init: nDPI names per role; basic_policy's ids are nDPI's
// (MDNS 8, NTP 9, NetBIOS 10, ICMP 81, IGMP 82, ICMPV6 102, DHCPV6 103, UPnP 153, LLMNR 154)
const BASIC = { client: ['MDNS', 'NTP', 'NetBIOS', 'ICMP', 'IGMP', 'ICMPV6', 'DHCPV6', 'UPnP', 'LLMNR'], server: ['ICMP', 'ICMPV6'] };
const IOT = { client: [...BASIC.client, 'HTTP', 'TLS'], server: [...BASIC.server, 'HTTP', 'TLS'] };
const MULTIMEDIA = {
  client: [...BASIC.client, 'HTTP', 'TLS', 'RTP', 'RTSP', 'NetFlix', 'YouTube', 'AmazonVideo', 'AppleiTunes', 'Deezer', 'LastFM', 'SoundCloud', 'Spotify', 'Skype_Teams', 'Skype_TeamsCall', 'SSDP'],
  server: [...BASIC.server, 'TLS', 'Sonos'],
};
const PRESETS: Record<string, { client: string[]; server: string[] }> = {
  iot: IOT,
  video: { client: IOT.client, server: [...IOT.server, 'RTP', 'RTSP'] },
  multimedia: MULTIMEDIA,
  tv: MULTIMEDIA,
  nas: { client: BASIC.client, server: [...BASIC.server, 'HTTP', 'FTP_CONTROL', 'FTP_DATA', 'AFP', 'NFS', 'RSYNC', 'TFTP', 'TLS'] },
  printer: { client: BASIC.client, server: [...BASIC.server, 'HTTP', 'TLS', 'SNMP'] },
};

/** The allowed protocol ids of one device type, per role; null: everything allowed. */
export type DevicePolicyTable = ({ client: number[] | null; server: number[] | null } | null)[];

export class DeviceProtocolError extends Error {}

export class DeviceProtocols {
  private readonly listeners = new Set<() => void>();

  private constructor(private readonly db: Database<string, string>) {}

  static open(store: ConfigStore): DeviceProtocols {
    return new DeviceProtocols(store.db<string>('device_protocols'));
  }

  /** a device type id, checked: 0-12 */
  static devtype(v: unknown): number {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,2}$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < 0 || n >= DEVICE_TYPES.length) throw new DeviceProtocolError(`device_type must be a device type id 0-${DEVICE_TYPES.length - 1}`);
    return n;
  }

  /** the presets' names resolved to protocol ids once: `<devtype>/<role>` → ids */
  private readonly presetIds = new Map<string, Set<number>>();

  /** The preset's allowed ids of a role (undefined: the type has no preset). */
  private preset(devtype: number, role: Role): Set<number> | undefined {
    const p = PRESETS[DEVICE_TYPES[devtype]!];
    if (!p) return undefined;
    const key = `${devtype}/${role}`;
    let ids = this.presetIds.get(key);
    if (!ids) this.presetIds.set(key, (ids = new Set(p[role].map((n) => l7Id(n)).filter((x): x is number => x !== undefined))));
    return ids;
  }

  /** The operator's changes of a type and role: protocol id → '0' | '1'. */
  private custom(devtype: number, role: Role): Map<number, string> {
    const out = new Map<number, string>();
    for (const { key, value } of this.db.getRange({ start: `${devtype}/${role}/`, end: `${devtype}/${role}/~` })) {
      out.set(Number(String(key).split('/')[2]), value);
    }
    return out;
  }

  /** The action of one protocol for a type and role (presets_utils.isProtoAllowed). */
  action(devtype: number, role: Role, protoId: number): string {
    const c = this.custom(devtype, role).get(protoId);
    if (c !== undefined) return c;
    const p = this.preset(devtype, role);
    return !p || p.has(protoId) ? ALLOW : DROP;
  }

  /** Every protocol's action of a type, per role (get_device_protocols.lua's conf). */
  policies(devtype: number, ids: readonly number[]): Map<number, { client: string; server: string }> {
    const out = new Map<number, { client: string; server: string }>();
    const [pc, ps] = [this.preset(devtype, 'client'), this.preset(devtype, 'server')];
    const [cc, cs] = [this.custom(devtype, 'client'), this.custom(devtype, 'server')];
    for (const id of ids) {
      out.set(id, {
        client: cc.get(id) ?? (!pc || pc.has(id) ? ALLOW : DROP),
        server: cs.get(id) ?? (!ps || ps.has(id) ? ALLOW : DROP),
      });
    }
    return out;
  }

  /**
   * edit_device_protocols.lua: actions per protocol and role. A change equal
   * to the preset's answer is not kept (presets_utils.updateDeviceProto);
   * one that differs, or any change of a protocol already changed, is.
   */
  async update(devtype: number, changes: readonly { role: Role; protoId: number; action: string }[]): Promise<number> {
    for (const c of changes) if (c.action !== ALLOW && c.action !== DROP) throw new DeviceProtocolError(`${c.role}_policy_${c.protoId}: the action is ${DROP} (alert) or ${ALLOW} (allow)`);
    let n = 0;
    await this.db.transaction(() => {
      for (const c of changes) {
        const key = `${devtype}/${c.role}/${c.protoId}`;
        const p = this.preset(devtype, c.role);
        const presetAction = !p || p.has(c.protoId) ? ALLOW : DROP;
        if (this.db.get(key) !== undefined || c.action !== presetAction) {
          this.db.put(key, c.action);
          n++;
        }
      }
    });
    this.emit();
    return n;
  }

  /** The reset to the presets (action=reset). */
  async reset(devtype: number): Promise<void> {
    await this.db.transaction(() => {
      for (const key of this.db.getKeys({ start: `${devtype}/`, end: `${devtype}/~` })) this.db.remove(key);
    });
    this.emit();
  }

  /** What the flow check reads: per device type, the allowed ids of each role, null where everything is allowed. */
  table(ids: readonly number[]): DevicePolicyTable {
    return DEVICE_TYPES.map((_, t) => {
      const byRole = ROLES.map((role) => {
        const p = this.preset(t, role);
        const c = this.custom(t, role);
        if (!p && ![...c.values()].includes(DROP)) return null;
        return ids.filter((id) => (c.get(id) ?? (!p || p.has(id) ? ALLOW : DROP)) === ALLOW);
      });
      const [client = null, server = null] = byRole;
      return client === null && server === null ? null : { client, server };
    });
  }

  onChange(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  private emit(): void {
    for (const f of this.listeners) f();
  }
}
