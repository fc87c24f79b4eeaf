// The public REST API as the pages call it: v2 paths, the session cookie
// the login set, the envelope's rc turned into an error. Nothing private:
// every number on a page comes through here.

export class ApiError extends Error {
  constructor(
    readonly rc: number,
    message: string,
  ) {
    super(message);
  }
}

/** rc -3 (NOT_GRANTED) or HTTP 401: the session is gone; the app shows the login. */
let onLoggedOut: () => void = () => {};
export const whenLoggedOut = (f: () => void) => (onLoggedOut = f);

type Params = Record<string, string | number | boolean | undefined>;

export function query(p: Params = {}): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== '') u.append(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** The URL of a v2 endpoint ('get/host/active'); pro ones live under /lua/pro/. */
export const url = (path: string, p?: Params, pro = false) => `/lua/${pro ? 'pro/' : ''}rest/v2/${path}.lua${query(p)}`;

export interface Envelope<T> {
  rc: number;
  rc_str: string;
  rc_str_hr?: string;
  rc_str_detail?: string;
  rsp: T;
  [extra: string]: unknown;
}

/** The whole envelope (some answers carry fields beside rsp: recordsTotal …). */
export async function callRaw<T>(path: string, p?: Params, o: { pro?: boolean; method?: 'GET' | 'POST' } = {}): Promise<Envelope<T>> {
  const method = o.method ?? 'GET';
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    // no browser password prompt on a 401: the page shows its own login
    headers: { 'x-requested-with': 'XMLHttpRequest', ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
  };
  if (method === 'POST') init.body = query(p).slice(1);
  const r = await fetch(method === 'POST' ? url(path, undefined, o.pro) : url(path, p, o.pro), init);
  let body: Envelope<T>;
  try {
    body = (await r.json()) as Envelope<T>;
  } catch {
    throw new ApiError(-6, `${path}: HTTP ${r.status}`);
  }
  if (r.status === 401 || body.rc === -3) {
    // -3 is both "who are you?" and "not for you" (a user without allow_alerts …): only a session
    // the service no longer knows sends the page back to the login
    if (!(await sessionAlive())) onLoggedOut();
    throw new ApiError(body.rc ?? -3, body.rc_str_detail ?? body.rc_str_hr ?? 'not allowed');
  }
  if (body.rc !== 0) throw new ApiError(body.rc, body.rc_str_detail ?? body.rc_str_hr ?? body.rc_str);
  return body;
}

/** Whether the session still opens the API (the interface list: every user may read it). */
async function sessionAlive(): Promise<boolean> {
  const r = await fetch(url('get/ntopng/interfaces'), { credentials: 'same-origin', headers: { 'x-requested-with': 'XMLHttpRequest' } }).catch(() => null);
  if (!r || r.status === 401) return false;
  const b = (await r.json().catch(() => null)) as { rc?: number } | null;
  return b?.rc === 0;
}

export async function call<T>(path: string, p?: Params, o: { pro?: boolean; method?: 'GET' | 'POST' } = {}): Promise<T> {
  return (await callRaw<T>(path, p, o)).rsp;
}

function base64(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Login: a session from create/ntopng/session (the password checked by basic auth), kept in the `session` cookie. */
export async function login(username: string, password: string): Promise<void> {
  const r = await fetch(url('create/ntopng/session'), {
    method: 'POST',
    credentials: 'same-origin',
    headers: { authorization: `Basic ${base64(`${username}:${password}`)}`, 'content-type': 'application/x-www-form-urlencoded', 'x-requested-with': 'XMLHttpRequest' },
    body: query({ username }).slice(1),
  });
  const body = (await r.json().catch(() => ({ rc: -6 }))) as Envelope<{ session: string }>;
  if (body.rc !== 0) throw new ApiError(body.rc, body.rc === -3 ? 'Wrong user name or password' : (body.rc_str_detail ?? body.rc_str_hr ?? 'login failed'));
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `session=${encodeURIComponent(body.rsp.session)}; Path=/; SameSite=Strict${secure}`;
  localStorage.setItem('flowgate.user', username);
}

/** Logout: the service ends the session and clears its cookie. */
export async function logout(): Promise<void> {
  await fetch('/lua/logout.lua', { method: 'POST', credentials: 'same-origin', redirect: 'manual' }).catch(() => {});
  document.cookie = 'session=; Path=/; Max-Age=0; SameSite=Strict';
}
