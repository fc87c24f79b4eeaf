// ⑧ What an endpoint receives for one alert: ntopng's notification (the
// table alerts_api.lua / Host::alert2JSON hand to recipients.dispatch_
// notification, `json` being the alert's JSON as text) and its plain-text
// form (alert_utils.formatAlertNotification, without HTML).
import { hostname, networkInterfaces } from 'node:os';

import { scoreToSeverity, SEVERITIES } from '../alerts/catalogue.js';
import { alertKeyInfo, ENTITY_ID, familyAlertLabel } from '../alerts/families.js';
import type { AlertFamily, AlertInput } from '../alerts/types.js';
import type { FlowAlertNote } from '../store/flow-batch.js';

export type NotificationAction = 'engage' | 'release' | 'store';

/** ntopng's notification; the family's own fields (ip, name, vlan_id …) beside the common ones. */
export interface Notification {
  ifid: number;
  pool_id: number;
  action: NotificationAction;
  alert_id: number;
  subtype: string;
  score: number;
  severity: number;
  entity_id: number;
  entity_val: string;
  tstamp: number;
  tstamp_end?: number;
  granularity: number;
  /** the alert's JSON, as text */
  json: string;
  [field: string]: unknown;
}

/** alert_entities.lua: 10 is the test entity (a test message) */
export const TEST_ENTITY_ID = 10;

/** what ntopng names itself in syslog tags and mail subjects (receivers filter on it) */
export const PRODUCT = 'ntopng';

const COMMON = new Set(['ifid', 'pool_id', 'action', 'alert_id', 'subtype', 'score', 'severity', 'entity_id', 'entity_val', 'tstamp', 'tstamp_end', 'granularity', 'json', 'alert_category']);
const HOST_FLAGS = ['is_attacker', 'is_victim', 'is_client', 'is_server'];

/** The alert's category (checks.lua ids): given by the check, else its alert key's; unknown keys: system for system alerts, else other (recipients.lua get_notification_category). */
export function alertCategory(a: AlertInput): number {
  const f = a.fields.alert_category;
  if (f !== undefined && Number.isFinite(Number(f))) return Number(f);
  return alertKeyInfo(a.family, a.alertId)?.category ?? (a.family === 'system' ? 4 : 0);
}

export function buildNotification(a: AlertInput, action: NotificationAction, poolId: number, begin: number, end?: number): Notification {
  const n: Notification = {
    ifid: a.ifid,
    pool_id: poolId,
    action,
    alert_id: a.alertId,
    subtype: a.subtype,
    score: a.score,
    severity: a.severity,
    entity_id: ENTITY_ID[a.family],
    entity_val: a.entityVal,
    tstamp: begin,
    granularity: 0,
    json: JSON.stringify(a.json ?? {}),
  };
  if (end !== undefined) n.tstamp_end = end;
  for (const [k, v] of Object.entries(a.fields)) if (!COMMON.has(k) && k !== '__proto__') n[k] = v;
  if (a.family === 'host') {
    // Host::alert2JSON: ip, ip_version, vlan_id, name and the role flags as booleans
    n.ip ??= a.entityVal.replace(/@\d+$/, '');
    n.vlan_id ??= Number(/@(\d+)$/.exec(a.entityVal)?.[1] ?? 0);
    n.ip_version ??= String(n.ip).includes(':') ? 6 : 4;
    n.name ??= '';
    for (const k of HOST_FLAGS) n[k] = Number(n[k] ?? 0) === 1 || n[k] === true;
  } else {
    // OtherAlertableEntity::luaAlert: name = the entity value
    n.name ??= a.entityVal;
  }
  return n;
}

/** A flow alert's notification (ntopng's Flow::alert2JSON fields that the flow row holds). */
export function flowNotification(f: FlowAlertNote): Notification {
  return {
    ifid: f.ifid,
    pool_id: 0,
    action: 'store',
    alert_id: f.alert_id,
    subtype: '',
    score: f.score,
    severity: f.severity,
    entity_id: ENTITY_ID.flow,
    entity_val: 'flow',
    tstamp: f.tstamp,
    tstamp_end: f.tstamp,
    granularity: 0,
    json: '{}',
    is_flow_alert: true,
    alert_category: f.alert_category,
    vlan_id: f.vlan_id,
    proto: f.proto,
    l7_proto: f.l7_proto,
    l7_master_proto: f.l7_master_proto,
    ip_version: f.cli_ip.includes(':') ? 6 : 4,
    cli_ip: f.cli_ip,
    cli_port: f.cli_port,
    cli_name: f.cli_name,
    cli_host_pool_id: f.cli_host_pool_id,
    srv_ip: f.srv_ip,
    srv_port: f.srv_port,
    srv_name: f.srv_name,
    srv_host_pool_id: f.srv_host_pool_id,
    info: f.info,
  };
}

