// ⑧ The alert catalogue of every family but flow (flow: catalogue.ts), as
// data: ntopng's alert key names and ids, which families (alert entities)
// raise each, its category and the default score ntopng gives it.
//
// Sources (facts only): scripts/lua/modules/alert_keys/host_alert_keys.lua
// and other_alert_keys.lua (ids; other keys are 4096 + n), alert_entities.lua
// (entity ids and store names), include/host_alerts/*.h (getClassType:
// category; getAlertScore: score, HostAlert's default SCORE_LEVEL_NOTICE,
// FlowHitsAlert's SCORE_LEVEL_WARNING, ServerContactsAlert's NOTICE,
// ScoreThresholdAlert's SEVERE), alert_definitions/other/*.lua (meta.entities:
// host_pool is stored with system alerts, as ntopng's alert_store_name says)
// and the set_score_*() of the scripts raising them (Utils::mapSeverityToScore:
// notice 10, warning 50, error 100, critical 200, emergency 250). Other
// alerts set no category (ntopng's 'other', 0); a score left undefined is the
// one the raising check gives.
import { alertTitle } from './titles.js';
import { CATEGORY } from './catalogue.js';
import type { AlertFamily } from './types.js';

/** ntopng's alert entity ids (ntop_typedefs.h AlertEntity, alert_entities.lua) */
export const ENTITY_ID: Readonly<Record<AlertFamily | 'flow', number>> = {
  interface: 0, host: 1, network: 2, snmp_device: 3, flow: 4, mac: 5, user: 7, am_host: 8, system: 9,
};
export const FAMILY_OF_ENTITY: ReadonlyMap<number, AlertFamily | 'flow'> = new Map(Object.entries(ENTITY_ID).map(([f, id]) => [id, f as AlertFamily | 'flow']));

export interface AlertKeyInfo {
  id: number;
  /** ntopng's key name (host_alert_syn_scan, alert_login_failed) */
  key: string;
  families: readonly AlertFamily[];
  category: number;
  /** the score ntopng raises it with (undefined: the check decides) */
  score?: number;
  /** kept for old rows only: ntopng no longer raises it */
  obsolete?: boolean;
}

const { security: SEC, network: NET, other: OTH } = CATEGORY;
const NOTICE = 10, WARNING = 50, ERROR = 100, SEVERE = 150, CRITICAL = 200, EMERGENCY = 250;

// [id, key, category, score, obsolete]
const HOST: [number, string, number, number | undefined, boolean?][] = [
  [0, 'host_alert_normal', OTH, undefined],
  [1, 'host_alert_smtp_server_contacts', SEC, NOTICE],
  [2, 'host_alert_dns_server_contacts', SEC, NOTICE],
  [3, 'host_alert_ntp_server_contacts', SEC, NOTICE],
  [4, 'host_alert_flow_flood', SEC, WARNING],
  [5, 'host_alert_syn_scan', SEC, WARNING],
  [6, 'host_alert_syn_flood', SEC, EMERGENCY, true],
  [7, 'host_alert_domain_names_contacts', NET, NOTICE],
  [8, 'host_alert_unexpected_gateway', NET, ERROR, true],
  [10, 'host_alert_flows_anomaly', NET, WARNING],
  [11, 'host_alert_score_anomaly', SEC, WARNING],
  [12, 'host_alert_remote_connection', NET, NOTICE],
  [13, 'host_alert_host_log', OTH, undefined],
  [14, 'host_alert_dangerous_host', SEC, ERROR],
  [16, 'host_alert_countries_contacts', SEC, NOTICE],
  [17, 'host_alert_score_threshold', SEC, SEVERE],
  [18, 'host_alert_icmp_flood', SEC, WARNING],
  [20, 'host_alert_scan_detected', SEC, ERROR],
  [21, 'host_alert_fin_scan', SEC, WARNING],
  [22, 'host_alert_dns_flood', SEC, WARNING],
  [23, 'host_alert_snmp_flood', SEC, WARNING],
  [24, 'host_alert_custom_lua_script', SEC, undefined],
  [25, 'host_alert_rst_scan', SEC, WARNING],
  [26, 'host_alert_traffic_volume', NET, ERROR],
  [27, 'host_alert_external_script', OTH, undefined],
  [28, 'host_alert_host_scanner', SEC, CRITICAL],
  [29, 'host_alert_server_ports_contacts', SEC, WARNING],
];

