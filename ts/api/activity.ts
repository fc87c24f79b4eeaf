// User activity the API records (ntopng's tracker hooks): configuration
// changes made through it, as user alerts on the alert sink (none: nothing
// is recorded).
import type { Context } from 'hono';

import { activityAlert } from '../services/checks/user-activity.js';
import type { ApiCtx } from './route.js';

/** The client's address as ntopng prints it (IPv4 without its ::ffff: mapping); undefined when not served over a socket. */
export function remoteAddr(c: Context): string | undefined {
  const a = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
  return a?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

/** tracker.log(name, params) for the calling user. */
export function track(ctx: ApiCtx, name: string, params: unknown): void {
  ctx.deps.alerts?.emit(activityAlert(ctx.user.username, name, params, remoteAddr(ctx.c)));
}