/** alert_entities.lua labels (English) by entity id */
const ENTITY_LABEL: Record<number, string> = { 0: 'Interface', 1: 'Host', 2: 'Local Network', 3: 'SNMP Device', 4: 'Flow', 5: 'Device', 6: 'Host Pool', 7: 'User', 8: 'Active Monitoring', 9: 'System', 10: 'Test', 15: 'Other' };
const FAMILY_OF: Record<number, AlertFamily> = { 0: 'interface', 1: 'host', 2: 'network', 3: 'snmp_device', 5: 'mac', 7: 'user', 8: 'am_host', 9: 'system' };

/** alert_consts.alertLevelToSyslogLevel: debug 7 … emergency 0 (severity ids 1 … 8); none: info */
export const syslogLevel = (severity: number) => (severity >= 1 && severity <= 8 ? 8 - severity : 6);

/** the severity a notification is sent with: ntopng maps the score (ntop.mapScoreToSeverity), else the alert's own */
export const notificationSeverity = (n: Pick<Notification, 'score' | 'severity'>) => scoreToSeverity(Number(n.score) || 0) || Number(n.severity) || 2;

const pad = (n: number) => String(n).padStart(2, '0');
/** format_utils.formatEpochISO8601: 2022-02-25T09:58:12Z */
export const isoTime = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** format_utils.formatEpoch's default form (dd/mm/yyyy hh:mm:ss), in UTC */
export function plainTime(t: number): string {
  const d = new Date(t * 1000);
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The alert's text: the check's description, else its JSON (ntopng formats each type's own message; we have no per-type text). */
function alertMessage(n: Notification): string {
  if (typeof n.message === 'string') return n.message;
  if (typeof n.description === 'string' && n.description) return n.description;
  return n.json && n.json !== '{}' ? n.json : '';
}

export interface PlainOptions {
  /** ISO 8601 times (syslog) instead of dd/mm/yyyy (email) */
  iso: boolean;
  /** the name of an interface (ntopng's getInterfaceName) */
  ifname: (ifid: number) => string;
}

/** alert_utils.formatAlertNotification(notif, {nohtml, show_severity, show_entity}): one line. */
export function formatPlain(n: Notification, o: PlainOptions): string {
  const t = Number(n.tstamp_end ?? n.tstamp ?? 0);
  const when = t ? `[${o.iso ? isoTime(t) : plainTime(t)}] ` : '[] ';
  const ifname = n.ifid !== -1 ? ` [${o.ifname(n.ifid)}]` : '';
  const sev = SEVERITIES[notificationSeverity(n)]?.title ?? '';
  const fam = FAMILY_OF[n.entity_id];
  const type = n.entity_id === TEST_ENTITY_ID ? 'Test Notification' : fam ? familyAlertLabel(fam, n.alert_id) : String(n.alert_id);
  let msg = `${when}${ifname} [${sev}] [${type}]`;
  msg += `[${ENTITY_LABEL[n.entity_id] ?? 'Other'}][${n.entity_val ?? ''}]`;
  const label = n.action === 'engage' ? '[Engaged]' : n.action === 'release' ? '[Released]' : '';
  msg += ` ${label} ${alertMessage(n)}`;
  return msg.replace(/[\r\n]+/g, ' ');
}

/** A test notification (syslog.runTest: the test entity, severity info). */
export function testNotification(now = Math.floor(Date.now() / 1000)): Notification {
  return {
    ifid: -1, pool_id: 0, action: 'store', alert_id: 0, subtype: '', score: 0, severity: 2, entity_id: TEST_ENTITY_ID, entity_val: 'test',
    tstamp: now, tstamp_end: now, granularity: 0, json: '{}', name: 'test', message: 'A test notification: this endpoint works',
  };
}

/** ntop.getHostInformation: the first non-internal address (IPv4 first), else the host name. */
export function hostAddress(): string {
  const all = Object.values(networkInterfaces()).flat().filter((i) => i && !i.internal);
  return all.find((i) => i!.family === 'IPv4')?.address ?? all[0]?.address ?? hostname();
}
