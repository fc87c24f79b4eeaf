// Route declarations of the lookups (v2): name resolution.
import { str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { resolveName } from './lookups.js';

export const lookupRoutes: RouteDef[] = [
  route({
    path: 'get/dns/resolve', versions: ['v2'], method: 'GET', perm: 'user',
    summary: 'Resolve a host name (or the host of a URL / host:port), IPv4 first, then IPv6: rsp the address; -9 when it does not resolve',
    params: { hostname: str(2048).optional() }, errors: [RC.INVALID_ARGUMENTS, RC.NAME_RESOLUTION_FAILED],
    handler: (_ctx, p) => resolveName(p.hostname ?? ''),
  }),
];