// [id, key, families, score] (other_alert_keys.lua; families from the definition's entities)
const OTHER: [number, string, AlertFamily[], number | undefined][] = [
  [4097, 'alert_device_connection', [], undefined],
  [4098, 'alert_device_disconnection', [], undefined],
  [4099, 'alert_dropped_alerts', ['system', 'interface'], undefined],
  [4100, 'alert_gateway_unreachable', ['system'], undefined],
  [4101, 'alert_flow_flood', [], undefined],
  [4102, 'alert_ghost_network', ['interface', 'network'], undefined],
  [4103, 'alert_no_exporter_activity', ['interface'], undefined],
  [4104, 'alert_host_pool_disconnection', [], undefined],
  [4105, 'alert_influxdb_dropped_points', [], undefined],
  [4106, 'alert_influxdb_error', ['system'], 100],
  [4107, 'alert_influxdb_export_failure', [], undefined],
  [4109, 'alert_ip_outsite_dhcp_range', [], 50],
  [4110, 'alert_list_download_failed', ['system'], 100],
  [4111, 'alert_login_failed', ['user', 'system'], 50],
  [4112, 'alert_mac_ip_association_change', ['mac'], 100],
  [4113, 'alert_misbehaving_flows_ratio', [], undefined],
  [4114, 'alert_misconfigured_app', ['system'], undefined],
  [4115, 'alert_cloud_disconnected', ['system'], 50],
  [4116, 'alert_nfq_flushed', ['system'], 100],
  [4117, 'alert_cloud_reconnected', ['system'], 10],
  [4118, 'alert_periodic_activity_not_executed', ['system'], undefined],
  [4119, 'alert_am_threshold_cross', ['am_host'], 50],
  [4120, 'alert_port_duplexstatus_change', ['snmp_device'], undefined],
  [4121, 'alert_port_errors', ['snmp_device'], undefined],
  [4122, 'alert_no_probe_activity', ['interface'], undefined],
  [4123, 'alert_port_mac_changed', ['snmp_device'], undefined],
  [4124, 'alert_port_status_change', ['snmp_device'], undefined],
  [4125, 'alert_process_notification', ['system'], undefined],
  [4126, 'alert_quota_exceeded', ['system'], undefined],
  [4127, 'alert_request_reply_ratio', [], undefined],
  [4128, 'alert_slow_periodic_activity', ['system'], undefined],
  [4129, 'alert_notused_1', [], undefined],
  [4130, 'alert_snmp_device_reset', ['snmp_device'], undefined],
  [4131, 'alert_snmp_topology_changed', ['snmp_device'], undefined],
  [4132, 'alert_snmp_trap', ['snmp_device'], 50],
  [4133, 'alert_tcp_syn_flood', [], undefined],
  [4134, 'alert_tcp_syn_scan', [], undefined],
  [4135, 'alert_test_failed', [], undefined],
  [4136, 'alert_threshold_cross', ['interface', 'network', 'system'], undefined],
  [4137, 'alert_too_many_drops', ['interface'], undefined],
  [4138, 'alert_unresponsive_device', [], undefined],
  [4139, 'alert_user_activity', ['user'], 10],
  [4140, 'alert_check_calls_drops', [], undefined],
  [4141, 'alert_host_log', [], undefined],
  [4142, 'alert_attack_mitigation_via_snmp', ['snmp_device'], undefined],
  [4143, 'alert_iec104_error', [], undefined],
  [4144, 'alert_lateral_movement', [], undefined],
  [4145, 'alert_list_download_succeeded', ['system'], 10],
  [4146, 'alert_no_if_activity', ['interface'], undefined],
  [4147, 'alert_device_connection_disconnection', ['interface'], undefined],
  [4148, 'alert_shell_script_executed', ['system'], 10],
  [4149, 'alert_periodicity_update', [], undefined],
  [4150, 'alert_dns_positive_error_ratio', [], undefined],
  [4151, 'alert_fail2ban_executed', [], undefined],
  [4152, 'alert_flow_flood_attacker', [], undefined],
  [4153, 'alert_flow_flood_victim', ['network'], undefined],
  [4154, 'alert_tcp_syn_flood_attacker', [], undefined],
  [4155, 'alert_tcp_syn_flood_victim', [], undefined],
  [4156, 'alert_tcp_syn_scan_attacker', [], undefined],
  [4157, 'alert_tcp_syn_scan_victim', ['network'], undefined],
  [4158, 'alert_contacted_peers', [], undefined],
  [4159, 'alert_contacts_anomaly', [], undefined],
  [4160, 'alert_score_anomaly_client', [], undefined],
  [4161, 'alert_score_anomaly_server', [], undefined],
  [4162, 'alert_active_flows_anomaly_client', [], undefined],
  [4163, 'alert_active_flows_anomaly_server', [], undefined],
  [4164, 'alert_broadcast_domain_too_large', ['mac'], 50],
  [4165, 'alert_ngi_trust_event', [], undefined],
  [4166, 'alert_excessive_traffic', [], undefined],
  [4167, 'alert_behavior_anomaly', [], undefined],
  [4168, 'alert_ids_ips_jail_add', ['interface'], undefined],
  [4169, 'alert_ids_ips_jail_remove', ['interface'], 10],
  [4170, 'alert_port_too_many_macs', ['snmp_device'], undefined],
  [4171, 'alert_network_discovery_executed', ['interface'], 10],
  [4172, 'alert_port_mac_appeared', ['snmp_device'], undefined],
  [4173, 'alert_port_mac_disappeared', ['snmp_device'], undefined],
  [4174, 'alert_network_score_per_host', [], undefined],
  [4175, 'alert_dhcp_storm', ['interface'], undefined],
  [4176, 'alert_snmp_interface_errors', ['snmp_device'], undefined],
  [4177, 'alert_snmp_device_traffic_change', ['snmp_device'], undefined],
  [4178, 'alert_local_host_blacklisted', ['system'], undefined],
  [4179, 'alert_network_issues', ['network'], undefined],
  [4180, 'alert_network_rule_threshold_cross', ['system', 'interface'], undefined],
  [4181, 'alert_snmp_interface_threshold_crossed', ['snmp_device'], undefined],
  [4182, 'alert_score_behavior_anomaly', ['interface'], undefined],
  [4183, 'alert_traffic_behavior_anomaly', ['interface'], undefined],
  [4184, 'alert_vulnerability_scan', ['am_host'], undefined],
  [4185, 'alert_host_pool_rule_threshold_crossed', ['system', 'interface'], undefined],
  [4186, 'alert_cidr_rule_threshold_crossed', ['system', 'network'], undefined],
  [4187, 'alert_system_error', ['system'], 250],
  [4188, 'alert_port_avg_usages_threshold_crossed', [], undefined],
  [4189, 'alert_vlan_rule_threshold_crossed', ['system', 'interface'], undefined],
  [4190, 'alert_profile_rule_threshold_crossed', ['system', 'interface'], undefined],
  [4191, 'alert_snmp_device_polling_error', ['snmp_device'], undefined],
  [4192, 'alert_exporters_limit_exceeded', ['system'], 250],
];

