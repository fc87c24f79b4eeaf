// Route declarations of the network configuration (ntopng's v2 get/set
// network/config.lua). Reading needs an interface, as ntopng's script does;
// changing it is for administrators.
import { z } from 'zod';

import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { getNetworkConfig, setNetworkConfig } from './network-config.js';

const { INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;

export const networkConfigRoutes: RouteDef[] = [
  route({
    path: 'get/network/config', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: 'The allowed servers: [{key: dns_list | ntp_list | dhcp_list | smtp_list | gateway_list, value_description: "<ip or cidr[@vlan]>,…"}]',
    params: {}, errors: [INVALID_INTERFACE, INTERNAL_ERROR],
    handler: (ctx) => getNetworkConfig(ctx),
  }),
  route({
    path: 'set/network/config', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Set allowed servers: payload {"config": [{key, value}]} (or that JSON body); the unexpected DNS/DHCP/NTP/SMTP server checks use them at once',
    params: { payload: z.preprocess((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v), z.string().max(1 << 17)).optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => setNetworkConfig(ctx, p),
  }),
];
