// ⑧ Devices (MACs) at every engine tick, from the local hosts the engine
// holds (a local host carries the MAC of its frames; remote hosts carry a
// router's, so they are not looked at), and the ARP packets it saw:
//
// - a device first seen: alert_device_connection_disconnection {device,
//   event 'connected'}, one-shot, on the interface entity as ntopng's
//   definition has it; what counts as known is kept per interface in the
//   configuration store (ntopng's first-seen devices hash) and forgotten by
//   delete/host/new_devices.lua (new_devices.reset_macs);
// - Device/MAC Address Tracking (ntopng Pro's device exclusions: pro
//   add/edit/delete/get device/exclusion.lua): every known device has a
//   status, allowed ("Authorized": no alert when it connects) or denied
//   ("Unauthorized": each time it connects, the connected alert), a
//   "Trigger Disconnection Alert" flag (an allowed device that goes away
//   raises the alert with event 'disconnected') and an alias. A device
//   connects when a local host with its MAC appears after a tick without one,
//   and goes away when its last local host has expired. Devices learned from
//   traffic are allowed, without the disconnection alert (ntopng's default
//   statuses during and after its learning period are both "allowed");
//   deleting one makes it a new device again;
// - ip_reassignment (network/ip_reassignment.lua, off by default): an IPv4
//   host now behind another MAC than the one last seen, one-shot
//   alert_mac_ip_association_change on the new MAC (AlertsQueue::
//   pushMacIpAssociationChangedAlert: json {ip, old_mac, new_mac}).
//   ntopng compares ARP replies; here the host's MAC at one tick with the one
//   at the previous, so two changes within one minute are one;
// - broadcast_domain_too_large (bcastTooLarge): ARP packets between two /16s.
import type { Database } from 'lmdb';

import { scoreToSeverity } from '../alerts/catalogue.js';
import { alertKeyInfo } from '../alerts/families.js';
import type { AlertSink } from '../alerts/types.js';
import type { BcastTooLarge, Engine } from '../../bindings/engine.js';
import type { ConfigStore } from '../config-store.js';
import type { ChecksConfig } from './config.js';
import { checkAlert } from './other-alerts.js';

/** other_alert_keys.lua: OTHER_BASE_KEY (4096) + 51 */
export const ALERT_DEVICE_CONNECTION_DISCONNECTION = 4096 + 51;
/** the alert definition sets no score: notice (alert.lua's default) */
const DEVICE_SCORE = 10;
/** IP → MAC pairs remembered per interface (the oldest are forgotten first) */
const MAX_PAIRS = 1 << 18;

/** 'aa:bb:cc:dd:ee:ff' ↔ the MAC as a 48-bit number */
export const macText = (n: number) => Array.from({ length: 6 }, (_, i) => (Math.floor(n / 2 ** (40 - 8 * i)) % 256).toString(16).padStart(2, '0')).join(':');
const macNumber = (m: string) => parseInt(m.replace(/:/g, ''), 16);
const ipv4Text = (ip: number) => [24, 16, 8, 0].map((s) => Math.floor(ip / 2 ** s) % 256).join('.');

/** A MAC as the device endpoints take it (colons, any case); null when it is not one. */
export function parseMac(text: string): string | null {
  const m = text.trim().toLowerCase();
  return /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(m) ? m : null;
}

export type DeviceStatus = 'allowed' | 'denied';

/** What is kept of a known device (older stores kept the first-seen time alone). */
export interface DeviceRecord {
  first_seen: number;
  status: DeviceStatus;
  trigger_alert: boolean;
  alias: string;
}

/** A device as get/device/exclusion.lua lists it. */
export interface DeviceRow extends DeviceRecord {
  mac: string;
  /** epoch s of the last tick it was present at (0: not since start) */
  last_seen: number;
  /** its local host's IPv4 address at that tick ('' when none) */
  last_ip: string;
}

const learned = (firstSeen: number): DeviceRecord => ({ first_seen: firstSeen, status: 'allowed', trigger_alert: false, alias: '' });
const asRecord = (v: unknown): DeviceRecord => (typeof v === 'number' ? learned(v) : { ...learned(0), ...(v as Partial<DeviceRecord>) });

