// Route declarations of the geolocation lookups (v2): AS counters, AS name, country name.
import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { asnInfo, asnName, countryName } from './geo.js';

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
  route({
    path: 'get/country/country_name', versions: ['v2'], method: 'POST', perm: 'user',
    summary: "A country's name from ntopng's country id (the code's two letters as a u16, first letter high: 21843 = US); the code itself when unnamed",
    params: { country_id: int(0, 65535).optional() }, errors: [RC.INVALID_INTERFACE, RC.INVALID_ARGUMENTS],
    handler: (_ctx, p) => countryName(p.country_id),
  }),
];
