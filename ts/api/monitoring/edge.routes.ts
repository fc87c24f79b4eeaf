// Route declarations of the gateway ('edge') family (v2): interfaces and
// their roles, VLANs, WAN state, gateways' health and the inter-LAN policy
// (services/edge). Paths with `edge` also answer as nEdge's web UI spells
// them (`/lua/rest/v2/…/nedge/…`, see route.ts).
import ipaddr from 'ipaddr.js';

import { track } from '../activity.js';
import { int, str } from '../params.js';
import { parseHost } from './hosts.js';
import { ApiError, RC } from '../rc.js';
import { route, type ApiCtx, type RouteDef } from '../route.js';
import type { Edge } from '../../services/edge/index.js';

const edge = (ctx: ApiCtx): Edge => {
  if (!ctx.deps.edge) throw new ApiError(RC.NOT_FOUND, 'gateway mode is off (start with --edge-lan / --edge-wan)');
  return ctx.deps.edge;
};

const RULE = {
  src_type: str(16).optional(), src_value: str(64).optional(), dst_type: str(16).optional(), dst_value: str(64).optional(),
  bidirectional: str(8).optional(), policy: str(8).optional(),
};

const FORWARDER = {
  repeater_type: str(16).optional(), ip: str(64).optional(), port: str(8).optional(), interfaces: str(512).optional(),
  interface_details: str(1024).optional(), restricted_interfaces: str(512).optional(), restricted_interface_details: str(1024).optional(),
};

