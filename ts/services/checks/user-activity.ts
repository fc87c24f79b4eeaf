// ⑧ User alerts, as ntopng records them (scripts/lua/modules/tracker.lua,
// src/AlertsQueue.cpp pushLoginTrace, notifications/recipients.lua): one-shot
// alerts of the user entity on the system interface, stored at once.
//
// - a failed login: alert_login_failed, score warning (50), entity the user
//   name tried, json {} (the alert has no parameters);
// - a session created: alert_user_activity {scope 'login', status
//   'authorized'}, score notice (10), subtype 'login//';
// - a configuration change: alert_user_activity {scope 'function', name,
//   params, remote_addr}, score notice, subtype 'function/<name>/<addr>',
//   entity the user who made it. Passwords never reach params.
import { scoreToSeverity } from '../alerts/catalogue.js';
import { SYSTEM_IFID, type AlertInput } from '../alerts/types.js';

/** other_alert_keys.lua: OTHER_BASE_KEY (4096) + 15, + 43 */
export const ALERT_LOGIN_FAILED = 4096 + 15;
export const ALERT_USER_ACTIVITY = 4096 + 43;
/** alerts' set_score_notice / set_score_warning (Utils::mapSeverityToScore) */
const SCORE_NOTICE = 10, SCORE_WARNING = 50;
/** ntopng's user column is text: a name longer than this (an attacker's) is cut */
const MAX_USER = 256;

/** Parameters that never leave in an alert (any key naming a password or a secret). */
const SECRET = /pass|secret|token/i;

/** The params without secrets (values that are objects are walked too). */
export function withoutSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !SECRET.test(k)).map(([k, x]) => [k, withoutSecrets(x)]));
  return v;
}

const nowSec = () => Math.floor(Date.now() / 1000);

function userAlert(user: string, alertId: number, score: number, subtype: string, json: Record<string, unknown>, tstamp: number): AlertInput {
  const u = user.slice(0, MAX_USER);
  return {
    family: 'user',
    ifid: SYSTEM_IFID,
    entityVal: u,
    alertId,
    subtype,
    tstamp,
    score,
    severity: scoreToSeverity(score),
    fields: { user: u },
    json,
  };
}

export const loginFailedAlert = (user: string, tstamp = nowSec()) => userAlert(user, ALERT_LOGIN_FAILED, SCORE_WARNING, '', {}, tstamp);

export const loginAlert = (user: string, tstamp = nowSec()) =>
  userAlert(user, ALERT_USER_ACTIVITY, SCORE_NOTICE, 'login//', { scope: 'login', status: 'authorized' }, tstamp);

/** tracker.log: `user` ('' → 'system') called function `name` with `params`, from `remoteAddr`. */
export function activityAlert(user: string, name: string, params: unknown, remoteAddr?: string, tstamp = nowSec()): AlertInput {
  const json: Record<string, unknown> = { scope: 'function', name, params: withoutSecrets(params) };
  if (remoteAddr) json.remote_addr = remoteAddr;
  return userAlert(user || 'system', ALERT_USER_ACTIVITY, SCORE_NOTICE, `function/${name}/${remoteAddr ?? ''}`, json, tstamp);
}
