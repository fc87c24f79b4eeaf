// The network configuration endpoints (ntopng's rest/v2/get|set/network/
// config.lua): the allowed DNS, NTP, DHCP, SMTP servers and gateways that
// the unexpected-server checks compare flows with.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import { jsonParam } from '../params.js';
import type { ApiCtx } from '../route.js';
import { NETWORK_CONFIG_KEYS, NetworkConfigError, type NetworkConfig } from '../../services/checks/network-config.js';

function networkOf(ctx: ApiCtx): NetworkConfig {
  const n = ctx.deps.network;
  if (!n) throw new ApiError(RC.INTERNAL_ERROR, 'the network configuration is not running');
  return n;
}

/** get/network/config.lua: [{key, value_description}] in ntopng's key order. */
export function getNetworkConfig(ctx: ApiCtx) {
  const v = networkOf(ctx).get();
  return NETWORK_CONFIG_KEYS.map((key) => ({ key, value_description: v[key] }));
}

/**
 * set/network/config.lua: `payload` = {"config": [{key, value}, …]} as JSON
 * text (ntopng's form field), or that object as the JSON body. Each list is
 * checked (addresses or CIDRs, optional @VLAN, comma-separated): -5 and
 * nothing changed when one is bad.
 */
export async function setNetworkConfig(ctx: ApiCtx, p: { payload?: string }) {
  let doc: unknown = ctx.raw;
  if (p.payload !== undefined) doc = jsonParam(p.payload, 'payload');
  const config = doc && typeof doc === 'object' ? (doc as { config?: unknown }).config : undefined;
  if (!Array.isArray(config)) throw new ApiError(RC.INVALID_ARGUMENTS, 'expected {"config": [{"key": "dns_list", "value": "…"}, …]}');
  const changes: Record<string, unknown> = Object.create(null);
  for (const e of config) {
    if (!e || typeof e !== 'object' || typeof (e as { key?: unknown }).key !== 'string') throw new ApiError(RC.INVALID_ARGUMENTS, 'each config entry is {"key": …, "value": …}');
    const { key, value } = e as { key: string; value?: unknown };
    changes[key] = value ?? '';
  }
  try {
    await networkOf(ctx).set(changes);
  } catch (err) {
    if (err instanceof NetworkConfigError) throw new ApiError(RC.INVALID_ARGUMENTS, err.message);
    throw err;
  }
  track(ctx, 'set_network_config', { keys: Object.keys(changes) });
  return [];
}
