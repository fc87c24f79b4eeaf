// Alert exclusion endpoints (ntopng's pro add/delete/get alert exclusion
// scripts, alert_exclusions.lua): checked, stored, applied at once by the
// host checks and the flow writer. Every change is recorded as user activity.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { alertName } from '../../services/alerts/flow-alerts.js';
import { familyAlertName } from '../../services/alerts/families.js';
import { ALL_ALERT_KEY, ExclusionMatcher, parseHostSubject, type SubjectType } from '../../services/alerts/exclusion-table.js';
import { alertKeyOf, hostSubjectKey, parseRequest, type AlertExclusions, type ExclusionRequest, type ExclusionSubdir, type Subject } from '../../services/alerts/exclusions.js';
import { StoreError } from '../../services/store/backend.js';

function exclusionsOf(ctx: ApiCtx): AlertExclusions {
  const x = ctx.deps.exclusions;
  if (!x) throw new ApiError(RC.INTERNAL_ERROR, 'alert exclusions are not running');
  return x;
}

const nameOf = (subdir: ExclusionSubdir, id: number) => (id === ALL_ALERT_KEY ? 'all' : subdir === 'flow' ? alertName(id) : familyAlertName('host', id));
const keyRecord = (subdir: ExclusionSubdir, id: number) => ({ alert_key: id, alert_name: nameOf(subdir, id) });
/** the request field a subject type is named by */
const FIELD: Record<SubjectType, string> = { host: 'alert_addr', domain: 'alert_domain', certificate: 'alert_certificate' };

/**
 * delete_alerts of a host subject: its host alerts of that key (every key
 * for 0) go, stored on every interface and engaged (dropped, not stored).
 * Flow alerts live in the flows rows: those rows are left as they are.
 */
async function deleteHostAlerts(ctx: ApiCtx, subject: Subject, alertId: number): Promise<number> {
  const alerts = ctx.deps.alerts;
  if (!alerts) return 0;
  const one = new ExclusionMatcher({ [subject.key]: { type: 'host', flow_alerts: [], host_alerts: [alertId] } });
  const gone = alerts.discardEngaged('host', (a) => one.hostExcluded(String(a.fields.ip), Number(a.fields.vlan_id), a.alertId));
  if (!alerts.stored) return gone;
  const p = parseHostSubject(subject.key)!;
  const cidr = `${p.net[0].toString()}/${p.net[1]}`;
  const filters = { vlan_id: `${p.vlan};eq`, alert_id: alertId === ALL_ALERT_KEY ? undefined : `${alertId};eq` };
  try {
    for (const i of ctx.deps.interfaces.list) {
      await alerts.store.delete('host', { begin: 0, end: 0xffffffff, ifid: i.ifid, networks: [cidr] }, 'any', filters);
    }
  } catch (e) {
    if (e instanceof StoreError) throw new ApiError(RC.INTERNAL_ERROR, `the exclusion is stored, its alerts could not be deleted: ${e.message}`);
    throw e;
  }
  return gone;
}

/** add/alert/exclusion.lua */
export async function addExclusion(ctx: ApiCtx, p: ExclusionRequest & { delete_alerts?: boolean }) {
  const x = exclusionsOf(ctx);
  const { subject, subdir, alertId } = parseRequest(p);
  await x.add(subject, subdir, alertId);
  if (p.delete_alerts && subject.type === 'host' && subdir === 'host') await deleteHostAlerts(ctx, subject, alertId);
  track(ctx, 'add_alert_exclusion', { type: subject.type, [FIELD[subject.type]]: subject.key, subdir, alert_key: alertId, delete_alerts: !!p.delete_alerts });
  return [];
}

/** delete/alert/exclusion.lua */
export async function deleteExclusion(ctx: ApiCtx, p: ExclusionRequest) {
  const x = exclusionsOf(ctx);
  const { subject, subdir, alertId } = parseRequest(p);
  const found = await x.remove(subject.key, subdir, alertId);
  if (!found) throw new ApiError(RC.INVALID_ARGUMENTS, `no ${subdir} alert ${alertId} exclusion for ${subject.type} '${subject.key}'`);
  track(ctx, 'delete_alert_exclusion', { type: subject.type, [FIELD[subject.type]]: subject.key, subdir, alert_key: alertId });
  return [];
}

/** get/alert/exclusion.lua: one record per excluded (subject, subdir, alert) of the type */
export function getExclusions(ctx: ApiCtx, p: { type?: string }) {
  const type = p.type ?? 'host';
  if (type !== 'host' && type !== 'domain' && type !== 'certificate') throw new ApiError(RC.INVALID_ARGUMENTS, `type '${type.slice(0, 32)}' is not host, domain or certificate`);
  const out: Record<string, unknown>[] = [];
  for (const { key, subject } of exclusionsOf(ctx).list(type)) {
    for (const subdir of ['flow', 'host'] as const) {
      for (const id of subdir === 'flow' ? subject.flow_alerts : subject.host_alerts) {
        out.push({ type, [FIELD[type]]: key, subdir, ...keyRecord(subdir, id) });
      }
    }
  }
  return out;
}

/** get/flow/alert/exclusions.lua, get/host/alert/exclusions.lua: the alerts excluded for one host */
export function getHostExclusions(ctx: ApiCtx, subdir: ExclusionSubdir, p: { host: string }) {
  const key = hostSubjectKey(p.host);
  return exclusionsOf(ctx).of(key, subdir).map((id) => keyRecord(subdir, id));
}

/** get/domain/alert/exclusions.lua: every excluded domain and its flow alerts */
export function getDomainExclusions(ctx: ApiCtx) {
  return exclusionsOf(ctx)
    .list('domain')
    .map(({ key, subject }) => ({ alert_domain: key, flow_alerts: subject.flow_alerts.map((id) => keyRecord('flow', id)) }));
}

/** delete/flow/alert/exclusions.lua, delete/host/alert/exclusions.lua: one alert of one host */
export async function deleteHostExclusion(ctx: ApiCtx, subdir: ExclusionSubdir, p: { alert_addr: string; alert_key: number }) {
  const key = hostSubjectKey(p.alert_addr);
  const id = alertKeyOf(subdir, p.alert_key);
  if (!(await exclusionsOf(ctx).remove(key, subdir, id))) throw new ApiError(RC.INVALID_ARGUMENTS, `no ${subdir} alert ${id} exclusion for host '${key}'`);
  track(ctx, `delete_${subdir}_alert_exclusion`, { alert_addr: key, alert_key: id });
  return [];
}

/** delete/all/alert/exclusions.lua: type flow or host (host subjects; host: only that one), domain or certificate */
export async function deleteAllExclusions(ctx: ApiCtx, p: { type: string; host?: string }) {
  const t = p.type;
  if (t !== 'flow' && t !== 'host' && t !== 'domain' && t !== 'certificate') throw new ApiError(RC.INVALID_ARGUMENTS, `type '${t.slice(0, 32)}' is not flow, host, domain or certificate`);
  const host = p.host ? hostSubjectKey(p.host) : undefined;
  if (host && (t === 'domain' || t === 'certificate')) throw new ApiError(RC.INVALID_ARGUMENTS, `host applies to types flow and host only`);
  const n = await exclusionsOf(ctx).removeAll(t, host);
  track(ctx, 'delete_all_alert_exclusions', { type: t, host: host ?? '' });
  return { deleted: n };
}