export const edgeRoutes: RouteDef[] = [
  route({
    path: 'get/edge/interfaces', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: "The gateway's interfaces: ifname, role (lan, wan), a VLAN's vlan_id and parent, a WAN's enabled, and the kernel's present, mac, mtu, up (administratively), operstate, speed (Mbit/s)",
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => edge(ctx).interfaces(),
  }),
  route({
    path: 'get/edge/physical/interface/data', versions: ['v2'], pro: true, method: 'GET', perm: 'admin', ifid: true,
    summary: "The kernel's counters of the monitored interface ifid: bytes, packets, drops and errors received and sent, with its link state",
    params: {},
    errors: [RC.INVALID_INTERFACE, RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => edge(ctx).physicalData(ctx.iface.ifname),
  }),
  route({
    path: 'get/edge/gateways/status', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: "Each WAN's default-route gateway as the last ping (every 5 s, out of that WAN) found it: interface, gateway, status (up, down; unknown without a gateway), rtt (ms), last_check",
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => edge(ctx).gatewaysStatus(),
  }),
  route({
    path: 'get/edge/dhcp_active_leases', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: "The LANs' DHCP server's active leases (dnsmasq, run by gateway mode on each LAN with an IPv4 address, hosts 100-200 of its network): mac, ip, hostname, expires (epoch s), interface. -6 without dnsmasq",
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => edge(ctx).leases(),
  }),
  route({
    path: 'get/edge/users/status', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary:
      "nEdge's users (its users are host pools; pool 0 is the devices no user claims): per pool pool_id, name, members (configured), and its devices on the monitored LANs now (hosts in a LAN's networks, the gateway's own addresses aside): active_devices, bytes_sent, bytes_rcvd, throughput_bps, active_flows and devices [{ip, vlan, mac, name, bytes_sent, bytes_rcvd, throughput_bps, last_seen, lease_expires (its DHCP lease, 0 none)}]. -6 without pools",
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => usersStatus(ctx),
  }),
  route({
    path: 'add/edge/vlan/add_vlan', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Adds VLAN vlan_id (1-4094) on the LAN interface `interface` as the subinterface <interface>.<vlan_id>, up; it is a LAN interface from then on. -5 not a LAN or a bad or taken id, -6 the kernel refused',
    params: { interface: str(16).optional(), vlan_id: str(8).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: async (ctx, p) => {
      const v = await edge(ctx).addVlan(p.interface, p.vlan_id);
      track(ctx, 'add_vlan', p);
      return v;
    },
  }),
  route({
    path: 'delete/edge/vlan/remove_vlan', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Removes VLAN delete_vlan (its subinterface and the rules naming it); -5 not configured',
    params: { delete_vlan: str(8).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS],
    handler: async (ctx, p) => {
      await edge(ctx).removeVlan(p.delete_vlan);
      track(ctx, 'remove_vlan', p);
      return {};
    },
  }),
  route({
    path: 'set/edge/interface/state', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: "Sets a WAN up (enabled 'true') or down ('false'), kept across restarts. -5 not a WAN, -7 enabled not 'true'/'false', -6 the kernel refused",
    params: { interface: str(16).optional(), enabled: str(8).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR, RC.BAD_FORMAT],
    handler: async (ctx, p) => {
      await edge(ctx).setWanState(p.interface, p.enabled);
      track(ctx, 'set_wan_state', p);
      return {};
    },
  }),
  route({
    path: 'get/edge/policy/default', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'The inter-LAN default policy: {default_policy: accept | deny}',
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => ({ default_policy: edge(ctx).defaultPolicy() }),
  }),
  route({
    path: 'set/edge/policy/default', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Sets the inter-LAN default policy (default_policy accept | deny), enforced at once. -5 another value, -6 nftables refused',
    params: { default_policy: str(8).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR, RC.BAD_FORMAT],
    handler: async (ctx, p) => {
      await edge(ctx).setDefaultPolicy(p.default_policy);
      track(ctx, 'set_default_policy', p);
      return { default_policy: edge(ctx).defaultPolicy() };
    },
  }),
  route({
    path: 'get/edge/policy/rules', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'The inter-LAN rules in the order they are matched: rule_id, source and destination {type: cidr | interface, value}, bidirectional, action (accept, deny)',
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => edge(ctx).rules(),
  }),
  route({
    path: 'add/edge/policy/rule', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: "Adds an inter-LAN rule after the others: src_type / dst_type cidr (an address or CIDR) or interface (a LAN interface), src_value, dst_value, bidirectional 'true'/'false', policy accept | deny; rsp {rule_id}. -5 a bad value, -6 nftables refused",
    params: RULE,
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: async (ctx, p) => {
      const id = await edge(ctx).addRule(p);
      track(ctx, 'add_policy_rule', p);
      return { rule_id: id };
    },
  }),
  route({
    path: 'edit/edge/policy/rule', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Changes rule rule_id (new_rule_id: its new place in the order; a rule there moves one down) with the add fields; rsp {rule_id}. -5 no such rule or a bad value',
    params: { rule_id: str(8).optional(), new_rule_id: str(8).optional(), ...RULE },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: async (ctx, p) => {
      const id = await edge(ctx).editRule(p);
      track(ctx, 'edit_policy_rule', p);
      return { rule_id: id };
    },
  }),
  route({
    path: 'delete/edge/policy/rule', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Removes rule rule_id; -5 no such rule',
    params: { rule_id: str(8).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS],
    handler: async (ctx, p) => {
      await edge(ctx).deleteRule(p.rule_id);
      track(ctx, 'delete_policy_rule', p);
      return {};
    },
  }),
  route({
    path: 'get/edge/forwarders', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'The broadcast / multicast forwarders: repeater_id, type (mdns, custom), ip, port, interfaces (trusted) and details, restricted_interfaces and restricted_details, repeated (frames sent out so far)',
    params: {},
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx) => edge(ctx).forwarders(),
  }),
  route({
    path: 'add/edge/forwarder', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary:
      "Adds a forwarder: repeater_type mdns (224.0.0.251, UDP 5353) or custom (ip: an IPv4 multicast group, 255.255.255.255 or '*' any multicast; port, default any), interfaces (trusted, comma-separated), restricted_interfaces, and their *_details labels. UDP to the group seen on a trusted interface is repeated out of every other member, seen on a restricted one out of the trusted ones, as it came (its sender kept). rsp {repeater_id}. -5 a bad value, -6 it could not start",
    params: FORWARDER,
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: async (ctx, p) => {
      const id = await edge(ctx).addForwarder(p);
      track(ctx, 'add_forwarder', p);
      return { repeater_id: id };
    },
  }),
  route({
    path: 'edit/edge/forwarder', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Changes forwarder repeater_id (new_repeater_id: its new id) with the add fields; rsp {repeater_id}. -5 no such forwarder or a bad value',
    params: { repeater_id: str(8).optional(), new_repeater_id: str(8).optional(), ...FORWARDER },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: async (ctx, p) => {
      const id = await edge(ctx).editForwarder(p);
      track(ctx, 'edit_forwarder', p);
      return { repeater_id: id };
    },
  }),
  route({
    path: 'delete/edge/forwarder', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Stops and removes forwarder repeater_id; -5 no such forwarder',
    params: { repeater_id: str(8).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS],
    handler: async (ctx, p) => {
      await edge(ctx).deleteForwarder(p.repeater_id);
      track(ctx, 'delete_forwarder', p);
      return {};
    },
  }),
  route({
    path: 'set/edge/interface/drop_host_flows', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary:
      "Drops every active TCP/UDP flow of `host` (address, optionally @vlan; JSON body or form) as the monitored interfaces see them (`ifid`: one of them only): their packets are dropped in the kernel's forwarding, both ways, for 5 minutes, so the connections die; new ones pass. rsp {dropped}: the flows. -5 no or a bad host",
    params: { host: str(64).optional(), ifid: int(0, 65535).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: async (ctx, p) => {
      const e = edge(ctx);
      let h: { ip: string; vlan: number };
      try {
        h = parseHost(p.host ?? '');
      } catch {
        throw new ApiError(RC.INVALID_ARGUMENTS, 'host must be an address, optionally @vlan');
      }
      const flows: { proto: number; cli: string; cport: number; srv: string; sport: number }[] = [];
      for (const i of ctx.deps.interfaces.list) {
        if (p.ifid !== undefined && i.ifid !== p.ifid) continue;
        for (const f of i.engine.flows({ host: h.ip, hostVlan: h.vlan, limit: 10_000 }).rows) flows.push({ proto: f.proto, cli: f.client.ip, cport: f.client.port, srv: f.server.ip, sport: f.server.port });
      }
      const dropped = await e.dropHostFlows(flows);
      track(ctx, 'drop_host_flows', p);
      return { dropped };
    },
  }),
];

/** get/edge/users/status: each host pool with the LAN devices of it the engines hold now. */
function usersStatus(ctx: ApiCtx) {
  const e = edge(ctx);
  const pools = ctx.deps.pools;
  if (!pools) throw new ApiError(RC.INTERNAL_ERROR, 'pools are not available');
  const lans = new Set(e.lanInterfaces());
  const leases = new Map<string, number>();
  for (const l of e.leases()) leases.set(l.mac, l.expires).set(l.ip, l.expires);
  return pools.all('host').map((view) => {
    const pool = view as { pool_id: number; name: string; members: string[] };
    const devices: Record<string, unknown>[] = [];
    const user = { pool_id: pool.pool_id, name: pool.name, members: pool.members.length, active_devices: 0, bytes_sent: 0, bytes_rcvd: 0, throughput_bps: 0, active_flows: 0, devices };
    for (const i of ctx.deps.interfaces.list) {
      if (!lans.has(i.ifname)) continue;
      const nets = i.addresses.map((c) => ipaddr.parseCIDR(c));
      const own = new Set(i.addresses.map((c) => c.split('/')[0]));
      const cur = i.engine.hostsCursor({ pool: pool.pool_id, mode: 'local', sort: 'ip', brief: true });
      for (let rows = cur.next(1024); rows.length; rows = cur.next(1024)) {
        for (const h of rows) {
          // a device of this LAN: in its networks (not a host routed through it), not the gateway itself
          const a = ipaddr.parse(h.ip);
          if (own.has(h.ip) || !nets.some(([n, len]) => n.kind() === a.kind() && a.match(n, len))) continue;
          user.bytes_sent += h.bytes_sent;
          user.bytes_rcvd += h.bytes_rcvd;
          user.throughput_bps += h.throughput_bps;
          user.active_flows += h.active_flows_as_client + h.active_flows_as_server;
          devices.push({
            ip: h.ip, vlan: h.vlan, mac: h.mac ?? '', name: h.name ?? '', bytes_sent: h.bytes_sent, bytes_rcvd: h.bytes_rcvd,
            throughput_bps: h.throughput_bps, last_seen: h.last_seen, lease_expires: leases.get((h.mac ?? '').toLowerCase()) ?? leases.get(h.ip) ?? 0,
          });
        }
      }
    }
    user.active_devices = devices.length;
    return user;
  });
}
