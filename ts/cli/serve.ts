// Starting the two APIs: the monitoring API (configuration store, first
// administrator, rate sampler, Hono app, socket) and the egress policy API
// (policy service, credential store, Hono app, socket). One log line per step.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { WEB_DIR } from '../api/dashboard.js';
import { createEgressApp } from '../egress/api.js';
import { EgressService, type EgressEngine, type EgressLayout } from '../egress/service.js';
import { listen } from '../api/listen.js';
import { createMonitoringApp } from '../api/server.js';
import type { AlertSink } from '../services/alerts/types.js';
import { startChecking, type Checking } from '../services/checks/index.js';
import type { ChecksConfig } from '../services/checks/config.js';
import { ConfigStore } from '../services/config-store.js';
import type { Interfaces } from '../services/interfaces.js';
import { lmdbKv, openKv } from '../services/kv.js';
import type { AlertService } from '../services/alerts/alert-service.js';
import { Rates } from '../services/rates.js';
import type { History } from '../services/store/history.js';
import { SystemStats } from '../services/system.js';
import type { InterfaceCounters, Timeseries } from '../services/timeseries/index.js';
import type { FlowWriter } from '../services/store/flow-writer.js';
import { Users } from '../services/users.js';
import { defaultGeo, type Geo } from '../services/geo/index.js';
import { SnmpDevices } from '../services/snmp/index.js';
import { Infrastructure } from '../services/infrastructure/index.js';
import { Scans, type HostView } from '../services/scans/index.js';
import { Edge } from '../services/edge/index.js';

export interface MonitoringApiOptions {
  port: number;
  /** SNMP devices (default: kept in the configuration store, polled on port 161) */
  snmp?: SnmpDevices;
  bind?: string;
  dataDir: string;
  tlsCert?: string;
  tlsKey?: string;
  adminPassword?: string;
  debug?: boolean;
  /** GET /metrics without credentials from loopback addresses */
  metricsOpenLoopback?: boolean;
  /** where startup lines go (default stdout) */
  print?: (line: string) => void;
  /** the timeseries sampler (attached to the engines): connected here to the historical store */
  timeseries?: Timeseries;
  /** the historical store and its writer (startHistory), null/absent without */
  history?: History | null;
  /**
   * The configuration store and the checks at work (configuration, alert
   * service, host checks on the engines' ticks), started by the caller
   * before the engines (it closes them); absent: opened and started here.
   */
  store?: ConfigStore;
  checking?: Checking;
  /** a sink that also sees every alert raised (AlertService.subscribe) */
  alerts?: AlertSink | null;
  /** the custom protocols file (-p), when the checks are started here */
  protocolsFile?: string;
  /** geolocation databases (main.ts opens --geoip-dir's); undefined: the shipped ones, null: none */
  geo?: Geo | null;
  /** gateway mode: the LAN and WAN interfaces (--edge-lan, --edge-wan) */
  edge?: { lan: string[]; wan: string[] };
}

export interface MonitoringApi {
  url: string;
  store: ConfigStore;
  users: Users;
  /** what checks raise alerts into (AlertSink) */
  alerts: AlertService;
  /** the checks configuration (what the check endpoints edit) */
  checks: ChecksConfig;
  /** the SNMP devices and their poller */
  snmp: SnmpDevices;
  /** other instances and their poller */
  infrastructure: Infrastructure;
  /** hosts to scan with nmap and their scheduler */
  scans: Scans;
  close(): Promise<void>;
}

/**
 * The interfaces' alert and export counters as get/interface/data shows them,
 * for the timeseries sampler (iface:engaged_alerts, dropped_alerts,
 * dumped_flows): given before the engines start, so a replay's first minutes have them.
 */
export function interfaceCounters(alerts: AlertService, writer: FlowWriter | null): (ifid: number) => InterfaceCounters {
  return (ifid) => {
    const a = alerts.counters(ifid);
    const x = writer?.counters(ifid);
    return { engaged_alerts: a.engaged, dropped_alerts: a.dropped + (writer?.flowAlertDrops(ifid) ?? 0), dumped_flows: x?.flow_export_count ?? 0, dropped_flows: x?.flow_export_drops ?? 0 };
  };
}