export class DeviceChecks {
  private readonly known: Database<DeviceRecord | number, string>;
  /** per interface, IPv4 address × 4096 + VLAN → MAC (48-bit numbers: no string per host and minute) */
  private readonly pairs = new Map<number, Map<number, number>>();
  /** per interface, the known devices by MAC number (read from the store once; writes go to both) */
  private readonly devices = new Map<number, Map<number, DeviceRecord>>();
  /** per interface, the devices present at the last tick: MAC → [epoch s, IPv4 address or -1] */
  private readonly present = new Map<number, Map<number, [number, number]>>();
  /** per interface, each device's last sighting since start (as `present`'s entries) */
  private readonly sightings = new Map<number, Map<number, [number, number]>>();

  constructor(
    store: ConfigStore,
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
  ) {
    this.known = store.db<DeviceRecord | number>('devices');
  }

  private devicesOf(ifid: number): Map<number, DeviceRecord> {
    let d = this.devices.get(ifid);
    if (!d) {
      d = new Map();
      for (const { key, value } of this.known.getRange({ start: `${ifid}|`, end: `${ifid}|~` })) d.set(macNumber(key.slice(key.indexOf('|') + 1)), asRecord(value));
      this.devices.set(ifid, d);
    }
    return d;
  }

  /** The devices known on an interface (MAC → epoch s first seen). */
  knownDevices(ifid: number): Map<string, number> {
    return new Map([...this.devicesOf(ifid)].map(([m, r]) => [macText(m), r.first_seen]));
  }

  /** get/device/exclusion.lua: the known devices of an interface, by MAC. */
  list(ifid: number): DeviceRow[] {
    const present = this.sightings.get(ifid);
    return [...this.devicesOf(ifid)]
      .sort((a, b) => a[0] - b[0])
      .map(([m, r]) => {
        const p = present?.get(m);
        return { mac: macText(m), ...r, last_seen: p?.[0] ?? 0, last_ip: p && p[1] >= 0 ? ipv4Text(p[1]) : '' };
      });
  }

  private async write(ifid: number, mac: number, r: DeviceRecord | null): Promise<void> {
    const d = this.devicesOf(ifid);
    const key = `${ifid}|${macText(mac)}`;
    if (r) {
      await this.known.put(key, r);
      d.set(mac, r);
    } else {
      await this.known.remove(key);
      d.delete(mac);
      this.sightings.get(ifid)?.delete(mac);
    }
  }

  /** add/device/exclusion.lua: the MACs become known devices, allowed, with the disconnection alert as asked. */
  async add(ifid: number, macs: readonly string[], triggerAlert: boolean, now: number): Promise<void> {
    const d = this.devicesOf(ifid);
    for (const m of macs) {
      const n = macNumber(m);
      const prev = d.get(n);
      await this.write(ifid, n, { ...(prev ?? learned(now)), status: 'allowed', trigger_alert: triggerAlert });
    }
  }

  /** edit/device/exclusion.lua: one device (or, mac null, every one) takes the fields given; false when the MAC is not known. */
  async edit(ifid: number, mac: string | null, change: { alias?: string; status?: DeviceStatus; trigger_alert?: boolean }): Promise<boolean> {
    const d = this.devicesOf(ifid);
    const targets = mac === null ? [...d.keys()] : [macNumber(mac)];
    if (mac !== null && !d.has(targets[0]!)) return false;
    for (const n of targets) {
      const r = d.get(n)!;
      await this.write(ifid, n, {
        ...r,
        ...(change.alias !== undefined ? { alias: change.alias } : {}),
        ...(change.status ? { status: change.status } : {}),
        ...(change.trigger_alert !== undefined ? { trigger_alert: change.trigger_alert } : {}),
      });
    }
    return true;
  }

  /** delete/device/exclusion.lua: forgets one device (or, mac null, all): each is new again when next seen. */
  async forget(ifid: number, mac: string | null): Promise<boolean> {
    const d = this.devicesOf(ifid);
    const targets = mac === null ? [...d.keys()] : [macNumber(mac)];
    if (mac !== null && !d.has(targets[0]!)) return false;
    for (const n of targets) await this.write(ifid, n, null);
    return true;
  }

  /** delete/host/new_devices.lua: no device is known any more (the next tick alerts them again). */
  async resetKnown(): Promise<void> {
    this.devices.clear();
    this.sightings.clear();
    await this.known.clearAsync();
  }

