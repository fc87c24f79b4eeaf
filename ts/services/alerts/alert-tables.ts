// ⑧ The stored alerts of every family but flow: one table per family, named,
// shaped and ordered as ntopng's ClickHouse schema has them
// (httpdocs/misc/db_schema_clickhouse.sql, its later ADD COLUMNs appended in
// the same order), types adapted to the store's portable ones: UUID → text,
// DateTime → datetime (epoch seconds), REAL → f64, NULL-able → 0 / ''.
// Partitioned by the UTC day of tstamp like the flows table, dropped by the
// same retention. This file is the one place that lists their columns.
import type { ColType, ColumnDef, TableDef } from '../store/backend.js';
import type { AlertFamily } from './types.js';

const c = (name: string, type: ColType): ColumnDef => ({ name, type });

/** rowid … interface_id, the first columns of every alert table */
const head = (...own: ColumnDef[]) => [c('rowid', 'str'), ...own, c('alert_id', 'u32'), c('alert_status', 'u8'), c('interface_id', 'u16')];
/** tstamp … user_label_tstamp (am: no granularity) */
const tail = (granularity = true) => [
  c('tstamp', 'datetime'),
  c('tstamp_end', 'datetime'),
  c('severity', 'u8'),
  c('score', 'u16'),
  ...(granularity ? [c('granularity', 'u8')] : []),
  c('counter', 'u32'),
  c('description', 'str'),
  c('json', 'str'),
  c('user_label', 'str'),
  c('user_label_tstamp', 'datetime'),
];

const table = (name: string, columns: ColumnDef[]): TableDef => ({ name, columns, orderBy: ['tstamp'], partitionBy: 'tstamp' });

export const ALERT_TABLES: Readonly<Record<AlertFamily, TableDef>> = {
  am_host: table('active_monitoring_alerts', [
    ...head(),
    c('resolved_ip', 'str'), c('resolved_name', 'str'), c('measurement', 'str'), c('measure_threshold', 'u32'), c('measure_value', 'f64'),
    ...tail(false),
    c('alert_category', 'u8'),
  ]),
  host: table('host_alerts', [
    ...head(),
    c('ip_version', 'u8'), c('ip', 'str'), c('vlan_id', 'u16'), c('name', 'str'),
    c('is_attacker', 'u8'), c('is_victim', 'u8'), c('is_client', 'u8'), c('is_server', 'u8'),
    ...tail(),
    c('host_pool_id', 'u16'), c('network', 'u16'), c('country', 'str'), c('alert_category', 'u8'),
  ]),
  mac: table('mac_alerts', [
    ...head(),
    c('address', 'str'), c('device_type', 'u8'), c('name', 'str'), c('is_attacker', 'u8'), c('is_victim', 'u8'),
    ...tail(),
    c('alert_category', 'u8'),
  ]),
  snmp_device: table('snmp_alerts', [
    ...head(),
    c('ip', 'str'), c('port', 'u32'), c('name', 'str'), c('port_name', 'str'),
    ...tail(),
    c('alert_category', 'u8'),
  ]),
  network: table('network_alerts', [
    ...head(c('local_network_id', 'u16')),
    c('name', 'str'), c('alias', 'str'),
    ...tail(),
    c('alert_category', 'u8'),
  ]),
  interface: table('interface_alerts', [
    ...head(c('ifid', 'u8')),
    c('subtype', 'str'), c('name', 'str'), c('alias', 'str'),
    ...tail(),
    c('alert_category', 'u8'),
  ]),
  user: table('user_alerts', [...head(), c('user', 'str'), ...tail(), c('alert_category', 'u8')]),
  system: table('system_alerts', [...head(), c('name', 'str'), ...tail(), c('alert_category', 'u8')]),
};

/** ntopng's alert_status column: stored alerts are historical (0) until acknowledged (1); 2 = engaged (memory only) */
export const ALERT_STATUS = { historical: 0, acknowledged: 1, engaged: 2 } as const;

/** ntopng stores the system interface (-1) as the u_int16_t 65535 */
export const storedIfid = (ifid: number) => (ifid < 0 ? 0xffff : ifid);
export const ifidOfStored = (v: number) => (v === 0xffff ? -1 : v);

/** alert_family of get/alert/list/alerts.lua → our family */
export const QUERY_FAMILY: Readonly<Record<string, AlertFamily | 'flow'>> = {
  active_monitoring: 'am_host', flow: 'flow', host: 'host', interface: 'interface', mac: 'mac',
  network: 'network', snmp: 'snmp_device', system: 'system', user: 'user',
};
