// Route declarations of the pro insight views: top local and remote talkers
// (v1 host and interface paths, v2 interface paths).
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { topTalkers } from './insights.js';

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

export const insightRoutes: RouteDef[] = [...talkers('local'), ...talkers('remote')];
