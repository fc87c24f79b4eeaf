// ⑧ The contract between what raises alerts (host/interface/system checks,
// user activity) and the alert service that holds engaged alerts and stores
// past ones. Flow alerts are not raised through here: they are the flows
// rows whose STATUS is set (flow-alerts.ts).

/** ntopng's alert entities (alert_entities.lua) other than flow, by their family name. */
export type AlertFamily = 'host' | 'interface' | 'network' | 'mac' | 'system' | 'user' | 'am_host' | 'snmp_device';

export const ALERT_FAMILIES: readonly AlertFamily[] = ['host', 'interface', 'network', 'mac', 'system', 'user', 'am_host', 'snmp_device'];

/** ntopng's system interface id: system and user alerts belong to it. */
export const SYSTEM_IFID = -1;

/** What identifies one engaged alert: a second trigger with the same key refreshes it. */
export interface AlertKey {
  family: AlertFamily;
  ifid: number;
  /** ntopng's entity value: host 'ip@vlan' (or 'ip' when untagged), interface ifid, network CIDR, MAC, user name, 'system' */
  entityVal: string;
  /** ntopng alert id within the family's key table (host_alert_keys.lua, other_alert_keys.lua) */
  alertId: number;
  /** tells apart alerts of one type on one entity (ntopng's subtype; '' when none) */
  subtype: string;
}

export interface AlertInput extends AlertKey {
  /** epoch seconds (packet time for traffic checks, wall time for user/system activity) */
  tstamp: number;
  score: number;
  /** ntopng AlertLevel id (catalogue.ts SEVERITIES) */
  severity: number;
  /**
   * The family's own columns, named as ntopng's alert tables name them
   * (httpdocs/misc/db_schema_clickhouse.sql), e.g. host: ip, vlan_id, name,
   * is_attacker, is_victim, is_client, is_server; user: user (the user name).
   */
  fields: Record<string, string | number>;
  /** the alert's JSON as ntopng stores it (what the check measured: hits, threshold, …) */
  json: Record<string, unknown>;
}

/** An engaged alert as held in memory. */
export interface EngagedAlert extends AlertInput {
  /** when it was first raised (epoch s); `tstamp` of the input is the last refresh */
  firstSeen: number;
  /** how many times it was raised or refreshed */
  count: number;
}

/** What checks call; implemented by the alert service. Never blocks, never throws for a full queue (drops are counted). */
export interface AlertSink {
  /** raises the alert, or refreshes it when one with the same key is engaged */
  engage(a: AlertInput): void;
  /** ends an engaged alert: it is stored with tstamp_end = tstamp; unknown keys are ignored */
  release(key: AlertKey, tstamp: number): void;
  /** the engaged alerts of one family on one interface (a snapshot) */
  engaged(family: AlertFamily, ifid: number): EngagedAlert[];
  /** a one-shot alert (user login, configuration change): stored at once, never engaged */
  emit(a: AlertInput): void;
  /** an engaged alert ended without being stored (excluded with delete_alerts): subscribers drop what they track of it */
  forget?(key: AlertKey): void;
}

/** The key text of an alert (map key of engaged alerts). */
export const alertKeyText = (k: AlertKey) => `${k.family}|${k.ifid}|${k.entityVal}|${k.alertId}|${k.subtype}`;

/** ntopng's FlowHits-style host checks (an attacker and a victim figure per host and minute; host data's hits.*). */
export type FlowHitsCheckName = 'syn_scan' | 'fin_scan' | 'rst_scan' | 'flow_flood' | 'icmp_flood';
export const FLOW_HITS_CHECKS: readonly FlowHitsCheckName[] = ['syn_scan', 'fin_scan', 'rst_scan', 'flow_flood', 'icmp_flood'];
/** ntopng's host checks with one figure per host, taken by the engine when a minute closes (`attacker` holds it). */
export type ValueCheckName = 'scan_detection' | 'dns_contacts' | 'ntp_contacts' | 'smtp_contacts' | 'domain_names_contacts' | 'remote_connection' | 'countries_contacts';
export const VALUE_CHECKS: readonly ValueCheckName[] = ['scan_detection', 'dns_contacts', 'ntp_contacts', 'smtp_contacts', 'domain_names_contacts', 'remote_connection', 'countries_contacts'];
/** The host checks the engine measures per minute (src/host_checks/), in the addon's order. */
export type HostCheckName = FlowHitsCheckName | ValueCheckName;
export const HOST_CHECK_NAMES: readonly HostCheckName[] = [...FLOW_HITS_CHECKS, ...VALUE_CHECKS];

/**
 * One host's hits in the minute that ended at a tick (Engine.hostCheckHits):
 * for each check asked for, the attacker and victim figures as ntopng's
 * Host::<check>_attacker_hits()/_victim_hits() compute them.
 */
export interface HostCheckHits {
  ip: string;
  vlan: number;
  /** a local host (ntopng's localhost flag) */
  local: boolean;
  /** the host's name as the engine learned it ('' when none) */
  name: string;
  hits: Partial<Record<HostCheckName, { attacker: number; victim: number }>>;
}