export const HOST_ALERT_KEYS: readonly AlertKeyInfo[] = HOST.map(([id, key, category, score, obsolete]) => ({
  id, key, families: ['host'], category, ...(score !== undefined ? { score } : {}), ...(obsolete ? { obsolete } : {}),
}));

const OBSOLETE = new Set([4101, 4133, 4134, 4140, 4141, 4143, 4144, 4149, 4154, 4155, 4166, 4188]);
export const OTHER_ALERT_KEYS: readonly AlertKeyInfo[] = OTHER.map(([id, key, families, score]) => ({
  id, key, families: [...new Set(families)], category: OTH, ...(score !== undefined ? { score } : {}), ...(OBSOLETE.has(id) ? { obsolete: true } : {}),
}));

const HOST_BY_ID = new Map(HOST_ALERT_KEYS.map((k) => [k.id, k]));
const OTHER_BY_ID = new Map(OTHER_ALERT_KEYS.map((k) => [k.id, k]));

/** The key of an alert id within a family's table (host ids are their own; every other family uses the other keys). */
export function alertKeyInfo(family: AlertFamily, id: number): AlertKeyInfo | undefined {
  return family === 'host' ? HOST_BY_ID.get(id) : OTHER_BY_ID.get(id);
}

/** The alert types a family raises (ntopng's getAlertTypesInfo per entity), by id. */
export function familyAlertKeys(family: AlertFamily): AlertKeyInfo[] {
  if (family === 'host') return HOST_ALERT_KEYS.filter((k) => !k.obsolete);
  return OTHER_ALERT_KEYS.filter((k) => !k.obsolete && k.families.includes(family));
}

/** An alert type's key name (ntopng's alert key), as the v1 type counters give it. */
export function familyAlertName(family: AlertFamily, id: number): string {
  return alertKeyInfo(family, id)?.key ?? String(id);
}

/** An alert type's label (alert_consts.alertTypeLabel: its English title; the key when it has none). */
export function familyAlertLabel(family: AlertFamily, id: number): string {
  return alertTitle(family === 'host' ? 'host' : 'other', id) ?? alertKeyInfo(family, id)?.key ?? String(id);
}
