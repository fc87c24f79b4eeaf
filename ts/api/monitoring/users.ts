// Users, sessions and API tokens endpoints.
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import type { UserFields } from '../../services/users.js';

export type UserParams = UserFields & { username: string };

export async function addUser(ctx: ApiCtx, p: UserParams) {
  await ctx.deps.users.add(p);
  return [];
}

export async function editUser(ctx: ApiCtx, p: UserParams) {
  await ctx.deps.users.edit(p.username, p);
  return [];
}

export async function deleteUser(ctx: ApiCtx, p: { username: string }) {
  if (p.username === ctx.user.username) throw new ApiError(RC.DELETE_USER_FAILED, 'a user cannot delete itself');
  await ctx.deps.users.delete(p.username);
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
  const username = p.username ?? ctx.user.username;
  actFor(ctx, username);
  const session = await ctx.deps.users.createSession(username, p.auth_session_duration ?? 0);
  return { session };
}

export async function createApiToken(ctx: ApiCtx, p: { username?: string }) {
  const username = p.username ?? ctx.user.username;
  // ntopng answers invalid_args (its only error here) for someone else's token
  if (username !== ctx.user.username && ctx.user.role !== 'administrator') {
    throw new ApiError(RC.INVALID_ARGUMENTS, 'only administrators create tokens for other users');
  }
  actFor(ctx, username);
  return { api_token: await ctx.deps.users.createToken(username) };
}
