// Route declarations of custom applications and categories (v2): the
// application editor (needs -p), custom category hosts, the category list.
import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { categoryList, deleteApplication, editApplication, editCategory } from './custom-apps.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, INVALID_INTERFACE } = RC;

export const customAppRoutes: RouteDef[] = [
  route({
    path: 'edit/application/application', versions: ['v2'], method: 'GET', perm: 'admin',
    summary: 'Replace a custom application\'s rules in the protocols file (comma-separated tcp:/udp: ports or ranges, host:, ip:/ipv6: and bare networks; a new name gets the next id from 1024) and set the category of l7_proto_id (else of the named application); applied to new flows at once. -3 without -p',
    params: { protocol_alias: str(64).optional(), l7_proto_id: int(0, 65535).optional(), category: int(0, 65535).optional(), custom_rules: str(1 << 20).optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => editApplication(ctx, p),
  }),
  route({
    path: 'delete/application/application', versions: ['v2'], method: 'GET', perm: 'admin',
    summary: 'Remove a custom application from the protocols file (applied at once). -3 without -p, -5 when no application has that name',
    params: { protocol_alias: str(64).optional() }, errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => deleteApplication(ctx, p.protocol_alias),
  }),
  route({
    path: 'edit/category/category', versions: ['v2'], method: 'GET', perm: 'admin',
    summary: 'Set the custom hosts of a category (cat_<id>): comma-separated host names (with their subdomains), addresses and networks, which give matching flows that category from the next new flow; alias names it in the category list',
    params: { category: str(16).optional(), custom_hosts: str(1 << 22).optional(), alias: str(256).optional(), category_alias: str(256).optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => editCategory(ctx, p),
  }),
  route({
    path: 'get/category/list', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: 'The nDPI categories: column_category_id, column_category_name (alias when set), column_num_hosts, column_num_protos, column_category_hosts',
    params: {}, errors: [INVALID_INTERFACE],
    handler: (ctx) => categoryList(ctx),
  }),
];
