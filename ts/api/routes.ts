// THE route table of the monitoring API: every endpoint served, with its
// versions, parameters, permission and handler. server.ts builds the HTTP
// app from it and openapi.ts documents it; nothing is routed elsewhere.
import { freemem } from 'node:os';

import { track } from './activity.js';
import { given, int, isTrue, oneOf, str, toBool } from './params.js';
import { FlowgateError } from '../bindings/errors.js';
import { ApiError, RC } from './rc.js';
import { jsonAnswer, route, selectInterface, type RouteDef } from './route.js';
import { RowStream } from './stream.js';
import * as constants from './monitoring/constants.js';
import { dbRoutes } from './monitoring/db.routes.js';
import { alertRoutes } from './monitoring/alerts.routes.js';
import { checksRoutes } from './monitoring/checks.routes.js';
import { networkConfigRoutes } from './monitoring/network-config.routes.js';
import { deviceExclusionRoutes } from './monitoring/device-exclusions.routes.js';
import { exclusionRoutes } from './monitoring/exclusions.routes.js';
import { notificationRoutes } from './monitoring/notifications.routes.js';
import { poolRoutes } from './monitoring/pools.routes.js';
import { configIoRoutes } from './monitoring/config-io.routes.js';
import { activeMonitoringRoutes } from './monitoring/active-monitoring.routes.js';
import { systemRoutes } from './monitoring/system.routes.js';
import { lookupRoutes } from './monitoring/lookups.routes.js';
import { customAppRoutes } from './monitoring/custom-apps.routes.js';
import { insightRoutes } from './monitoring/insights.routes.js';
import { geoRoutes } from './monitoring/geo.routes.js';
import { pcapRoutes } from './monitoring/pcap.routes.js';
import { snmpRoutes } from './monitoring/snmp.routes.js';
import { infrastructureRoutes } from './monitoring/infrastructure.routes.js';
import { scanRoutes } from './monitoring/scans.routes.js';
import { edgeRoutes } from './monitoring/edge.routes.js';
import * as flows from './monitoring/flows.js';
import * as hosts from './monitoring/hosts.js';
import * as ifaces from './monitoring/interfaces.js';
import * as users from './monitoring/users.js';
import { lightviewRoutes, timeseriesRoutes } from './monitoring/timeseries.routes.js';

const { NOT_FOUND, INVALID_INTERFACE, NOT_GRANTED, INVALID_HOST, INVALID_ARGUMENTS, INTERNAL_ERROR, BAD_FORMAT, BAD_CONTENT } = RC;
const V012 = ['v0', 'v1', 'v2'] as const;
const V12 = ['v1', 'v2'] as const;

const userFields = {
  username: str(64),
  full_name: str(256).optional(),
  password: str(256).optional(),
  confirm_password: str(256).optional(),
  user_role: str(32).optional(),
  allowed_networks: str(4096).optional(),
  allowed_interface: str(64).optional(),
  user_language: str(8).optional(),
  allow_pcap_download: str(8).optional(),
  allow_historical_flows: str(8).optional(),
  allow_alerts: str(8).optional(),
};

const sortOrder = oneOf(['asc', 'desc']).optional();

