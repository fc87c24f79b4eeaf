// Route declarations of the geolocation lookups (v2): AS counters, AS name,
// country name, the hosts of the map (pro path, and ntopng's own).
import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { asnInfo, asnName, countryName, geoMapHosts } from './geo.js';

export const geoRoutes: RouteDef[] = [
  route({
    path: 'get/asn/asn_info', versions: ['v2'], method: 'POST', perm: 'user', ifid: true,
    summary: 'The autonomous systems of the active hosts (AS 0: hosts without one): id, name, first_seen, last_seen, num_hosts, alerted_flows, score, rtt, bytes_sent, bytes_rcvd, packets_sent, packets_rcvd; `asn` for one AS only',
    params: { asn: int(0, 2 ** 32 - 1).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS],
    handler: (ctx, p) => asnInfo(ctx, p.asn),
  }),
  route({
    path: 'get/asn/asn_name', versions: ['v2'], method: 'POST', perm: 'user',
    summary: "The AS organisation of an address ([] when it has none: private addresses, no entry)",
    params: { ip: str(64).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS],
    handler: (ctx, p) => asnName(ctx, p.ip),
  }),
  ...[true, false].map((pro) =>
    route({
      path: 'get/geo_map/hosts', versions: ['v2'], method: 'GET', perm: 'user', ifid: true, pro,
      summary: 'The located hosts for a map (at most 512): lat, lng, isRoot, country, ip, scoreClient, scoreServer, numAlerts, isAlert, city; `host`: the peers of its top flows; else hosts_category 0/1 all, 2 local, 3 remote (another: none, as ntopng)',
      params: { hosts_category: str(8).optional(), host: str(64).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_HOST],
      handler: (ctx, p) => geoMapHosts(ctx, p.hosts_category, p.host),
    }),
  ),
  route({
    path: 'get/country/country_name', versions: ['v2'], method: 'POST', perm: 'user',
    summary: "A country's name from ntopng's country id (the code's two letters as a u16, first letter high: 21843 = US); the code itself when unnamed",
    params: { country_id: int(0, 65535).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS],
    handler: (_ctx, p) => countryName(p.country_id),
  }),
];
