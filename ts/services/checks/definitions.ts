// ⑧ ntopng's checks as data: one entry per check definition
// (scripts/lua/modules/check_definitions/<subdir>/<key>.lua, plus the flow
// checks every nDPI risk gets without a file of its own), with what its
// configuration starts from and the alerts it raises; `runs` marks the ones
// flowgate evaluates today.
//
// Facts from ntopng (read, not copied): the definitions' category,
// default_enabled (absent means enabled: checks.lua init_check), default_value
// (the script_conf a fresh configset holds), severity and alert_id;
// src/FlowRiskAlerts.cpp (risk → check name, the category of risk checks
// without a file); alert_keys/*.lua (alert ids); checks.lua script_types
// (flow checks hold one 'all' hook, host/interface/network/system checks a
// hook per granularity: every definition here runs on 'min').
import { CATEGORY, FLOW_CHECK_ALERTS, FLOW_RISK_ALERTS } from '../alerts/catalogue.js';
import { HOST_CHECK_NAMES, type HostCheckName } from '../alerts/types.js';

/** ntopng's check subdirs (checks.lua available_subdirs): what check_subdir accepts. */
export const CHECK_SUBDIRS = ['host', 'interface', 'network', 'snmp_device', 'flow', 'system', 'active_monitoring', 'syslog'] as const;
export type CheckSubdir = (typeof CHECK_SUBDIRS)[number];

/** The hooks a check's configuration is kept under (checks.lua getScriptConfig). */
export const CHECK_HOOKS = ['all', 'min', '5mins', 'hour', 'day'] as const;

export type ScriptConf = Record<string, unknown>;

export interface CheckDef {
  subdir: CheckSubdir;
  /** script key (the definition's file name) */
  key: string;
  /** the check's category (alert_categories.lua id) */
  category: number;
  /** the definition's severity (AlertLevel id); null where it has none (flow checks are scored) */
  severity: number | null;
  defaultEnabled: boolean;
  /** script_conf of a fresh configuration (default_value; {} when none) */
  defaultValue: ScriptConf;
  /** the hook its configuration is kept under */
  hook: 'all' | 'min';
  /** alert ids it raises (flow: flow_alert_keys; host: host_alert_keys; others: other_alert_keys) */
  alertIds: readonly number[];
  /** the UI template its script_conf follows ('threshold_cross': threshold + operator) */
  template: 'threshold_cross' | 'multi_threshold_cross' | 'items_list' | null;
  /** flowgate evaluates it: the nDPI risk flow checks and the packet-counting host checks */
  runs: boolean;
}

const { other: OTH, security: SEC, internals: INT, network: NET, system: SYS, ids_ips: IDS } = CATEGORY;
/** AlertLevel ids (ntop_typedefs.h) */
const NOTICE = 3, WARNING = 4, ERROR = 5, CRITICAL = 6, EMERGENCY = 8;

type Row = [key: string, category: number, severity: number | null, enabled: boolean, alertIds: number[], defaultValue?: ScriptConf];

const gt = (threshold: number | string) => ({ operator: 'gt', threshold });
const pct = (min: number, title: string) => ({ default_value: 15, field_min: min, field_max: 99, field_operator: 'gt', i18n_fields_unit: 'field_units.percentage', i18n_title: title });
const tcpIssues = (min: number) => ({ retransmissions: pct(min, 'retransmission'), out_of_orders: pct(min, 'out_of_order'), packet_loss: pct(min, 'packet_loss') });