export async function startMonitoringApi(ifaces: Interfaces, o: MonitoringApiOptions): Promise<MonitoringApi> {
  const print = o.print ?? ((l: string) => console.log(l));
  const dataDir = resolve(o.dataDir);
  const ownStore = !o.store;
  const store = o.store ?? new ConfigStore(dataDir);
  const closeStore = () => (ownStore ? store.close() : Promise.resolve());
  let ownChecking: Checking | null = null;
  try {
    const checking =
      o.checking ?? (ownChecking = await startChecking(ifaces.list, { store, history: o.history ?? null, customApps: { file: o.protocolsFile } }));
    const { checks, alerts, exclusions } = checking;
    if (o.alerts) alerts.subscribe(o.alerts);
    // allowed_interface is given as an ifid (ntopng's form) or a name
    const users = new Users(store, (v) => {
      const byId = /^\d+$/.test(v) ? ifaces.get(Number(v)) : undefined;
      return byId?.ifname ?? ifaces.list.find((i) => i.ifname === v)?.ifname ?? null;
    });
    const admin = await users.ensureAdmin(o.adminPassword);
    // A generated password is shown once and kept (mode 0600) where the
    // operator can read it again, until they change it.
    const pwFile = join(dataDir, 'admin-password');
    if (admin.created && admin.generated) writeFileSync(pwFile, `${admin.password}\n`, { mode: 0o600 });
    const rates = new Rates(ifaces).start();
    // CPU states sampled every 5 s (ntopng's period): an answer only reads the last delta
    const system = new SystemStats().start();
    // Timeseries points go to the historical store (one store for flows and
    // series); without it their endpoints answer -6.
    const backend = o.history?.backend ?? null;
    if (o.timeseries && backend) {
      try {
        await o.timeseries.connect(backend);
        checking.activeMonitoring.setTimeseries(o.timeseries.store);

        print(`flowgate: timeseries in ${backend.description}`);
      } catch (e) {
        console.error(`flowgate: timeseries unavailable: ${(e as Error).message}`);
      }
    }
    if (alerts.stored) print(`flowgate: alerts stored in ${backend!.description}`);
    // SNMP devices polled every 5 minutes: their series in the timeseries store, their alerts to the alert service
    const snmp = (o.snmp ?? checking.snmp).setPoints(o.timeseries?.store ?? null).start();
    // other instances, polled every minute with their tokens
    const infrastructure = new Infrastructure(store, { am: checking.activeMonitoring, alerts, log: (l) => console.error(l) }).start();
    // hosts to scan with nmap: changes raise alerts while the vulnerability_scan check is on
    const scans = new Scans(store, {
      alerts,
      alertsEnabled: () => checks.isEnabled('system', 'vulnerability_scan'),
      hosts: hostView(ifaces),
      log: (l) => console.error(l),
    }).start();
    // gateway mode: VLANs, WAN states and the inter-LAN policy applied before the API answers
    const edge = o.edge && (o.edge.lan.length || o.edge.wan.length) ? await new Edge(store, o.edge.lan, o.edge.wan, { log: (l) => console.error(l) }).start() : null;
    if (edge) print(`flowgate: gateway mode: LAN ${edge.lan.join(', ') || '-'}, WAN ${edge.wan.join(', ') || '-'}`);
    const app = createMonitoringApp(
      {
        interfaces: ifaces,
        users,
        store,
        rates,
        system,
        startedAt: Date.now(),
        history: backend,
        flowExport: o.history?.writer ?? null,
        timeseries: o.timeseries ?? null,
        geo: o.geo === undefined ? await defaultGeo() : o.geo,
        checks,
        alerts,
        exclusions,
        devices: checking.devices,
        network: checking.network,
        deviceProtocols: checking.deviceProtocols,
        notifications: checking.notifications,
        pools: checking.pools,
        activeMonitoring: checking.activeMonitoring,
        customApps: checking.customApps,
        snmp,
        infrastructure,
        scans,
        edge,
      },
      { log: (l) => console.error(l), debug: o.debug, metricsOpenLoopback: o.metricsOpenLoopback },
    );
    const srv = await listen(app, { port: o.port, bind: o.bind, tlsCert: o.tlsCert, tlsKey: o.tlsKey });
    print(`flowgate: monitoring API on ${srv.url}/lua/rest/v2/ (data directory ${dataDir})`);
    if (admin.created && admin.generated) {
      print(`flowgate: created user admin with password ${admin.password} (also in ${pwFile}; change it with edit/ntopng/user.lua)`);
    } else if (admin.created) {
      print('flowgate: created user admin with the password given (--admin-password / FLOWGATE_ADMIN_PASSWORD)');
    } else if (existsSync(pwFile)) {
      const pw = readFileSync(pwFile, 'utf8').trim();
      if (await users.verify('admin', pw)) print(`flowgate: user admin, password in ${pwFile}`);
      else rmSync(pwFile, { force: true });
    }
    print(`flowgate: try: curl -u admin:<password> '${srv.url}/lua/rest/v2/get/interface/data.lua?ifid=0'`);
    if (existsSync(join(WEB_DIR, 'index.html'))) print(`flowgate: dashboard on ${srv.url}/`);
    return {
      url: srv.url,
      store,
      users,
      alerts,
      checks,
      snmp,
      infrastructure,
      scans,
      close: async () => {
        rates.stop();
        system.stop();
        snmp.stop();
        infrastructure.stop();
        scans.stop();
        edge?.stop();
        await srv.close();
        // the alerts queued and the series sampled so far are written before main closes the store
        await ownChecking?.close();
        await o.timeseries?.flush();
        await closeStore();
      },
    };
  } catch (e) {
    await ownChecking?.close();
    await closeStore();
    throw e;
  }
}

