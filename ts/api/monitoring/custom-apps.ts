// Custom applications and categories (ntopng's rest/v2/edit|delete/
// application/application.lua, edit/category/category.lua and
// get/category/list.lua): the protocols file (-p) and custom category hosts,
// applied natively by the CustomApps service.
import { Engine } from '../../bindings/engine.js';
import { CustomAppsError, type CustomApps } from '../../services/custom-apps/index.js';
import { track } from '../activity.js';
import { categoryLabel } from './constants.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';

function customApps(ctx: ApiCtx): CustomApps {
  const c = ctx.deps.customApps;
  if (!c) throw new ApiError(RC.INTERNAL_ERROR, 'custom applications are not running');
  return c;
}

const refuse = (e: unknown) => {
  if (e instanceof CustomAppsError) throw new ApiError(e.kind === 'no_file' ? RC.NOT_GRANTED : RC.INVALID_ARGUMENTS, e.message);
  throw e;
};

export interface EditApplicationParams {
  protocol_alias?: string;
  l7_proto_id?: number;
  category?: number;
  custom_rules?: string;
}

export async function editApplication(ctx: ApiCtx, p: EditApplicationParams) {
  await customApps(ctx)
    .editApplication({ alias: p.protocol_alias, rules: p.custom_rules, category: p.category, protoId: p.l7_proto_id })
    .catch(refuse);
  track(ctx, 'edit_application', { protocol: p.protocol_alias ?? p.l7_proto_id, category: p.category, rules: p.custom_rules });
  return []; // rest_utils.answer(ok): an empty Lua table
}

export async function deleteApplication(ctx: ApiCtx, alias: string | undefined) {
  await customApps(ctx).deleteApplication(alias).catch(refuse);
  track(ctx, 'delete_application', { protocol: alias });
  return []; // rest_utils.answer(ok): an empty Lua table
}

/** `cat_<id>` as ntopng's editor sends it, or the bare id */
function categoryId(v: string): number {
  const m = /^(?:cat_)?(\d{1,5})$/.exec(v.trim());
  if (!m) throw new ApiError(RC.INVALID_ARGUMENTS, `category '${v.slice(0, 64)}' (cat_<id>)`);
  return Number(m[1]);
}

export async function editCategory(ctx: ApiCtx, p: { category?: string; custom_hosts?: string; alias?: string; category_alias?: string }) {
  if (p.category === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, 'category is required (cat_<id>)');
  const cat = categoryId(p.category);
  const r = await customApps(ctx)
    .editCategory(cat, p.custom_hosts, p.alias ?? p.category_alias)
    .catch(refuse);
  track(ctx, 'edit_category', { category: cat, hosts: r.hosts.join(','), alias: p.alias ?? p.category_alias });
  return []; // rest_utils.answer(ok): an empty Lua table
}

/**
 * category/list.lua: one record per nDPI category (the web UI's columns):
 * its id, name (the operator's alias when set), custom hosts, and how many
 * protocols it holds (the operator's categories counted), as a link to
 * the category page.
 */
export function categoryList(ctx: ApiCtx) {
  const dpi = Engine.info().dpi;
  const perCat = new Map<number, number>();
  for (const p of dpi.protocols) perCat.set(p.category, (perCat.get(p.category) ?? 0) + 1);
  const apps = ctx.deps.customApps;
  return dpi.categories.map((c) => {
    const hosts = apps?.categoryHosts(c.id) ?? [];
    return {
      column_category_id: c.id,
      column_category_name: categoryLabel(c.id, c.name, apps?.categoryAlias(c.id)),
      column_num_hosts: String(hosts.length),
      column_num_protos: `<a href="/lua/admin/edit_categories?tab=protocols&category=cat_${c.id}">${perCat.get(c.id) ?? 0}</a>`,
      column_category_hosts: hosts.join(','),
    };
  });
}
