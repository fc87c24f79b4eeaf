// Route declarations of the pro insight views: top local and remote talkers
// (v1 host and interface paths, v2 interface paths), the service and
// periodicity maps.
import { int, str, toBool } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { MAP_MAX_LENGTH, MAP_SORTS, behaviourMap, hostTopSites, interfaceTopSites, noTxPeers, realtimeTraffic, topL7, topScore, topTalkers } from './insights.js';

const talkers = (where: 'local' | 'remote'): RouteDef[] =>
  (
    [
      ['v1', 'host'],
      ['v1', 'interface'],
      ['v2', 'interface'],
    ] as const
  ).map(([v, family]) =>
    route({
      path: `get/${family}/top/${where}/talkers`, versions: [v], method: 'GET', perm: 'user', ifid: true, pro: true,
      summary: `The top 10 ${where} hosts by current throughput: name, ip, vlan, url, throughput (bit/s), throughput_type 'bps'`,
      params: {}, errors: [RC.INVALID_INTERFACE],
      handler: (ctx) => topTalkers(ctx, where === 'local'),
    }),
  );

const mapParams = {
  host: str(80).optional(), vlan_id: int(0, 4095).optional(), l7proto: str(64).optional(),
  sort: str(32).optional(), order: str(8).optional(), start: int(0).optional(), length: int(1, MAP_MAX_LENGTH).optional(),
};
const MAP_FILTERS = `host (address[@vlan]: client or server), vlan_id, l7proto (name or id), sort (${MAP_SORTS.join(', ')}; default last_seen), order (desc), start, length (default 100, ≤ ${MAP_MAX_LENGTH}); recordsTotal/recordsFiltered beside rsp, with entries, max_entries and refused (keys without room)`;

const maps: RouteDef[] = [
  route({
    path: 'get/maps/service_map', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: `The services used between local hosts, learned from every classified flow: rsp [{client, client_name, server, server_name, vlan, port, l4_proto, protocol, l7proto_id, first_seen, last_seen (first and last flow start), num_uses (flows), info}]; ${MAP_FILTERS}`,
    params: mapParams, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: (ctx, p) => behaviourMap(ctx, 'service', p),
  }),
  route({
    path: 'get/maps/periodicity_map', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: `The flows that start at a regular pace (per client, server, server port, L4 protocol, application and VLAN; at least 4 starts within max(2 s, 10 %) of the mean interval): rsp [{client, client_name, server, server_name, vlan, port, l4_proto, protocol, l7proto_id, first_seen, last_seen, duration (of the periodic run), observations (starts in it), frequency (mean interval, s), num_uses (flows of the key), info}]; ${MAP_FILTERS}`,
    params: mapParams, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: (ctx, p) => behaviourMap(ctx, 'periodicity', p),
  }),
];

// ntopng's script is public (scripts/lua/rest/v2); the spec lists it under /lua/pro/ too
const rxOnly: RouteDef[] = [true, false].map((pro) =>
  route({
    path: 'get/host/no_tx_peers', versions: ['v2'], method: 'GET', perm: 'admin', ifid: true, pro,
    summary: 'RX-only views: rsp.rx_only.{local_hosts, remote_hosts}.hosts_with_ports_count (unicast hosts with one-way TCP/UDP flows ended: address → {tcp_num_contacted_peers_as_client: distinct (server, port) it got nothing back from, tcp_num_peers_contacts_rcvd_as_server: distinct (client, port) it did not answer, tcp_num_ports_contacted_as_client: those ports}) and .host_peers (the same for the clients of active flows to a server that never sent a packet); administrators only',
    params: {}, errors: [RC.INVALID_INTERFACE, RC.NOT_GRANTED],
    handler: (ctx) => noTxPeers(ctx),
  }),
);

const SITES = "sites local clients named in HTTP (Host), TLS / QUIC / Tor (SNI; not DoH) and DNS (query, answered without error) flows, the first label dropped from names with two dots or more (www.example.org counts for example.org), reverse lookups and IPv4 literals left out; up to 20 kept, pruned to the top 10 by contacts when a new one comes: rsp [{site, contacts (flows), percentage (of the contacts listed)}], most visited first; hour: current (ntopng's older windows are not kept: -5)";
const sites: RouteDef[] = [
  route({
    path: 'get/interface/top/sites', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: `The interface's top visited sites: ${SITES}`,
    params: { hour: str(16).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: (ctx, p) => interfaceTopSites(ctx, p.hour),
  }),
  route({
    path: 'get/host/top/local/sites', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: `A local host's top visited sites (host address[@vlan], vlan; -5 for a host not seen): ${SITES}`,
    params: { host: str(80).optional(), vlan: int(0, 4095).optional(), hour: str(16).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR],
    handler: (ctx, p) => hostTopSites(ctx, p.host, p.vlan, p.hour),
  }),
];

// ntopng's scripts are not public: shapes chosen for its dashboard components (README)
const tops: RouteDef[] = [
  route({
    path: 'get/interface/top/l7_stats', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: "Top applications now: the active flows' current throughput summed per application (as l7/stats count mode keys it), pie slices [{label, value (bit/s), url}], the top 10, idle ones left out; new_charts: the dashboard's donut (values formatted with fbits)",
    params: { new_charts: toBool().optional() }, errors: [RC.INVALID_INTERFACE],
    handler: (ctx, p) => topL7(ctx, p.new_charts),
  }),
  route({
    path: 'get/interface/top/realtime_traffic', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: "The interface's traffic of the last minute, a point per second sampled: v2 timeseries shape of iface:traffic_rxtx (metadata {epoch_begin, epoch_end, epoch_step 1, num_point, schema, query}, series bytes_sent / bytes_rcvd in bytes per second)",
    params: {}, errors: [RC.INVALID_INTERFACE],
    handler: (ctx) => realtimeTraffic(ctx),
  }),
  route({
    path: 'get/interface/top/score', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro: true,
    summary: 'The 10 hosts with the highest score now: [{name, ip, vlan, url, score, score_as_client, score_as_server}], hosts without a score left out',
    params: {}, errors: [RC.INVALID_INTERFACE],
    handler: (ctx) => topScore(ctx),
  }),
];

export const insightRoutes: RouteDef[] = [...talkers('local'), ...talkers('remote'), ...tops, ...maps, ...rxOnly, ...sites];
