// ⑧ Stored (or engaged) alert rows as ntopng's REST answers carry them:
// alert_store.lua format_json_record_common plus each family's
// format_record (no_html), the v0/v1 get/alert/data records, and the
// per-entity records of get/all/alert/list.lua.
import { CATEGORY, CATEGORY_INFO, categoryField, scoreToSeverity, SEVERITIES } from './catalogue.js';
import { ENTITY_ID, familyAlertLabel, familyAlertName } from './families.js';
import { hostEntity } from './alert-row.js';
import { ifidOfStored } from './alert-tables.js';
import type { AlertRow } from './alert-store.js';
import type { AlertFamily } from './types.js';

/** ntopng's family name of a record (alert_store_name: am_host is 'am') */
const STORE_NAME: Record<AlertFamily, string> = { host: 'host', interface: 'interface', network: 'network', mac: 'mac', system: 'system', user: 'user', am_host: 'am', snmp_device: 'snmp_device' };

const label = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);
const bool = (v: unknown) => String(Number(v) === 1);

function parseJson(s: unknown): Record<string, unknown> {
  try {
    const o = JSON.parse(String(s ?? '{}'));
    return o && typeof o === 'object' ? (o as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The entity value of a row (ntopng's alert_entity_val): host ip@vlan, interface ifid, network CIDR, MAC, user, … */
export function entityValue(f: AlertFamily, r: AlertRow): string {
  switch (f) {
    case 'host':
      return hostEntity(String(r.ip), Number(r.vlan_id));
    case 'interface':
      return String(r.ifid);
    case 'network':
    case 'system':
      return String(r.name);
    case 'mac':
      return String(r.address);
    case 'user':
      return String(r.user);
    case 'snmp_device':
      return String(r.ip);
    case 'am_host':
      return String(r.resolved_ip);
  }
}

/** A row as get/<family>/alert/list.lua answers it (no_html). */
export function formatFamilyRecord(f: AlertFamily, r: AlertRow): Record<string, unknown> {
  const id = Number(r.alert_id);
  const score = Number(r.score);
  const sevId = scoreToSeverity(score); // as ntopng: the record's severity comes from the score
  const sev = SEVERITIES[sevId] ?? SEVERITIES[0];
  const tstamp = Number(r.tstamp);
  const name = familyAlertName(f, id);
  const typeLabel = familyAlertLabel(f, id);
  const cat = Number(r.alert_category);
  const json = parseJson(r.json);
  const description = String(r.description ?? '');
  const gen = json.alert_generation as { script_key?: string } | undefined;
  const rec: Record<string, unknown> = {
    family: STORE_NAME[f],
    row_id: String(r.rowid),
    tstamp: { value: tstamp, label: label(tstamp), highlight: sev.color },
    alert_id: { value: String(id), label: typeLabel },
    alert_category: categoryField(cat),
    score: { value: score, label: String(score), color: sev.color },
    // format=json's label (no_html): the severity's English title
    severity: { value: sevId, label: sev.title, color: sev.color },
    user_label: String(r.user_label ?? ''),
    duration: Number(r.tstamp_end) - tstamp,
    count: Number(r.counter) || 1,
    script_key: gen?.script_key ?? '',
    subtype: String(r.subtype ?? ''),
    alert_name: name,
    description,
    msg: { name, fullname: name, value: id, description: description.toLowerCase() === name.toLowerCase() ? '' : description, configset_ref: '' },
  };
  switch (f) {
    case 'host': {
      const ip = String(r.ip);
      Object.assign(rec, {
        ip: { value: ip, label: r.name ? String(r.name) : hostEntity(ip, Number(r.vlan_id)), shown_label: ip, country: String(r.country ?? '') },
        vlan_id: Number(r.vlan_id) ? String(r.vlan_id) : '',
        is_attacker: bool(r.is_attacker),
        is_victim: bool(r.is_victim),
        is_client: bool(r.is_client),
        is_server: bool(r.is_server),
        network: { value: Number(r.network) === 0xffff ? '' : String(r.network), label: '' },
        host_pool_id: { value: String(r.host_pool_id), label: '' },
        filter: {
          tag_filters: [
            ...(id > 0 ? [{ id: 'alert_id', value: String(id), op: 'eq' }] : []),
            ...(Number(r.vlan_id) > 0 ? [{ id: 'vlan_id', value: String(r.vlan_id), op: 'eq' }] : []),
            ...(ip ? [{ id: 'ip', value: ip, op: 'eq' }] : []),
          ],
        },
      });
      break;
    }
    case 'interface':
      Object.assign(rec, { subtype: String(r.subtype), name: String(r.name), alias: String(r.alias), ifid: Number(r.ifid) });
      break;
    case 'network':
      Object.assign(rec, { alias: String(r.alias), local_network_id: Number(r.local_network_id), network: String(r.name) });
      break;
    case 'mac':
      Object.assign(rec, { address: String(r.address), device_type: { value: Number(r.device_type), label: '' }, name: String(r.name) });
      break;
    case 'snmp_device':
      Object.assign(rec, { ip: String(r.ip), name: String(r.name), port: { value: Number(r.port), label: String(r.port_name || r.port) } });
      break;
    case 'am_host':
      Object.assign(rec, { measurement: String(r.measurement), measure_threshold: String(r.measure_threshold), measure_value: Number(r.measure_value), resolved_ip: String(r.resolved_ip) });
      break;
    case 'user':
      Object.assign(rec, { user: String(r.user) });
      break;
    case 'system':
      Object.assign(rec, { name: String(r.name) });
      break;
  }
  return rec;
}

/** v1 get/alert/data.lua record (spec "Alert records"). */
export function v1DataRecord(entity: string, entityVal: string, type: string, score: number, tstamp: number, count: number, msg: string) {
  return { entity, type, score, date: String(tstamp), severity: (SEVERITIES[scoreToSeverity(score)] ?? SEVERITIES[0]).name, count, entity_val: entityVal, msg };
}

/** v0 get/alert/data.lua record. */
export function v0DataRecord(v1: ReturnType<typeof v1DataRecord>, alertId: number) {
  return { entity: v1.entity, entity_val: v1.entity_val, date: v1.date, severity: v1.severity, type: v1.type, key: alertId, msg: v1.msg };
}

export const rowInterface = (r: AlertRow) => ifidOfStored(Number(r.interface_id));

/** ntopng's AlertLevelGroup counts of get/all/alert/list.lua */
export interface EntityTotals {
  entity_id: number;
  score: number;
  count: number;
  notice: number;
  warning: number;
  error: number;
  critical: number;
  emergency: number;
}

export function newTotals(f: AlertFamily | 'flow'): EntityTotals {
  return { entity_id: ENTITY_ID[f], score: 0, count: 0, notice: 0, warning: 0, error: 0, critical: 0, emergency: 0 };
}

/** adds `count` alerts of one severity (groups as all_alert_store.lua: ≤3, 4, 5, 6, ≥7) */
export function addTotals(t: EntityTotals, severity: number, count: number, score: number): void {
  t.count += count;
  t.score += score;
  if (severity <= 3) t.notice += count;
  else if (severity === 4) t.warning += count;
  else if (severity === 5) t.error += count;
  else if (severity === 6) t.critical += count;
  else t.emergency += count;
}

/** A get/all/alert/list.lua record (no_html). */
export function formatEntityRecord(f: AlertFamily | 'flow', t: EntityTotals) {
  const group = (value: number, sev: number) => ({ value, color: SEVERITIES[sev].color });
  return {
    family: 'all',
    entity: f,
    entity_id: t.entity_id,
    count: t.count,
    score: { value: t.score, label: String(t.score) },
    count_group_notice_or_lower: group(t.notice, 3),
    count_group_warning: group(t.warning, 4),
    count_group_error: group(t.error, 5),
    count_group_critical: group(t.critical, 6),
    count_group_emergency: group(t.emergency, 8),
  };
}

/** format=txt: the records as CSV (ntopng's to_csv: a header, one line per record, a field's value or label) */
export function toCsv(records: Record<string, unknown>[]): string {
  if (!records.length) return '';
  const keys = Object.keys(records[0]).filter((k) => k !== 'filter' && k !== 'msg');
  const cell = (v: unknown): string => {
    const x = v && typeof v === 'object' ? ((v as { value?: unknown }).value ?? (v as { label?: unknown }).label ?? '') : (v ?? '');
    const s = String(x);
    return /[",\n|]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [keys.join('|'), ...records.map((r) => keys.map((k) => cell(r[k])).join('|'))].join('\n') + '\n';
}

// ── get/alert/filter/consts.lua ─────────────────────────────────────────

const OPERATOR_LABEL: Record<string, string> = { eq: '=', neq: '!=', lt: '<', gt: '>', gte: '>=', lte: '<=', in: 'has', nin: 'does_not_have' };

/** ntopng's tag_utils.defined_tags for the alert filters: [input type, value type, operators] */
const TAG_INFO: Record<string, [string, string, string[]]> = {
  alert_id: ['select', 'alert_id', ['eq', 'neq']],
  alert_category: ['select', 'alert_category', ['eq', 'neq']],
  severity: ['select', 'severity', ['eq', 'lte', 'gte', 'neq']],
  score: ['input', 'score', ['eq', 'neq', 'lt', 'gt', 'gte', 'lte']],
  description: ['input', 'text', ['in']],
  vlan_id: ['input', 'vlan_id', ['eq', 'neq', 'lt', 'gt', 'gte', 'lte']],
  ip_version: ['select', 'ip_version', ['eq', 'neq']],
  ip: ['input', 'ip', ['eq', 'neq']],
  name: ['input', 'hostname', ['eq', 'neq', 'in', 'nin']],
  host_pool_id: ['select', 'host_pool_id', ['eq', 'neq']],
  network: ['select', 'network_id', ['eq', 'neq']],
  subtype: ['input', 'text', ['eq', 'neq']],
  network_name: ['input', 'text', ['eq', 'neq']],
  snmp_interface: ['select', 'snmp_interface', ['eq', 'neq']],
};

/** One page's filters (tag_utils.get_tag_info): alert_id lists the family's alert types as options. */
export function filterConsts(tags: string[], alertTypes: { id: number; label: string }[] | null) {
  const out: Record<string, unknown>[] = [];
  for (const id of tags) {
    const info = TAG_INFO[id];
    if (!info) continue;
    const f: Record<string, unknown> = {
      id, label: id, value_type: info[1], value_label: id, type: info[0],
      operators: info[2].map((op) => ({ id: op, label: OPERATOR_LABEL[op] })),
    };
    if (id === 'alert_id' && alertTypes) {
      f.value_type = 'array';
      // as getAlertTypesInfo sorts them: by label, upper-cased
      const up = (t: { label: string }) => t.label.toUpperCase();
      f.options = [...alertTypes].sort((x, y) => (up(x) < up(y) ? -1 : up(x) > up(y) ? 1 : 0)).map((t) => ({ value: t.id, label: t.label }));
    }
    // the English titles, as tag_utils labels its options
    if (id === 'severity') f.options = Object.entries(SEVERITIES).filter(([k]) => Number(k) >= 2).map(([k, v]) => ({ value: Number(k), label: v.title }));
    if (id === 'alert_category') f.options = Object.values(CATEGORY).map((v) => ({ value: v, label: CATEGORY_INFO[v]!.label }));
    out.push(f);
  }
  return out;
}