// flow/*.lua (flow checks carry no severity: their alerts are scored)
const FLOW: Row[] = [
  ['binary_application_transfer', SEC, null, true, [29]],
  ['blacklisted', SEC, null, true, [1]],
  ['blacklisted_client_contact', SEC, null, true, [9]],
  ['blacklisted_server_contact', SEC, null, true, [13]],
  ['broadcast_non_udp_traffic', SEC, null, true, [67]],
  ['country_check', SEC, null, false, [2], { items: {} }],
  ['custom_lua_script', SEC, null, false, [87]],
  ['device_protocol_not_allowed', SEC, null, true, [5]],
  ['external_alert_check', OTH, null, true, [10]],
  ['iec_invalid_command_transition', SEC, null, false, [74]],
  ['iec_invalid_transition', SEC, null, false, [37]],
  ['iec_unexpected_type_id', SEC, null, false, [55], { items: [9, 13, 36, 45, 46, 48, 30, 103, 100, 37] }],
  ['known_proto_on_non_std_port', SEC, null, true, [30]],
  ['low_goodput', NET, null, true, [12]],
  ['ndpi_anonymous_subscriber', SEC, null, true, [76]],
  ['ndpi_clear_text_credentials', SEC, null, true, [62]],
  ['ndpi_desktop_or_file_sharing_session', SEC, null, true, [78]],
  ['ndpi_dns_fragmented', SEC, null, true, [65]],
  ['ndpi_dns_large_packet', SEC, null, true, [64]],
  ['ndpi_dns_suspicious_traffic', SEC, null, true, [53]],
  ['ndpi_error_code_detected', SEC, null, true, [71]],
  ['ndpi_http_crawler_bot', SEC, null, true, [72]],
  ['ndpi_http_obsolete_server', SEC, null, true, [84]],
  ['ndpi_http_suspicious_content', SEC, null, true, [63]],
  ['ndpi_http_suspicious_header', SEC, null, true, [45]],
  ['ndpi_http_suspicious_url', SEC, null, true, [44]],
  ['ndpi_http_suspicious_user_agent', SEC, null, true, [42]],
  ['ndpi_invalid_characters', SEC, null, true, [66]],
  ['ndpi_malformed_packet', SEC, null, true, [48]],
  ['ndpi_malicious_fingerprint', SEC, null, true, [79]],
  ['ndpi_malicious_sha1_certificate', SEC, null, true, [80]],
  ['ndpi_malware_host_contacted', NET, null, true, [98]],
  ['ndpi_numeric_ip_host', SEC, null, true, [43]],
  ['ndpi_periodic_flow', NET, null, true, [88]],
  ['ndpi_possible_exploit', SEC, null, true, [68]],
  ['ndpi_punicody_idn', SEC, null, true, [70]],
  ['ndpi_risky_asn', SEC, null, true, [85]],
  ['ndpi_risky_domain', SEC, null, true, [86]],
  ['ndpi_smb_insecure_version', SEC, null, true, [50]],
  ['ndpi_ssh_obsolete_client', SEC, null, true, [61]],
  ['ndpi_ssh_obsolete_server', SEC, null, true, [49]],
  ['ndpi_suspicious_dga_domain', SEC, null, true, [47]],
  ['ndpi_suspicious_entropy', SEC, null, true, [73]],
  ['ndpi_tls_certificate_about_to_expire', SEC, null, true, [69]],
  ['ndpi_tls_missing_sni', SEC, null, true, [54]],
  ['ndpi_tls_not_carrying_https', SEC, null, true, [46]],
  ['ndpi_tls_suspicious_esni_usage', SEC, null, true, [51]],
  ['ndpi_unidirectional_traffic', NET, null, true, [26]],
  ['ndpi_unsafe_protocol', SEC, null, true, [52]],
  ['ndpi_url_possible_rce_injection', SEC, null, true, [41]],
  ['ndpi_url_possible_sql_injection', SEC, null, true, [40]],
  ['ndpi_url_possible_xss', SEC, null, true, [39]],
  ['not_purged', INT, null, true, [14]],
  // the file names flow_alert_low_goodput; its C++ check raises rare_destination (92)
  ['rare_destination', NET, null, true, [92]],
  ['remote_access', NET, null, true, [57]],
  ['remote_to_local_insecure_flow', SEC, null, true, [38]],
  ['remote_to_remote', NET, null, false, [16]],
  ['tcp_flow_reset', SEC, null, false, [100]],
  ['tcp_no_data_exchanged', NET, null, true, [56]],
  ['tcp_packets_issues', NET, null, false, [19], tcpIssues(0)],
  ['unexpected_dhcp', SEC, null, false, [32], { items: {} }],
  ['unexpected_dns', SEC, null, false, [33], { items: {} }],
  ['unexpected_ntp', SEC, null, false, [35], { items: {} }],
  ['unexpected_smtp', SEC, null, false, [34], { items: {} }],
  ['vlan_bidirectional_traffic', SEC, null, false, [91], { items: {} }],
  ['web_mining', SEC, null, true, [27], { items: {} }],
  ['zero_tcp_window', NET, null, true, [36]],
];

