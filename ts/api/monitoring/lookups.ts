// Lookups (ntopng's rest/v2/get/dns/resolve.lua): a name resolved as
// ntop.resolveHost does (IPv4 first, then IPv6).
import { lookup } from 'node:dns/promises';
import { clearTimeout, setTimeout } from 'node:timers';

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
