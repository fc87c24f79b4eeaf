// Lookups (ntopng's rest/v2/get/dns/resolve.lua and get/category/list.lua):
// a name resolved as ntop.resolveHost does (IPv4 first, then IPv6), and the
// nDPI categories with their protocols.
import { lookup } from 'node:dns/promises';
import { clearTimeout, setTimeout } from 'node:timers';

import { Engine } from '../../bindings/engine.js';
import { ApiError, RC } from '../rc.js';

/** how long a resolution may take before it counts as failed */
const RESOLVE_MS = 5000;

/** resolve.lua: the host of a URL or host:port, resolved; -9 when it does not resolve */
export async function resolveName(hostname: string): Promise<string> {
  let h = hostname.trim();
  if (!h) throw new ApiError(RC.INVALID_ARGUMENTS, 'hostname is required');
  // as ntopng: the host part of 'scheme://host:port/path'
  if (h.includes('://')) h = h.split('://')[1] ?? h;
  h = h.split('/')[0];
  if (h.split(':').length === 2) h = h.split(':')[0];
  for (const family of [4, 6] as const) {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      lookup(h, { family }).then((a) => a.address, () => null),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), RESOLVE_MS))),
    ]);
    clearTimeout(timer);
    if (r) return r;
  }
  throw new ApiError(RC.NAME_RESOLUTION_FAILED, `'${h.slice(0, 255)}' does not resolve`);
}

/**
 * category/list.lua: one record per nDPI category (the web UI's columns):
 * its id, name, custom hosts (none can be set yet) and how many protocols
 * nDPI files under it, as a link to ntopng's category page.
 */
export function categoryList() {
  const dpi = Engine.info().dpi;
  const perCat = new Map<number, number>();
  for (const p of dpi.protocols) perCat.set(p.category, (perCat.get(p.category) ?? 0) + 1);
  return dpi.categories.map((c) => ({
    column_category_id: c.id,
    column_category_name: c.name,
    column_num_hosts: '0',
    column_num_protos: `<a href="/lua/admin/edit_categories?tab=protocols&category=cat_${c.id}">${perCat.get(c.id) ?? 0}</a>`,
    column_category_hosts: '',
  }));
}