// host/*.lua (host_alert_keys ids)
const HOST: Row[] = [
  ['countries_contacts', SEC, NOTICE, false, [16], gt(100)],
  ['custom_host_lua_script', NET, ERROR, false, [24]],
  ['dangerous_host', IDS, ERROR, false, [14], gt('1000')],
  ['dns_contacts', SEC, NOTICE, false, [2], gt(5)],
  ['domain_names_contacts', NET, NOTICE, false, [7], gt(250)],
  ['external_host_script', NET, ERROR, false, [27]],
  ['fin_scan', NET, ERROR, false, [21], gt(256)],
  ['flow_flood', SEC, ERROR, false, [4], gt(256)],
  ['icmp_flood', SEC, ERROR, false, [18], gt(250)],
  ['ntp_contacts', SEC, NOTICE, false, [3], gt(5)],
  ['remote_connection', NET, NOTICE, false, [12]],
  ['rst_scan', NET, ERROR, false, [25], gt(256)],
  ['scan_detection', SEC, ERROR, false, [20], gt(32)],
  ['score_threshold', SEC, ERROR, true, [17], gt(5000)],
  ['smtp_contacts', NET, NOTICE, false, [1], gt(5)],
  ['syn_scan', NET, ERROR, false, [5], gt(256)],
  ['unexpected_gateway', SEC, null, false, [8], { items: {} }],
];

// interface/*.lua (other_alert_keys ids: 4096 + n)
const INTERFACE: Row[] = [
  ['dropped_alerts', INT, ERROR, true, [4099]],
  ['ghost_networks', SEC, WARNING, true, [4102]],
  ['no_if_activity', INT, EMERGENCY, true, [4146]],
  ['no_probe_or_exporter_activity', INT, EMERGENCY, true, [4122, 4103]],
  ['periodic_activity_not_executed', INT, WARNING, true, [4118]],
  ['slow_periodic_activity', INT, ERROR, true, [4128]],
  ['too_many_drops', SYS, ERROR, true, [4137], gt(5)],
];

// network/*.lua; broadcast_domain_too_large and ip_reassignment only switch
// alerts the C++ core raises (broadcast_domain_too_large, mac_ip_association_change)
const NETWORK: Row[] = [
  ['broadcast_domain_too_large', NET, WARNING, true, [4164], { items: {} }],
  ['flow_flood_victim', SEC, ERROR, false, [4153], gt(32768)],
  ['ip_reassignment', NET, WARNING, false, [4112]],
  ['network_discovery', NET, NOTICE, true, [4171]],
  ['network_issues', NET, ERROR, false, [4179], tcpIssues(1)],
  ['syn_scan_victim', SEC, ERROR, false, [4157], gt(32768)],
];

// system/*.lua
const SYSTEM: Row[] = [
  ['dropped_alerts', INT, ERROR, true, [4099]],
  ['exporters_limit_exceeded', INT, CRITICAL, true, [4192]],
  ['ids_ips_log', IDS, NOTICE, false, [4168, 4169]],
  ['periodic_activity_not_executed', INT, ERROR, true, [4118]],
  ['slow_periodic_activity', INT, ERROR, true, [4128]],
  ['system_error', INT, EMERGENCY, true, [4187]],
  // flowgate's own (ntopng has none): threshold crossings of this process's
  // resident memory (MiB) and of the data directory's disk use (%), off by default
  ['memory_usage', SYS, ERROR, false, [4136], gt(4096)],
  ['disk_space', SYS, ERROR, false, [4136], gt(90)],
  // ntopng's is among its closed pro scripts (vs_utils asks for system/ or
  // active_monitoring/vulnerability_scan): changes found by an active scan
  ['vulnerability_scan', SEC, WARNING, true, [4184]],
];

/** nDPI risk → check name where it is not the alert's key (FlowRiskAlerts.cpp) */
const RISK_CHECK_NAMES: Record<number, string> = {
  4: 'binary_application_transfer',
  5: 'known_proto_on_non_std_port',
  6: 'tls_certificate_selfsigned',
  8: 'tls_unsafe_ciphers',
  9: 'tls_certificate_expired',
  10: 'tls_certificate_mismatch',
};

/** The flow check that raises a risk's alert. */
export const riskCheckKey = (risk: number, alertKey: string) => RISK_CHECK_NAMES[risk] ?? alertKey;