export const routes: RouteDef[] = [
  // ── interfaces ────────────────────────────────────────────────────────
  route({
    path: 'get/interface/data', versions: [...V012], method: 'GET', perm: 'user',
    summary:
      'Interface statistics; v1/v2 iffilter (an ifid, or all: {"<ifid>": data} of every interface the user may see) in place of ifid, v2 type=summary: the brief record ntopng\'s page footer polls',
    // ifid is checked by the handler (selectInterface: -2 / -3), declared here for the OpenAPI document
    params: { ifid: str(16).optional(), iffilter: str(16).optional(), type: str(16).optional() },
    errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx, p) => {
      const summary = ctx.version === 'v2' && p.type === 'summary';
      const filter = ctx.version === 'v0' ? undefined : p.iffilter;
      const one = (v: unknown) => {
        const c = { ...ctx, iface: selectInterface(ctx.deps, ctx.user, v) };
        if (summary) return ifaces.interfaceSummary(c, String(v).trim());
        const d = ifaces.interfaceData(c);
        // the fields the route's answer schema keeps (its serializer's view)
        return ctx.version === 'v1' ? ifaces.InterfaceDataV1.parse(ifaces.interfaceDataShape.v1(d)) : ifaces.InterfaceDataV2.parse(d);
      };
      // the common request: the compiled serializer of the route's answer
      if (filter === undefined && !summary) {
        ctx.iface = selectInterface(ctx.deps, ctx.user, ctx.raw?.ifid);
        return ifaces.interfaceData(ctx);
      }
      if (filter === 'all') {
        const all: Record<string, unknown> = {};
        for (const i of ctx.deps.interfaces.list) if (!ctx.user.allowed_interface || ctx.user.allowed_interface === i.ifname) all[String(i.ifid)] = one(i.ifid);
        return jsonAnswer(all);
      }
      return jsonAnswer(one(filter ?? ctx.raw?.ifid));
    },
    shape: ifaces.interfaceDataShape,
    response: { v0: ifaces.InterfaceDataV0, v1: ifaces.InterfaceDataV1, v2: ifaces.InterfaceDataV2 },
  }),
  route({
    path: 'get/interface/egress', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary:
      "flowgate's own: the egress policies in force on interface ifid as its engine holds them, with their counters — per target (aggregated queue, balanced, bridge) its outputs, packets offered, forwarded, discarded, shunted, sliced, output drops, packets by action, and each policy (default, subnets, protocols by name) with the packets and bytes it decided on; [] without egress",
    params: {}, errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx) => ifaces.egressPolicies(ctx),
  }),
  route({
    path: 'get/interface/address', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Addresses of the interface', params: {}, errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx) => ifaces.interfaceAddresses(ctx),
  }),
  route({
    path: 'get/interface/bcast_domains', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Broadcast domains learned from ARP', params: {}, errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx) => ifaces.broadcastDomains(ctx),
  }),
  route({
    path: 'get/interface/dscp/stats', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Packets per DSCP class on the interface', params: {}, errors: [INVALID_INTERFACE, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx) => ifaces.interfaceDscp(ctx),
  }),
  route({
    path: 'get/interface/l7/stats', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Traffic per application, breed or category (sinceStartup: bytes; count: active flows)',
    params: {
      ndpistats_mode: oneOf(['sinceStartup', 'count']).optional(),
      breed: isTrue().optional(),
      ndpi_category: isTrue().optional(),
      max_values: int(1, 65535).optional(),
      all_values: isTrue().optional(),
      collapse_stats: isTrue().optional(),
      new_charts: toBool().optional(),
    },
    errors: [INVALID_INTERFACE, INVALID_ARGUMENTS, INTERNAL_ERROR],
    // ntopng's v1 script knows none of the last four: five slices at most, always collapsed
    handler: (ctx, p) =>
      ifaces.interfaceL7(ctx, ctx.version === 'v2' ? p : { ...p, max_values: undefined, all_values: undefined, collapse_stats: undefined, new_charts: false }),
  }),
  route({
    path: 'get/monitor/interfaces', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'Monitored interfaces', params: {}, errors: [],
    handler: (ctx) => ifaces.monitoredInterfaces(ctx),
  }),

  // ── hosts ─────────────────────────────────────────────────────────────
  route({
    path: 'get/host/active', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Active hosts, paged and sorted; network_cidr: those inside an address or CIDR',
    params: {
      currentPage: int(1).optional(),
      perPage: int(1, 100000).optional(),
      sortColumn: str(32).optional(),
      sortOrder,
      all: given().optional(),
      mode: oneOf(['all', 'local', 'remote', 'broadcast_domain', 'filtered', 'blacklisted', 'dhcp']).optional(),
      vlan: int(0, 4095).optional(),
      pool: int(0, 65535).optional(),
      network_cidr: str(64).optional(),
    },
    errors: [NOT_FOUND, INVALID_INTERFACE, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => hosts.activeHosts(ctx, p),
  }),
  route({
    path: 'get/host/interfaces', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'Interfaces on which a host is active', params: { host: str(64) }, errors: [INVALID_ARGUMENTS],
    handler: (ctx, p) => hosts.hostInterfaces(ctx, p.host),
  }),
  route({
    path: 'get/host/data', versions: [...V012], method: 'GET', perm: 'user', ifid: true,
    summary: 'All data of one host', params: { host: str(64).optional(), vlan: int(0, 4095).optional() },
    errors: [NOT_FOUND, INVALID_INTERFACE, NOT_GRANTED, INVALID_HOST, INVALID_ARGUMENTS, INTERNAL_ERROR, BAD_FORMAT, BAD_CONTENT],
    handler: (ctx, p) => hosts.findHost(ctx, p.host, p.vlan),
    shape: {
      v0: (h, ctx) => hosts.hostDataV0(ctx, h),
      v1: (h, ctx) => hosts.hostDataOne(ctx, h),
      v2: (h, ctx) => hosts.hostDataOne(ctx, h),
    },
  }),
  route({
    path: 'get/host/custom_data', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Selected fields of one host or of every host',
    params: { host: str(64).optional(), vlan: int(0, 4095).optional(), field_alias: str(4096).optional() },
    errors: [NOT_FOUND, INVALID_INTERFACE, NOT_GRANTED, INVALID_HOST, INVALID_ARGUMENTS, INTERNAL_ERROR, BAD_FORMAT, BAD_CONTENT],
    handler: (ctx, p) => {
      if (p.host) {
        const h = hosts.findHost(ctx, p.host, p.vlan);
        return hosts.selectFields(hosts.hostDataOne(ctx, h), p.field_alias);
      }
      // every host, streamed: without the per-host scan of its flows (fingerprints, contacts, HTTP hosts, DNS / HTTP counts)
      const cur = ctx.iface.engine.hostsCursor({ limit: 1 << 30, allowed: ctx.allowed, vlan: p.vlan, detail: true });
      return RowStream.of(null, '', cur, (h) => hosts.selectFields(hosts.hostDataFlat(ctx, h), p.field_alias));
    },
  }),
  route({
    path: 'get/host/l7/stats', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: "A host's traffic per application, breed or category",
    params: { host: str(64).optional(), vlan: int(0, 4095).optional(), breed: isTrue().optional(), ndpi_category: isTrue().optional(), collapse_stats: isTrue().optional() },
    errors: [INVALID_INTERFACE, INVALID_ARGUMENTS, INTERNAL_ERROR],
    // ntopng's v1 script always collapses
    handler: (ctx, p) => hosts.hostL7(ctx, ctx.version === 'v2' ? p : { ...p, collapse_stats: undefined }),
  }),
  route({
    path: 'get/host/dscp/stats', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: "Packets per DSCP class a host sent or received",
    params: { host: str(64).optional(), vlan: int(0, 4095).optional(), direction: str(8).optional() },
    errors: [INVALID_INTERFACE, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => hosts.hostDscp(ctx, p),
  }),
  route({
    path: 'set/host/alias', versions: ['v1', 'v2'], method: 'POST', perm: 'admin',
    summary: 'Set the custom name of a host (custom_name empty: removed; missing: -5)', params: { host: str(64), custom_name: str(256).optional() }, errors: [INVALID_ARGUMENTS],
    handler: async (ctx, p) => {
      const h = hosts.parseHost(p.host);
      // ntopng's setHostAltName: an empty name deletes the alias; only a missing one is invalid
      if (p.custom_name === undefined && !(ctx.raw && Object.hasOwn(ctx.raw, 'custom_name'))) throw new ApiError(INVALID_ARGUMENTS, 'custom_name is required (empty: remove the alias)');
      const db = ctx.deps.store.db<string>('host_aliases');
      if (p.custom_name?.trim()) await db.put(hosts.hostKey(h.ip, h.vlan), p.custom_name.trim());
      else await db.remove(hosts.hostKey(h.ip, h.vlan));
      track(ctx, 'set_host_alias', { host: hosts.hostKey(h.ip, h.vlan), custom_name: p.custom_name });
      return [];
    },
  }),

  // ── flows ─────────────────────────────────────────────────────────────
  route({
    path: 'get/flow/active', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Active flows, paged, sorted and filtered',
    params: {
      currentPage: int(1).optional(),
      perPage: int(1, 100000).optional(),
      sortColumn: str(32).optional(),
      sortOrder,
      host: str(64).optional(),
      vlan: int(0, 4095).optional(),
      l4proto: str(16).optional(),
      application: str(64).optional(),
      verbose: isTrue().optional(),
    },
    errors: [NOT_FOUND, INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx, p) => flows.activeFlows(ctx, p),
  }),
  route({
    path: 'get/flow/l4/counters', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Active flows per L4 protocol', params: {}, errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx) => flows.l4Counters(ctx),
  }),
  route({
    path: 'get/flow/l7/counters', versions: [...V12], method: 'GET', perm: 'user', ifid: true,
    summary: 'Active flows per application', params: {}, errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx) => flows.l7Counters(ctx),
  }),

  // ── constants ─────────────────────────────────────────────────────────
  route({
    path: 'get/l4/protocol/consts', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'L4 protocols', params: {}, errors: [], handler: () => constants.l4Consts(),
  }),
  route({
    path: 'get/l7/application/consts', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'nDPI applications', params: {}, errors: [], handler: () => constants.l7ApplicationConsts(),
  }),
  route({
    path: 'get/l7/category/consts', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'nDPI categories: name (ntopng\'s label, or the alias set with edit/category/category), cat_id, app_list', params: {}, errors: [], handler: (ctx) => constants.l7CategoryConsts((id) => ctx.deps.customApps?.categoryAlias(id)),
  }),
  route({
    path: 'get/alert/type/consts', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'Alert types', params: {}, errors: [], handler: () => constants.alertTypeConsts(),
  }),
  route({
    path: 'get/alert/severity/consts', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'Alert severities', params: {}, errors: [], handler: () => constants.alertSeverityConsts(),
  }),

  // ── limits ────────────────────────────────────────────────────────────
  ...(['flows', 'hosts'] as const).map((what) =>
    route({
      path: `edit/monitor/incr_${what}`, versions: ['v2'], method: 'POST', perm: 'admin',
      summary: `Double the maximum number of ${what} of every interface`, params: {}, errors: [NOT_GRANTED, BAD_FORMAT],
      handler: (ctx) => {
        // each table is rebuilt at twice its size while the old one still exists: refuse what the machine cannot hold
        let need = 0;
        for (const i of ctx.deps.interfaces.list) {
          const s = i.engine.stats();
          const max = what === 'flows' ? s.max_flows : s.max_hosts;
          if (max * 2 > 1 << 26) throw new ApiError(BAD_FORMAT, `the ${what} table is at its largest (${max})`);
          // the new tables' reservation, as if every slot were used (twice the old one)
          need += 2 * (what === 'flows' ? s.flow_reserved_bytes : s.host_reserved_bytes);
        }
        const free = freemem();
        if (need > free * 0.8) throw new ApiError(BAD_FORMAT, `not enough memory to double the ${what} tables: about ${Math.ceil(need / 2 ** 20)} MiB needed, ${Math.floor(free / 2 ** 20)} MiB available`);
        for (const i of ctx.deps.interfaces.list) {
          const s = i.engine.stats();
          const max = what === 'flows' ? s.max_flows : s.max_hosts;
          try {
            i.engine.setLimits(what === 'flows' ? { maxFlows: max * 2 } : { maxHosts: max * 2 });
          } catch (e) {
            // the machine refused the reservation (E_NOMEM): the table stays as it was
            if (e instanceof FlowgateError) throw new ApiError(BAD_FORMAT, `the ${what} table of interface ${i.ifid} cannot be doubled: ${e.message}`);
            throw e;
          }
        }
        return ctx.deps.interfaces.list.map((i) => {
          const s = i.engine.stats();
          return { ifid: i.ifid, [`max_num_${what}`]: what === 'flows' ? s.max_flows : s.max_hosts };
        });
      },
    }),
  ),

  // ── users, sessions, tokens ───────────────────────────────────────────
  route({
    path: 'add/monitor/user', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Add a user', params: userFields,
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, RC.PASSWORD_MISMATCH, RC.ADD_USER_FAILED, RC.USER_ALREADY_EXISTING],
    handler: (ctx, p) => users.addUser(ctx, p),
  }),
  route({
    path: 'edit/monitor/user', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Edit a user', params: userFields,
    errors: [INVALID_ARGUMENTS, RC.DELETE_USER_FAILED, RC.USER_ALREADY_EXISTING, RC.EDIT_USER_FAILED],
    handler: (ctx, p) => users.editUser(ctx, p),
  }),
  route({
    path: 'delete/monitor/user', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Delete a user', params: { username: str(64) }, errors: [NOT_GRANTED, INVALID_ARGUMENTS, RC.DELETE_USER_FAILED],
    handler: (ctx, p) => users.deleteUser(ctx, p),
  }),
  route({
    path: 'create/monitor/session', versions: [...V12], method: 'POST', perm: 'user',
    summary: 'Create a session (cookie `session`)', params: { username: str(64), auth_session_duration: int(0).optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => users.createSession(ctx, p),
  }),
  route({
    path: 'create/monitor/api_token', versions: ['v2'], method: 'POST', perm: 'user',
    summary: 'Create the API token of a user (`Authorization: Token …`)', params: { username: str(64) }, errors: [INVALID_ARGUMENTS],
    handler: (ctx, p) => users.createApiToken(ctx, p),
  }),
  ...timeseriesRoutes,
  ...lightviewRoutes,

  // ── flows database (pro) ──────────────────────────────────────────────
  ...dbRoutes,
  ...alertRoutes,
  ...checksRoutes,
  ...networkConfigRoutes,
  ...deviceExclusionRoutes,
  ...exclusionRoutes,
  ...notificationRoutes,
  ...poolRoutes,
  ...configIoRoutes,
  ...activeMonitoringRoutes,
  ...systemRoutes,
  ...lookupRoutes,
  ...customAppRoutes,
  ...insightRoutes,
  ...geoRoutes,
  ...pcapRoutes,
  ...snmpRoutes,
  ...infrastructureRoutes,
  ...scanRoutes,
  ...edgeRoutes,
];