  /**
   * broadcast_domain_too_large (network/, on by default): one one-shot alert
   * per ARP packet of the minute whose sender and target share no /16 or
   * narrower subnet, on the sender's MAC (alert_broadcast_domain_too_large
   * {src_mac, dst_mac, spa, tpa, vlan_id}); the engine keeps 64 a minute.
   */
  bcastTooLarge(ifid: number, tstamp: number, log: BcastTooLarge): void {
    if (!this.cfg.isEnabled('network', 'broadcast_domain_too_large')) return;
    for (const e of log.events) {
      this.sink.emit(
        checkAlert('network', 'broadcast_domain_too_large', {
          family: 'mac', ifid, entityVal: e.src_mac, subtype: '', tstamp,
          fields: { address: e.src_mac },
          json: { src_mac: e.src_mac, dst_mac: e.dst_mac, spa: e.spa, tpa: e.tpa, vlan_id: e.vlan },
        }),
      );
    }
  }

  /** The connection/disconnection alert of a device (interface entity, subtype the MAC). */
  private deviceAlert(ifid: number, ifname: string, tstamp: number, m: string, event: 'connected' | 'disconnected'): void {
    this.sink.emit({
      family: 'interface', ifid, entityVal: String(ifid), alertId: ALERT_DEVICE_CONNECTION_DISCONNECTION, subtype: m, tstamp,
      score: DEVICE_SCORE, severity: scoreToSeverity(DEVICE_SCORE),
      fields: { ifid, subtype: m, name: ifname, alert_category: alertKeyInfo('interface', ALERT_DEVICE_CONNECTION_DISCONNECTION)?.category ?? 0 },
      json: { device: m, event },
    });
  }

  /** One run at the tick `tstamp` (epoch s, packet time) on interface `ifid`. */
  tick(ifid: number, ifname: string, tstamp: number, engine: Pick<Engine, 'localMacs'>): void {
    const reassign = this.cfg.isEnabled('network', 'ip_reassignment');
    let pairs = this.pairs.get(ifid);
    if (!pairs) this.pairs.set(ifid, (pairs = new Map()));
    const known = this.devicesOf(ifid);
    const before = this.present.get(ifid) ?? new Map<number, [number, number]>();
    const now = new Map<number, [number, number]>();
    const fresh = new Set<number>();
    const t = engine.localMacs();
    for (let j = 0; j + 2 < t.length; j += 3) {
      const ip = t[j]!, vlan = t[j + 1]!, mac = t[j + 2]!;
      if (mac === 0) continue;
      const p = now.get(mac);
      if (!p) now.set(mac, [tstamp, ip]);
      else if (p[1] < 0) p[1] = ip;
      if (!known.has(mac)) fresh.add(mac);
      if (ip < 0) continue;
      // IPv4 address and VLAN as one number (32 + 12 bits)
      const k = ip * 4096 + vlan;
      const old = pairs.get(k);
      if (old === mac) continue;
      pairs.delete(k);
      pairs.set(k, mac);
      if (pairs.size > MAX_PAIRS) pairs.delete(pairs.keys().next().value!);
      if (reassign && old !== undefined) {
        const m = macText(mac);
        this.sink.emit(
          checkAlert('network', 'ip_reassignment', {
            family: 'mac', ifid, entityVal: m, subtype: '', tstamp,
            fields: { address: m },
            json: { ip: ipv4Text(ip), old_mac: macText(old), new_mac: m },
          }),
        );
      }
    }
    this.present.set(ifid, now);
    let seen = this.sightings.get(ifid);
    if (!seen) this.sightings.set(ifid, (seen = new Map()));
    for (const [m, p] of now) seen.set(m, p);
    // tracked devices: a denied one connecting, an allowed one with the disconnection alert going away
    for (const mac of now.keys()) if (!before.has(mac) && !fresh.has(mac) && known.get(mac)?.status === 'denied') this.deviceAlert(ifid, ifname, tstamp, macText(mac), 'connected');
    for (const mac of before.keys()) {
      const r = known.get(mac);
      if (!now.has(mac) && r && r.status === 'allowed' && r.trigger_alert) this.deviceAlert(ifid, ifname, tstamp, macText(mac), 'disconnected');
    }
    for (const mac of fresh) {
      const r = learned(tstamp);
      known.set(mac, r);
      // kept for the next start; a write failing (the store closing) only means it is alerted again then
      this.known.put(`${ifid}|${macText(mac)}`, r).catch(() => undefined);
      this.deviceAlert(ifid, ifname, tstamp, macText(mac), 'connected');
    }
  }
}
