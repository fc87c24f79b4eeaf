// ⑧ Checks at work: the configuration, the flow checks applied to the flow
// writer, the alert service and its exclusions, the host, interface, network
// and device checks run at every engine tick (packet time), the system checks
// on a wall-clock timer. Started before the engines so a replay's first
// minute is checked too.
import { AlertService, type AlertServiceOptions } from '../alerts/alert-service.js';
import { AlertExclusions } from '../alerts/exclusions.js';
import type { Engine } from '../../bindings/engine.js';
import type { ConfigStore } from '../config-store.js';
import type { History } from '../store/history.js';
import { ChecksConfig } from './config.js';
import { applyFlowChecks } from './flow-checks.js';
import { DeviceProtocols } from './device-protocols.js';
import { DeviceChecks } from './device-checks.js';
import { HostChecks } from './host-checks.js';
import { InterfaceChecks, type CheckedInterface } from './interface-checks.js';
import { NetworkChecks } from './network-checks.js';
import { NetworkConfig } from './network-config.js';
import { SystemChecks, processFigures } from './system-checks.js';
import { Notifications, type NotificationsOptions } from '../notifications/index.js';
import { Pools } from '../pools/pools.js';
import { SnmpDevices } from '../snmp/index.js';
import { ActiveMonitoring, type ActiveMonitoringOptions } from '../active-monitoring/index.js';
import { CustomApps, type CustomAppsOptions } from '../custom-apps/index.js';

export interface Checking {
  checks: ChecksConfig;
  /** the allowed DNS, DHCP, NTP, SMTP servers and gateways (get/set network/config) */
  network: NetworkConfig;
  /** the device protocol policies (device_protocol_not_allowed; edit_device_protocols.lua) */
  deviceProtocols: DeviceProtocols;
  alerts: AlertService;
  /** alert exclusions: obeyed by the host checks and the flow writer */
  exclusions: AlertExclusions;
  hostChecks: HostChecks;
  interfaceChecks: InterfaceChecks;
  networkChecks: NetworkChecks;
  devices: DeviceChecks;
  systemChecks: SystemChecks;
  /** notification endpoints and recipients: every alert goes to those its pool and their filters pick */
  notifications: Notifications;
  /** pools of every kind; host pools applied to the engines */
  pools: Pools;
  /** active monitoring: configured hosts probed on the wall clock (its points need setTimeseries) */
  activeMonitoring: ActiveMonitoring;
  /** custom applications (-p) and custom category hosts, applied to the classifier */
  customApps: CustomApps;
  /** SNMP devices (the members of snmp_device pools); polled once started (its points need setPoints) */
  snmp: SnmpDevices;
  /** detaches from the engines, then writes the alerts still queued */
  close(): Promise<void>;
}

export interface CheckingOptions {
  store: ConfigStore;
  history: History | null;
  log?: (line: string) => void;
  /** the alert service's bounds (engaged per interface, write queue …) */
  alerts?: AlertServiceOptions;
  /** the notification queues' bounds and timeouts */
  notifications?: NotificationsOptions;
  /** active monitoring's period, clock, deadlines … (tests shorten the period) */
  activeMonitoring?: Omit<ActiveMonitoringOptions, 'sink' | 'pools'>;
  /** the protocols file (-p) … */
  customApps?: CustomAppsOptions;
}

/** An interface the checks watch (Interfaces.list entries fit). */
export interface CheckingInterface {
  ifid: number;
  engine: Engine;
  /** ntopng's interface name (default: 'ifid <n>') */
  ifname?: string;
  /** a replayed capture file (default: the engine's) */
  isFile?: boolean;
}