/** The host checks flowgate runs (their hits come from the engine's per-minute counters). */
export const RUNNING_HOST_CHECKS: readonly HostCheckName[] = HOST_CHECK_NAMES;
/** The host checks flowgate runs on the engine's host scores and MACs (host-checks.ts). */
const SCORE_HOST_CHECKS = ['score_threshold', 'dangerous_host', 'unexpected_gateway'];

/** The interface, network and system checks flowgate runs (interface-, network-, device-, system-checks.ts). */
const RUNNING_OTHER_CHECKS = new Set([
  'interface/too_many_drops', 'interface/no_if_activity', 'interface/ghost_networks', 'interface/dropped_alerts',
  'network/syn_scan_victim', 'network/flow_flood_victim', 'network/ip_reassignment', 'network/broadcast_domain_too_large', 'network/network_issues',
  'system/dropped_alerts', 'system/memory_usage', 'system/disk_space', 'system/vulnerability_scan',
  'system/slow_periodic_activity', 'system/periodic_activity_not_executed', 'system/system_error',
]);

const TEMPLATES: Record<string, CheckDef['template']> = {
  'flow/country_check': 'items_list',
  'flow/iec_unexpected_type_id': 'items_list',
  'flow/vlan_bidirectional_traffic': 'items_list',
  'flow/tcp_packets_issues': 'multi_threshold_cross',
  'network/network_issues': 'multi_threshold_cross',
};

function build(): CheckDef[] {
  const riskKeys = new Set(FLOW_RISK_ALERTS.map((r) => riskCheckKey(r.risk, r.key)));
  const ownAlerts = new Set(FLOW_CHECK_ALERTS.map((c) => c.alertId));
  const out: CheckDef[] = [];
  const add = (subdir: CheckSubdir, rows: Row[]) => {
    for (const [key, category, severity, defaultEnabled, alertIds, defaultValue = {}] of rows) {
      const threshold = typeof defaultValue.threshold !== 'undefined';
      out.push({
        subdir,
        key,
        category,
        severity,
        defaultEnabled,
        defaultValue,
        hook: subdir === 'flow' ? 'all' : 'min',
        alertIds,
        template: TEMPLATES[`${subdir}/${key}`] ?? (threshold ? 'threshold_cross' : null),
        runs:
          subdir === 'flow'
            ? riskKeys.has(key) || alertIds.some((id) => ownAlerts.has(id))
            : subdir === 'host'
              ? (RUNNING_HOST_CHECKS as readonly string[]).includes(key) || SCORE_HOST_CHECKS.includes(key)
              : RUNNING_OTHER_CHECKS.has(`${subdir}/${key}`),
      });
    }
  };
  add('flow', FLOW);
  // risk checks without a definition file: ntopng's flow_risk_simple_check_definition
  // (enabled, empty script_conf), category and alert from FlowRiskAlerts.cpp
  const files = new Set(FLOW.map((r) => r[0]));
  add(
    'flow',
    FLOW_RISK_ALERTS.filter((r) => !files.has(riskCheckKey(r.risk, r.key))).map((r): Row => [riskCheckKey(r.risk, r.key), r.category, null, true, [r.alertId]]),
  );
  add('host', HOST);
  add('interface', INTERFACE);
  add('network', NETWORK);
  add('system', SYSTEM);
  return out;
}

export const CHECK_DEFS: readonly CheckDef[] = build();

const BY_KEY = new Map(CHECK_DEFS.map((d) => [`${d.subdir}/${d.key}`, d]));

export const checkDef = (subdir: string, key: string): CheckDef | undefined => BY_KEY.get(`${subdir}/${key}`);

export const isCheckSubdir = (s: string): s is CheckSubdir => (CHECK_SUBDIRS as readonly string[]).includes(s);

/** The flow check raising each of ntopng's own flow alerts the record answers (index = FLOW_CHECK_ALERTS bit). */
export const OWN_FLOW_CHECKS: readonly (CheckDef | undefined)[] = FLOW_CHECK_ALERTS.map((c) =>
  CHECK_DEFS.find((d) => d.subdir === 'flow' && d.alertIds.includes(c.alertId)),
);

/** The flow check of each nDPI risk id that raises an alert (index = risk id). */
export const RISK_CHECKS: readonly (CheckDef | undefined)[] = (() => {
  const a: (CheckDef | undefined)[] = new Array(64).fill(undefined);
  for (const r of FLOW_RISK_ALERTS) a[r.risk] = checkDef('flow', riskCheckKey(r.risk, r.key));
  return a;
})();
