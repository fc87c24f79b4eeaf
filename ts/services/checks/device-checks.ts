// ⑧ Devices (MACs) at every engine tick, from the local hosts the engine
// holds (a local host carries the MAC of its frames; remote hosts carry a
// router's, so they are not looked at), and the ARP packets it saw:
//
// - a device first seen: alert_device_connection_disconnection {device,
//   event 'connected'}, one-shot, on the interface entity as ntopng's
//   definition has it; what counts as known is kept per interface in the
//   configuration store (ntopng's first-seen devices hash) and forgotten by
//   delete/host/new_devices.lua (new_devices.reset_macs);
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
const macText = (n: number) => Array.from({ length: 6 }, (_, i) => (Math.floor(n / 2 ** (40 - 8 * i)) % 256).toString(16).padStart(2, '0')).join(':');
const macNumber = (m: string) => parseInt(m.replace(/:/g, ''), 16);

export class DeviceChecks {
  private readonly known: Database<number, string>;
  /** per interface, IPv4 address × 4096 + VLAN → MAC (48-bit numbers: no string per host and minute) */
  private readonly pairs = new Map<number, Map<number, number>>();
  /** per interface, the known MACs (read from the store once; writes go to both) */
  private readonly seen = new Map<number, Set<number>>();

  constructor(
    store: ConfigStore,
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
  ) {
    this.known = store.db<number>('devices');
  }

  /** The devices known on an interface (MAC → epoch s first seen). */
  knownDevices(ifid: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const { key, value } of this.known.getRange({ start: `${ifid}|`, end: `${ifid}|~` })) out.set(key.slice(key.indexOf('|') + 1), value);
    return out;
  }

  /** delete/host/new_devices.lua: no device is known any more (the next tick alerts them again). */
  async resetKnown(): Promise<void> {
    this.seen.clear();
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

  /** One run at the tick `tstamp` (epoch s, packet time) on interface `ifid`. */
  tick(ifid: number, ifname: string, tstamp: number, engine: Pick<Engine, 'localMacs'>): void {
    const reassign = this.cfg.isEnabled('network', 'ip_reassignment');
    let pairs = this.pairs.get(ifid);
    if (!pairs) this.pairs.set(ifid, (pairs = new Map()));
    let seen = this.seen.get(ifid);
    if (!seen) this.seen.set(ifid, (seen = new Set([...this.knownDevices(ifid).keys()].map(macNumber))));
    const fresh = new Set<number>();
    const t = engine.localMacs();
    for (let j = 0; j + 2 < t.length; j += 3) {
      const ip = t[j]!, vlan = t[j + 1]!, mac = t[j + 2]!;
      if (mac === 0) continue;
      if (!seen.has(mac)) fresh.add(mac);
      if (ip < 0) continue;
      // IPv4 address and VLAN as one number (32 + 12 bits)
      const k = ip * 4096 + vlan;
      const old = pairs.get(k);
      if (old === mac) continue;
      pairs.delete(k);
      pairs.set(k, mac);
      if (pairs.size > MAX_PAIRS) pairs.delete(pairs.keys().next().value!);
      if (reassign && old !== undefined) {
        const m = macText(mac), ipText = [24, 16, 8, 0].map((s) => Math.floor(ip / 2 ** s) % 256).join('.');
        this.sink.emit(
          checkAlert('network', 'ip_reassignment', {
            family: 'mac', ifid, entityVal: m, subtype: '', tstamp,
            fields: { address: m },
            json: { ip: ipText, old_mac: macText(old), new_mac: m },
          }),
        );
      }
    }
    for (const mac of fresh) {
      seen.add(mac);
      const m = macText(mac);
      // kept for the next start; a write failing (the store closing) only means it is alerted again then
      this.known.put(`${ifid}|${m}`, tstamp).catch(() => undefined);
      this.sink.emit({
        family: 'interface', ifid, entityVal: String(ifid), alertId: ALERT_DEVICE_CONNECTION_DISCONNECTION, subtype: m, tstamp,
        score: DEVICE_SCORE, severity: scoreToSeverity(DEVICE_SCORE),
        fields: { ifid, subtype: m, name: ifname, alert_category: alertKeyInfo('interface', ALERT_DEVICE_CONNECTION_DISCONNECTION)?.category ?? 0 },
        json: { device: m, event: 'connected' },
      });
    }
  }
}
