// ⑧ One alert as the row of its family's table (alert-tables.ts): the
// common columns from the alert, the entity's own from the check's fields or,
// when not given, from the entity value. Stored rows and engaged alerts
// (answered as rows) are built here alike.
import { randomUUID } from 'node:crypto';

import { ALERT_STATUS, ALERT_TABLES, storedIfid } from './alert-tables.js';
import { alertKeyInfo } from './families.js';
import type { AlertFamily, AlertInput } from './types.js';

/** ntopng's host entity value: 'ip@vlan', or the bare address when untagged */
export const hostEntity = (ip: string, vlan: number) => (vlan ? `${ip}@${vlan}` : ip);

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
const num = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

/** The value of one column for a queued alert. */
function cell(family: AlertFamily, a: AlertInput, begin: number, end: number, count: number, name: string): string | number {
  const f = a.fields;
  switch (name) {
    case 'rowid':
      return randomUUID();
    case 'alert_id':
      return a.alertId;
    case 'alert_status':
      return ALERT_STATUS.historical;
    case 'interface_id':
      return storedIfid(a.ifid);
    case 'tstamp':
      return begin;
    case 'tstamp_end':
      return end;
    case 'severity':
      return a.severity;
    case 'score':
      return a.score;
    case 'counter':
      return count;
    case 'json':
      return JSON.stringify(a.json ?? {});
    case 'alert_category':
      return f.alert_category !== undefined ? num(f.alert_category) : (alertKeyInfo(family, a.alertId)?.category ?? 0);
    case 'user_label':
    case 'user_label_tstamp':
      return name === 'user_label' ? '' : 0;
  }
  // the entity's own columns: given by the check, else from the entity value
  if (f[name] !== undefined) return f[name];
  switch (`${family}.${name}`) {
    case 'host.ip':
      return a.entityVal.replace(/@\d+$/, '');
    case 'host.vlan_id':
      return Number(/@(\d+)$/.exec(a.entityVal)?.[1] ?? 0);
    case 'host.ip_version':
      return a.entityVal.includes(':') ? 6 : 4;
    case 'interface.ifid':
      return a.ifid;
    case 'interface.subtype':
      return a.subtype;
    case 'mac.address':
      return a.entityVal;
    case 'network.name':
      return a.entityVal;
    case 'user.user':
      // types.ts names it user_name; ntopng's column is `user`
      return str(f.user_name ?? a.entityVal);
    case 'system.name':
      return a.entityVal;
    case 'snmp_device.ip':
    case 'am_host.resolved_ip':
      return a.entityVal;
  }
  return '';
}


/** The row of an alert first raised at `begin`, ended at `end`, raised `count` times; values typed as the columns. */
export function alertColumns(family: AlertFamily, a: AlertInput, begin: number, end: number, count: number): Record<string, string | number> {
  const row: Record<string, string | number> = {};
  for (const c of ALERT_TABLES[family].columns) {
    const v = cell(family, a, begin, end, count, c.name);
    row[c.name] = c.type === 'str' ? str(v) : num(v);
  }
  return row;
}
