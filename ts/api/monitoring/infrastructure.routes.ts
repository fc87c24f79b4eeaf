// Route declarations of the infrastructure family (pro v2): other instances
// polled with their API tokens (services/infrastructure).
import { ApiError, RC } from '../rc.js';
import { str } from '../params.js';
import { route, type ApiCtx, type RouteDef } from '../route.js';
import { track } from '../activity.js';
import type { Infrastructure, InstanceParams } from '../../services/infrastructure/index.js';

const infra = (ctx: ApiCtx): Infrastructure => {
  if (!ctx.deps.infrastructure) throw new ApiError(RC.INTERNAL_ERROR, 'infrastructure instances are not running');
  return ctx.deps.infrastructure;
};
const FIELDS = { url: str(2048).optional(), alias: str(256).optional(), token: str(256).optional(), rtt_threshold: str(16).optional(), bandwidth_threshold: str(16).optional() };
const CHECKS = [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INFRASTRUCTURE_INSTANCE_EMPTY_ALIAS, RC.INFRASTRUCTURE_INSTANCE_EMPTY_URL, RC.INFRASTRUCTURE_INSTANCE_EMPTY_TOKEN, RC.INFRASTRUCTURE_INSTANCE_EMPTY_RTT_THRESHOLD, RC.INFRASTRUCTURE_INSTANCE_SAME_ALIAS, RC.INFRASTRUCTURE_INSTANCE_SAME_URL, RC.INFRASTRUCTURE_INSTANCE_SAME_TOKEN];
/** the configuration without the token (what user activity logs) */
const logged = (p: InstanceParams) => ({ instance_id: p.instance_id, alias: p.alias, url: p.url, rtt_threshold: p.rtt_threshold, bandwidth_threshold: p.bandwidth_threshold });

export const infrastructureRoutes: RouteDef[] = [
  route({
    path: 'add/infrastructure/instance', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Adds an instance to poll: url, alias, token (its REST API token), rtt_threshold (ms), bandwidth_threshold (bit/s); rsp: the instance with its instance_id. Empty fields -34/-35/-36/-37/-47, another instance with the same alias/url/token -39/-40/-41, all three -42',
    params: FIELDS,
    errors: [...CHECKS, RC.INFRASTRUCTURE_INSTANCE_ALREADY_EXISTING, RC.INFRASTRUCTURE_INSTANCE_EMPTY_BANDWIDTH_THRESHOLD],
    handler: async (ctx, p) => {
      const i = await infra(ctx).add(p);
      track(ctx, 'add_infrastructure_instance', logged({ ...p, instance_id: i.instance_id }));
      return i;
    },
  }),
  route({
    path: 'edit/infrastructure/instance', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Changes an instance (instance_id plus the add fields): -33 no id, -32 no such instance, and the add checks',
    params: { instance_id: str(64).optional(), ...FIELDS },
    errors: [...CHECKS, RC.INFRASTRUCTURE_INSTANCE_NOT_FOUND, RC.INFRASTRUCTURE_INSTANCE_EMPTY_ID, RC.INFRASTRUCTURE_INSTANCE_EMPTY_BANDWIDTH_THRESHOLD],
    handler: async (ctx, p) => {
      const i = await infra(ctx).edit(p);
      track(ctx, 'edit_infrastructure_instance', logged(p));
      return i;
    },
  }),
  route({
    path: 'delete/infrastructure/instance', versions: ['v2'], pro: true, method: 'POST', perm: 'admin',
    summary: 'Removes an instance: -33 no id, -32 no such instance',
    params: { instance_id: str(64).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INFRASTRUCTURE_INSTANCE_NOT_FOUND, RC.INFRASTRUCTURE_INSTANCE_EMPTY_ID],
    handler: async (ctx, p) => {
      await infra(ctx).delete(p.instance_id);
      track(ctx, 'delete_infrastructure_instance', { instance_id: p.instance_id });
      return [];
    },
  }),
  route({
    path: 'get/infrastructure/instance', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'The configuration of one instance (instance_id; -32 no such instance) or of all',
    params: { instance_id: str(64).optional() },
    errors: [RC.NOT_GRANTED, RC.INFRASTRUCTURE_INSTANCE_NOT_FOUND],
    handler: (ctx, p) => {
      if (!p.instance_id?.trim()) return infra(ctx).all();
      const i = infra(ctx).get(p.instance_id.trim());
      if (!i) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_NOT_FOUND, `no instance '${p.instance_id.slice(0, 64)}'`);
      return i;
    },
  }),
  route({
    path: 'get/infrastructure/data', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary:
      "What the last poll (every 60 s; an instance never polled is polled now) collected from each instance with its token: reachable, error, rtt (ms), last_update, hosts, flows, throughput / download / upload (bit/s), engaged_alerts, flow_alerts (its interfaces summed), rtt_exceeded and bandwidth_exceeded against its thresholds",
    params: {},
    errors: [RC.NOT_GRANTED],
    handler: (ctx) => infra(ctx).collected(),
  }),
];
