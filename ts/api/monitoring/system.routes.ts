// Route declarations of the system endpoints: get/system/stats (v1 as the
// spec lists it; also v0 and v2, as ntopng 5 served them), pro v2
// get/system/data, connect/test (v2, the Python client's first call) and its
// predecessor page /lua/self_test.lua, and v2 delete/system/all_data.
import { z } from 'zod';

import { bool } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { SystemDataSchema, SystemStatsSchema, requestPurge, systemData, systemStats } from './system.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;

export const systemRoutes: RouteDef[] = [
  route({
    path: 'get/system/stats', versions: ['v0', 'v1', 'v2'], method: 'GET', perm: 'user',
    summary: 'System figures (ntopng cpu_utils.systemHostStats): cpu_load, cpu_states (%), mem_* (kB), the process memory, alert counters and queue, epoch, storage (bytes) of the data directory, and flowgate\'s queues',
    params: {}, errors: [NOT_GRANTED],
    handler: (ctx) => systemStats(ctx),
    response: { v0: SystemStatsSchema, v1: SystemStatsSchema, v2: SystemStatsSchema },
  }),
  route({
    path: 'get/system/data', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary: 'System data: the get/system/stats figures, product, version, uptime (s), the interfaces summed and one by one (hosts, flows, alerts, throughput, export counters), the purge pending',
    params: {}, errors: [NOT_GRANTED],
    handler: (ctx) => systemData(ctx),
    response: { v2: SystemDataSchema },
  }),
  route({
    path: 'connect/test', versions: ['v2'], method: 'GET', perm: 'user',
    summary: 'Reachability and authentication test (ntopng\'s Python client calls it first): rc 0, empty answer',
    params: {}, errors: [NOT_GRANTED],
    // dkjson writes the empty table ntopng answers with as []
    handler: () => [],
  }),
  route({
    path: 'self_test', page: true, versions: ['v0'], method: 'GET', perm: 'user',
    summary: 'The older self test page: {"response": "OK"}',
    params: {}, errors: [NOT_GRANTED],
    handler: () => ({ response: 'OK' }),
    response: { v0: z.object({ response: z.string() }) },
  }),
  route({
    path: 'delete/system/all_data', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Purge at the next start: clickhouse=true the flows database (flows and stored alerts), datadir=true all the historical data (flows, alerts, timeseries); users and settings are kept. Recorded now (merged with a pending request)',
    params: { clickhouse: bool().optional(), datadir: bool().optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => requestPurge(ctx, p),
  }),
];
