// What a route declaration holds, and the context its handler gets. The
// declarations themselves are all in routes.ts (one table).
import type { Context } from 'hono';

import { ApiError, envelope, RC } from './rc.js';
import type { z } from 'zod';

import type { ConfigStore } from '../services/config-store.js';
import type { Interfaces, MonitoredInterface } from '../services/interfaces.js';
import type { User, Users } from '../services/users.js';
import type { Rates } from '../services/rates.js';
import type { SystemStats } from '../services/system.js';
import type { Timeseries } from '../services/timeseries/index.js';
import type { Backend } from '../services/store/backend.js';
import type { ExportCounters } from '../services/store/flow-writer.js';
import type { AlertService } from '../services/alerts/alert-service.js';
import type { DeviceProtocols } from '../services/checks/device-protocols.js';
import type { NetworkConfig } from '../services/checks/network-config.js';
import type { ChecksConfig } from '../services/checks/config.js';
import type { AlertExclusions } from '../services/alerts/exclusions.js';
import type { DeviceChecks } from '../services/checks/device-checks.js';
import type { Notifications } from '../services/notifications/index.js';
import type { Pools } from '../services/pools/pools.js';
import type { ActiveMonitoring } from '../services/active-monitoring/index.js';
import type { Geo } from '../services/geo/index.js';
import type { CustomApps } from '../services/custom-apps/index.js';
import type { Extractions } from '../services/recording/index.js';
import type { SnmpDevices } from '../services/snmp/index.js';
import type { Infrastructure } from '../services/infrastructure/index.js';
import type { Scans } from '../services/scans/index.js';
import type { Edge } from '../services/edge/index.js';

export type Version = 'v0' | 'v1' | 'v2';

/** Who may call: any authenticated user, or administrators only. */
export type Permission = 'user' | 'admin';

export interface ApiDeps {
  interfaces: Interfaces;
  users: Users;
  store: ConfigStore;
  rates: Rates;
  system: SystemStats;
  /** epoch ms the service started */
  startedAt: number;
  /** timeseries sampler and store (null: not running; its endpoints answer -6) */
  timeseries?: Timeseries | null;
  /** runs a request through this API (set by createMonitoringApp) */
  forward?: (url: string, init: RequestInit) => Promise<Response>;
  /** the historical store (flows, …); null when it could not open */
  history: Backend | null;
  /** per interface, the flow writer's export counters (interface data's db.*); null without a store */
  flowExport: { counters(ifid: number): ExportCounters; flowAlertDrops(ifid: number): number } | null;
  /** the checks configuration (enabled checks, thresholds) */
  checks: ChecksConfig;
  /** engaged and stored alerts of every family but flow; user activity goes there too (null: not running; its endpoints answer -6) */
  alerts?: AlertService | null;
  /** alert exclusions (pro add/delete/get alert exclusion endpoints); absent: those answer -6 */
  exclusions?: AlertExclusions | null;
  /** devices known per interface (delete/host/new_devices.lua forgets them); null: not running */
  devices?: DeviceChecks | null;
  /** the network configuration (allowed DNS/DHCP/NTP/SMTP servers, gateways); absent: its endpoints answer -6 */
  network?: NetworkConfig | null;
  /** the device protocol policies (edit/get_device_protocols.lua); absent: those answer -6 */
  deviceProtocols?: DeviceProtocols | null;
  /** notification endpoints and recipients; absent: their endpoints answer -6 */
  notifications?: Notifications | null;
  /** pools of every kind (host pools applied to the engines); absent: their endpoints answer -6 */
  pools?: Pools | null;
  /** active monitoring hosts and their results; absent: its endpoints answer -6 */
  activeMonitoring?: ActiveMonitoring | null;
  /** geolocation and AS of addresses (country, city, asn … of hosts); absent: ntopng's unknown values ('', 0) everywhere */
  geo?: Geo | null;
  /** custom applications (the -p protocols file) and custom category hosts; absent: their edits answer -6 */
  customApps?: CustomApps | null;
  /** other instances polled with their tokens; absent: their endpoints answer -6 */
  infrastructure?: Infrastructure | null;
  /** SNMP devices; absent: their endpoints answer -6 */
  snmp?: SnmpDevices | null;
  /** hosts to scan with nmap; absent: their endpoints answer -6 */
  scans?: Scans | null;
  /** gateway mode (--edge-lan / --edge-wan); absent: its endpoints answer -6 */
  edge?: Edge | null;
  /** PCAP extractions running (createMonitoringApp makes one when absent) */
  extractions?: Extractions;
}