export async function startChecking(ifaces: readonly CheckingInterface[], o: CheckingOptions): Promise<Checking> {
  const log = o.log ?? ((l: string) => console.error(l));
  const checks = ChecksConfig.open(o.store);
  // the operator's classification rules reach the engines before the first packet
  const customApps = await CustomApps.open(o.store, { log, ...o.customApps });
  const network = NetworkConfig.open(o.store);
  const deviceProtocols = DeviceProtocols.open(o.store);
  const flowChecks = applyFlowChecks(
    checks,
    o.history?.writer,
    log,
    ifaces.map((i) => i.engine),
    network,
    deviceProtocols,
  );
  await flowChecks.ready;
  // exclusions: the flow writer gets them now and on every change (as the risk mask)
  const exclusions = AlertExclusions.open(o.store);
  const writer = o.history?.writer;
  const sendExclusions = (rec: ReturnType<AlertExclusions['record']>) =>
    writer ? writer.setExclusions(rec).catch((e: Error) => log(`flowgate: alert exclusions: the flow writer did not take the change: ${e.message}`)) : Promise.resolve();
  await sendExclusions(exclusions.record());
  const stopExclusions = exclusions.onChange((rec) => void sendExclusions(rec));
  // stored beside the flows (one table per family); without a store engaged
  // alerts still work and stored ones are counted as dropped
  const alerts = await AlertService.open(o.history?.backend ?? null, { log, ...o.alerts });
  const hostChecks = new HostChecks(checks, alerts, (ip, vlan, id) => exclusions.hostAlertExcluded(ip, vlan, id));
  // before the pools: their default pools are bound to the builtin recipient
  const ifnames = new Map(ifaces.map((i) => [i.ifid, i.ifname ?? `ifid ${i.ifid}`]));
  const notifications = await Notifications.open(o.store, { log, ifname: (ifid) => ifnames.get(ifid) ?? `ifid ${ifid}`, ...o.notifications });
  alerts.subscribe(notifications);
  // flow alerts are rows the flow writer decodes: it hands each flow's first alerted row on
  const stopFlowAlerts = writer?.onFlowAlerts(
    (notes, dropped) => notifications.flowAlerts(notes, dropped),
    () => notifications.wantsFlowAlerts(),
  );
  const interfaceChecks = new InterfaceChecks(checks, alerts);
  const networkChecks = new NetworkChecks(checks, alerts);
  const devices = new DeviceChecks(o.store, checks, alerts);
  // host pools reach the engines before the first packet
  // active monitoring hosts are the members of active_monitoring pools (known once it is open)
  let am: ActiveMonitoring | null = null;
  // SNMP devices are the members of snmp_device pools; their alerts go to the alert service
  const snmp = new SnmpDevices(o.store, {}, { alerts });
  const pools = await Pools.open(
    o.store,
    {
      interfaces: () => ifaces.map((i) => ({ ifid: i.ifid, ifname: i.ifname ?? `ifid ${i.ifid}`, engine: i.engine })),
      amHosts: () => am?.keys() ?? [],
      snmpDevices: () => snmp.list().map((d) => d.ip),
    },
    notifications.recipients,
  );
  notifications.setPools(pools);
  const activeMonitoring = (am = ActiveMonitoring.open(o.store, { log, ...o.activeMonitoring, sink: alerts, pools })).start();
  alerts.setHostPool((ifid, entityVal) => pools.poolOf('host', ifid, entityVal));
  const watched: CheckedInterface[] = [];
  const removers = ifaces.map((i) => {
    const ifname = i.ifname ?? `ifid ${i.ifid}`;
    const checked = {
      ifid: i.ifid,
      ifname,
      isFile: i.isFile ?? i.engine.isFile,
      get localNetworks() {
        return i.engine.localNetworks;
      },
      stats: () => i.engine.stats(),
      droppedAlerts: () => alerts.counters(i.ifid).dropped,
    } satisfies CheckedInterface;
    watched.push(checked);
    // each on the minute that ended at the tick; the hits asked with the enabled checks' thresholds
    const hits = (t: Parameters<Engine['hostCheckHits']>[0]) => i.engine.hostCheckHits(t);
    return i.engine.addTickListener((boundary) => {
      for (const run of [
        () =>
          hostChecks.tick(i.ifid, boundary, hits, (t) => i.engine.hostScoresAbove(t), () =>
            i.engine.gatewayHosts().map((h) => ({ ...h, name: i.engine.host(h.ip, h.vlan)?.name ?? '', configured: network.contains('gateway_list', h.ip, h.vlan) })),
          ),
        () => networkChecks.tick(i.ifid, boundary, i.engine.localNetworks, i.engine.networkCheckHits(), i.engine.trafficBy().networks),
        () => interfaceChecks.tick(checked, boundary),
        () => devices.tick(i.ifid, ifname, boundary, i.engine),
        () => devices.bcastTooLarge(i.ifid, boundary, i.engine.bcastTooLarge()),
      ]) {
        // one failing check does not stop the others nor the engine
        try {
          run();
        } catch (e) {
          log(`flowgate: checks: ${(e as Error).message}`);
        }
      }
    });
  });
  // the system checks and the interfaces' activity on the wall clock, once a minute
  const systemChecks = new SystemChecks(checks, alerts, processFigures(o.store.dataDir, () => alerts.systemCounters().dropped_alerts), (now) => {
    for (const c of watched) interfaceChecks.activity(c, now);
  }).start();
  return {
    checks,
    network,
    deviceProtocols,
    alerts,
    exclusions,
    hostChecks,
    interfaceChecks,
    networkChecks,
    devices,
    systemChecks,
    pools,
    notifications,
    activeMonitoring,
    customApps,
    snmp,
    close: async () => {
      systemChecks.stop();
      snmp.stop();
      await activeMonitoring.stop();
      for (const r of removers) r();
      flowChecks.stop();
      stopExclusions();
      stopFlowAlerts?.();
      await alerts.close();
      // after the alerts: what they notified last is still delivered (bounded)
      await notifications.close();
    },
  };
}
