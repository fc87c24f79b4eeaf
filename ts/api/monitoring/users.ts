// Users, sessions and API tokens endpoints.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { loginAlert } from '../../services/checks/user-activity.js';
import type { UserFields } from '../../services/users.js';

export type UserParams = UserFields & { username: string };

/** ntopng keeps user names in lower case: each of these endpoints lowers the one it is given */
const lower = (u: string) => u.toLowerCase();

// User activity as ntopng's tracker records these calls: ntop.addUser's
// and ntop.deleteUser's arguments (the password blanked), resetUserPassword
// for a new password; other edits, which ntopng does not track, as
// edit_ntopng_user with the fields given.
export async function addUser(ctx: ApiCtx, p: UserParams) {
  const u = await ctx.deps.users.add({ ...p, username: lower(p.username) });
  const flag = (b: boolean) => String(b);
  // username, full_name, password, role, networks, ifname, host_pool_id (none here), language, pcap, historical flows, alerts
  track(ctx, 'addUser', [u.username, u.full_name, '', u.role, u.allowed_networks.join(','), u.allowed_interface, null, u.language,
    flag(u.allow_pcap_download), flag(u.allow_historical_flows), flag(u.allow_alerts)]);
  return [];
}

export async function editUser(ctx: ApiCtx, q: UserParams) {
  const p = { ...q, username: lower(q.username) };
  // ntopng's edit/ntopng/user.lua: nothing to change is invalid_args
  const fields = Object.entries(p).filter(([k, v]) => v !== undefined && k !== 'username' && k !== 'confirm_password');
  if (!fields.length) throw new ApiError(RC.INVALID_ARGUMENTS, 'nothing to change: give at least one field besides username');
  await ctx.deps.users.edit(p.username, p);
  if (p.password) track(ctx, 'resetUserPassword', [ctx.user.username, p.username, '', '']);
  const changed = Object.fromEntries(Object.entries(p).filter(([k, v]) => v !== undefined && k !== 'username' && k !== 'password' && k !== 'confirm_password'));
  if (Object.keys(changed).length) track(ctx, 'edit_ntopng_user', { username: p.username, ...changed });
  return [];
}

export async function deleteUser(ctx: ApiCtx, q: { username: string }) {
  const p = { username: lower(q.username) };
  if (p.username === ctx.user.username) throw new ApiError(RC.DELETE_USER_FAILED, 'a user cannot delete itself');
  await ctx.deps.users.delete(p.username);
  track(ctx, 'deleteUser', [p.username]);
  return [];
}

/** Administrators act for anyone; others only for themselves. */
function actFor(ctx: ApiCtx, username: string) {
  if (username !== ctx.user.username && ctx.user.role !== 'administrator') {
    throw new ApiError(RC.NOT_GRANTED, 'only administrators act for other users');
  }
  if (!ctx.deps.users.get(username)) throw new ApiError(RC.INVALID_ARGUMENTS, `user '${username}' does not exist`);
}

export async function createSession(ctx: ApiCtx, p: { username?: string; auth_session_duration?: number }) {
  const username = p.username !== undefined ? lower(p.username) : ctx.user.username;
  actFor(ctx, username);
  const session = await ctx.deps.users.createSession(username, p.auth_session_duration ?? 0);
  // a session is a login (HTTPserver create_session → traceLogin authorized)
  ctx.deps.alerts?.emit(loginAlert(username));
  return { session };
}

export async function createApiToken(ctx: ApiCtx, p: { username?: string }) {
  const username = p.username !== undefined ? lower(p.username) : ctx.user.username;
  // ntopng answers invalid_args (its only error here) for someone else's token
  if (username !== ctx.user.username && ctx.user.role !== 'administrator') {
    throw new ApiError(RC.INVALID_ARGUMENTS, 'only administrators create tokens for other users');
  }
  actFor(ctx, username);
  return { api_token: await ctx.deps.users.createToken(username) };
}