export interface ApiCtx {
  c: Context;
  deps: ApiDeps;
  user: User;
  version: Version;
  /** the interface selected by `ifid` (routes declaring `ifid`) */
  iface: MonitoredInterface;
  /** networks the user may see; undefined = everything */
  allowed: string[] | undefined;
  /** every parameter as read (query ∪ form/JSON body), before the route's schema */
  raw?: Record<string, unknown>;
}

export interface RouteDef<S extends z.ZodRawShape = z.ZodRawShape> {
  /** path under rest/ without version and `.lua`, e.g. 'get/interface/data' */
  path: string;
  versions: Version[];
  /** under /lua/pro/rest/ */
  pro?: boolean;
  /** one of ntopng's page scripts automation calls: `/lua/<path>.lua`, answered as v0 (bare JSON) */
  page?: boolean;
  /** the documented method; GET and POST are both accepted, as ntopng does */
  method: 'GET' | 'POST';
  summary: string;
  perm: Permission;
  /** `ifid` selects an interface: missing, unknown → -2; not allowed → -3 */
  ifid?: boolean;
  params: S;
  /** the spec's Err list (documentation and the OpenAPI document) */
  errors: number[];
  handler: (ctx: ApiCtx, p: z.infer<z.ZodObject<S>>) => unknown | Promise<unknown>;
  /** per version, the schema of a successful answer (after `shape`): serializer and OpenAPI document */
  response?: Partial<Record<Version, z.ZodType>>;
  /** per-version wire shape of the handler's data (default: as is) */
  shape?: Partial<Record<Version, (data: any, ctx: ApiCtx) => unknown>>;
}

/** Keeps the parameter types of each declaration (a table of mixed shapes). */
export const route = <S extends z.ZodRawShape>(r: RouteDef<S>): RouteDef => r as unknown as RouteDef;

/** Every URL a declaration answers on: versions, pro prefix, and ntopng's spelling of `monitor`. */
export function routeUrls(r: RouteDef): { version: Version; url: string }[] {
  if (r.page) return [{ version: 'v0', url: `/lua/${r.path}.lua` }];
  const out: { version: Version; url: string }[] = [];
  const spellings = r.path.split('/').includes('monitor') ? [r.path, r.path.replace(/(^|\/)monitor(\/|$)/, '$1ntopng$2')] : [r.path];
  for (const version of r.versions) {
    for (const p of spellings) {
      out.push({ version, url: `/lua/${r.pro ? 'pro/' : ''}rest/${version === 'v0' ? '' : `${version}/`}${p}.lua` });
    }
  }
  // the gateway family also as nEdge's web UI calls it: /lua/rest/v2/…/nedge/…
  if (r.path.split('/').includes('edge')) {
    for (const version of r.versions) if (version !== 'v0') out.push({ version, url: `/lua/rest/${version}/${r.path.replace(/(^|\/)edge(\/|$)/, '$1nedge$2')}.lua` });
  }
  return out;
}

/** ifid → interface: missing or unknown is -2, one the user may not see -3. */
export function selectInterface(deps: ApiDeps, user: ApiCtx['user'], v: unknown): MonitoredInterface {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^\d+$/.test(s)) throw new ApiError(RC.INVALID_INTERFACE, s ? `ifid '${s}' is not an interface id` : 'missing ifid');
  const iface = deps.interfaces.get(Number(s));
  if (!iface) throw new ApiError(RC.INVALID_INTERFACE, `no interface with ifid ${s}`);
  if (user.allowed_interface && user.allowed_interface !== iface.ifname) {
    throw new ApiError(RC.NOT_GRANTED, `interface ${s} is not allowed for this user`);
  }
  return iface;
}

/** A successful v1/v2 answer written as is, for a handler whose answer has no one shape (the route's compiled serializer is for its common one). */
export function jsonAnswer(rsp: unknown): Response {
  return new Response(JSON.stringify(envelope(RC.OK, rsp)), { headers: { 'content-type': 'application/json; charset=UTF-8' } });
}