/** What the engines know of an address (untagged): its name and the ports it served, over every interface. */
function hostView(ifaces: Interfaces): HostView {
  return (ip) => {
    let found: ReturnType<HostView> = null;
    for (const i of ifaces.list) {
      const h = i.engine.host(ip);
      if (!h) continue;
      found ??= { name: '', tcp: [], udp: [] };
      found.name ||= h.name ?? '';
      for (const u of h.used_ports ?? []) {
        const list = u.tcp ? found.tcp : found.udp;
        if (u.server && !list.includes(u.port)) list.push(u.port);
      }
    }
    return found;
  };
}

export interface EgressApiOptions {
  port: number;
  bind?: string;
  tlsCert?: string;
  tlsKey?: string;
  store: ConfigStore;
  dataDir: string;
  /** credential store URL (default: the LMDB environment) */
  kvUrl?: string;
  product: string;
  rulesFile?: string;
  layout: EgressLayout;
  engine: EgressEngine | null;
  print?: (line: string) => void;
  /** the policies already applied (startEgressPolicies, before the capture started); else made here */
  policies?: EgressPolicies;
}

export interface EgressPolicies {
  service: EgressService;
  close(): void;
}

export interface EgressApi {
  url: string;
  service: EgressService;
  close(): Promise<void>;
}

/** The egress policies applied to the engine (rules file, then what the API stored); SIGHUP re-reads the rules file. */
export function startEgressPolicies(o: Pick<EgressApiOptions, 'store' | 'layout' | 'engine' | 'rulesFile' | 'print'>): EgressPolicies {
  const print = o.print ?? ((l: string) => console.log(l));
  const service = new EgressService(o.store, o.layout, o.engine, o.rulesFile);
  service.apply();
  const onHup = () => {
    if (!o.rulesFile) {
      print('flowgate: egress: SIGHUP: no --egress-rules file to re-read');
      return;
    }
    try {
      service.reload();
      print(`flowgate: egress: re-read ${o.rulesFile}`);
    } catch (e) {
      console.error(`flowgate: egress: ${(e as Error).message} (rules unchanged)`);
    }
  };
  process.on('SIGHUP', onHup);
  return { service, close: () => process.off('SIGHUP', onHup) };
}

/** The egress policy API and the policy service behind it. */
export async function startEgressApi(o: EgressApiOptions): Promise<EgressApi> {
  const print = o.print ?? ((l: string) => console.log(l));
  const policies = o.policies ?? startEgressPolicies(o);
  const service = policies.service;
  // The LMDB environment is already open in this process: share it.
  const kv = o.kvUrl && o.kvUrl !== 'lmdb' ? await openKv(o.kvUrl, o.dataDir) : lmdbKv(o.store.root, { description: `lmdb ${join(o.dataDir, 'config')}` });
  const app = createEgressApp(service, kv, o.product);
  const srv = await listen(app, { port: o.port, bind: o.bind, tlsCert: o.tlsCert, tlsKey: o.tlsKey });
  print(`flowgate: egress API on ${srv.url}/egress/ (credentials: ${kv.description}, key ${o.product}.user.<name>.password; set one with: flowgate passwd <name>)`);
  // it changes forwarding: say so when every address can reach it
  if (!o.bind || o.bind === '0.0.0.0' || o.bind === '::') {
    console.error(`flowgate: warning: the egress API, which changes what is forwarded, listens on every address (port ${o.port}); --bind 127.0.0.1 keeps both APIs local`);
  }
  return {
    url: srv.url,
    service,
    close: async () => {
      policies.close();
      await srv.close();
      await kv.close();
    },
  };
}
