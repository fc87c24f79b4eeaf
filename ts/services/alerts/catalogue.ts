// ⑧ Flow alerts from nDPI flow risks, as ntopng raises them: the catalogue
// as data and the alert columns a flow row carries.
//
// Sources (facts only): ntopng src/FlowRiskAlerts.cpp (risk → alert type and
// category; a risk with no entry raises no alert), include/ntop_typedefs.h
// (FlowAlertTypeEnum ids = scripts/lua/modules/alert_keys/flow_alert_keys.lua,
// AlertCategory, AlertLevel), src/Flow.cpp setAlertsBitmap (score, predominant
// alert), src/Utils.cpp mapScoreToSeverity, src/Bitmap128.cpp toHexString
// (ALERTS_MAP); nDPI src/lib/ndpi_main.c ndpi_known_risks (severity and
// client share per risk) and src/lib/ndpi_utils.c ndpi_risk2score.

/** nDPI risk severity → score (ndpi_risk_score) */
const LOW = 10, MEDIUM = 50, HIGH = 100, SEVERE = 150;
/** ntopng AlertCategory */
export const CATEGORY = { other: 0, security: 1, internals: 2, network: 3, system: 4, ids_ips: 5 } as const;

/** alert_categories.lua: each category's English title (checks.category_*) and icon, by id, as alert records label them */
export const CATEGORY_INFO: Readonly<Record<number, { label: string; icon: string }>> = {
  0: { label: 'Other', icon: 'fas fa-scroll' },
  1: { label: 'Cybersecurity', icon: 'fas fa-shield-alt' },
  2: { label: 'Internals', icon: 'fas fa-wrench' },
  3: { label: 'Network', icon: 'fas fa-network-wired' },
  4: { label: 'System', icon: 'fas fa-server' },
  5: { label: 'Intrusion Detection and Prevention', icon: 'fas fa-user-lock' },
  6: { label: 'Active Monitoring', icon: 'fas fa-tachometer-alt' },
  7: { label: 'SNMP', icon: 'fas fa-heartbeat' },
};
/** an alert record's alert_category: {value, label, icon} (ntopng's format_record; an unknown id: its number, no label) */
export const categoryField = (cat: number) => ({ value: String(cat), label: CATEGORY_INFO[cat]?.label ?? '', icon: CATEGORY_INFO[cat]?.icon ?? '' });
const { security: SEC, network: NET, other: OTH } = CATEGORY;

export interface FlowRiskAlert {
  /** ndpi_risk_enum id */
  risk: number;
  /** FlowAlertTypeEnum id (the STATUS column, alert_id of the API) */
  alertId: number;
  /** ntopng's alert key name (flow_alert_keys.lua, without the flow_alert_ prefix) */
  key: string;
  category: number;
  /** nDPI score of the risk alone (client + server) */
  score: number;
  /** client share of it (ndpi_risk2score: score × client% / 100, integer) */
  cliScore: number;
}

// [risk id, alert id, key, category, nDPI score, client %]
const ROWS: [number, number, string, number, number, number][] = [
  [1, 39, 'ndpi_url_possible_xss', SEC, SEVERE, 90],
  [2, 40, 'ndpi_url_possible_sql_injection', SEC, SEVERE, 90],
  [3, 41, 'ndpi_url_possible_rce_injection', SEC, SEVERE, 90],
  [4, 29, 'ndpi_binary_application_transfer', SEC, SEVERE, 50],
  [5, 30, 'ndpi_known_proto_on_non_std_port', SEC, MEDIUM, 50],
  [6, 28, 'ndpi_tls_certificate_selfsigned', SEC, HIGH, 90],
  [7, 24, 'ndpi_tls_old_protocol_version', SEC, HIGH, 90],
  [8, 25, 'ndpi_tls_unsafe_ciphers', SEC, HIGH, 90],
  [9, 22, 'ndpi_tls_certificate_expired', SEC, HIGH, 10],
  [10, 23, 'ndpi_tls_certificate_mismatch', SEC, HIGH, 50],
  [11, 42, 'ndpi_http_suspicious_user_agent', SEC, HIGH, 90],
  [12, 43, 'ndpi_numeric_ip_host', SEC, LOW, 50],
  [13, 44, 'ndpi_http_suspicious_url', SEC, HIGH, 90],
  [14, 45, 'ndpi_http_suspicious_header', SEC, HIGH, 90],
  [15, 46, 'ndpi_tls_not_carrying_https', SEC, LOW, 50],
  [16, 47, 'ndpi_suspicious_dga_domain', SEC, HIGH, 90],
  [17, 48, 'ndpi_malformed_packet', SEC, LOW, 50],
  [18, 61, 'ndpi_ssh_obsolete_client', SEC, HIGH, 90],
  [19, 49, 'ndpi_ssh_obsolete_server', SEC, MEDIUM, 10],
  [20, 50, 'ndpi_smb_insecure_version', SEC, HIGH, 90],
  [21, 51, 'ndpi_tls_suspicious_esni_usage', SEC, MEDIUM, 50],
  [22, 52, 'ndpi_unsafe_protocol', SEC, LOW, 50],
  [23, 53, 'ndpi_dns_suspicious_traffic', SEC, MEDIUM, 90],
  [24, 54, 'ndpi_tls_missing_sni', SEC, MEDIUM, 50],
  [25, 63, 'ndpi_http_suspicious_content', SEC, HIGH, 90],
  [26, 85, 'ndpi_risky_asn', SEC, MEDIUM, 50],
  [27, 86, 'ndpi_risky_domain', SEC, MEDIUM, 50],
  [28, 79, 'ndpi_malicious_fingerprint', SEC, MEDIUM, 50],
  [29, 80, 'ndpi_malicious_sha1_certificate', SEC, MEDIUM, 50],
  [30, 78, 'ndpi_desktop_or_file_sharing_session', SEC, LOW, 50],
  [31, 81, 'ndpi_tls_uncommon_alpn', OTH, MEDIUM, 50],
  [32, 60, 'ndpi_tls_cert_validity_too_long', SEC, MEDIUM, 50],
  [33, 82, 'ndpi_tls_suspicious_extension', SEC, HIGH, 90],
  [34, 83, 'ndpi_tls_fatal_alert', OTH, LOW, 50],
  [35, 73, 'ndpi_suspicious_entropy', SEC, LOW, 50],
  [36, 62, 'ndpi_clear_text_credentials', SEC, HIGH, 90],
  [37, 64, 'ndpi_dns_large_packet', SEC, MEDIUM, 50],
  [38, 65, 'ndpi_dns_fragmented', SEC, MEDIUM, 50],
  [39, 66, 'ndpi_invalid_characters', SEC, HIGH, 90],
  [40, 68, 'ndpi_possible_exploit', SEC, SEVERE, 90],
  [41, 69, 'ndpi_tls_certificate_about_to_expire', SEC, MEDIUM, 10],
  [42, 70, 'ndpi_punicody_idn', SEC, LOW, 10],
  [43, 71, 'ndpi_error_code_detected', NET, LOW, 10],
  [44, 72, 'ndpi_http_crawler_bot', NET, LOW, 10],
  [45, 76, 'ndpi_anonymous_subscriber', SEC, MEDIUM, 50],
  [46, 26, 'ndpi_unidirectional_traffic', NET, LOW, 50],
  [47, 84, 'ndpi_http_obsolete_server', SEC, MEDIUM, 10],
  [48, 88, 'ndpi_periodic_flow', NET, LOW, 10],
  [49, 89, 'ndpi_minor_issues', NET, LOW, 10],
  [50, 90, 'ndpi_tcp_issues', NET, MEDIUM, 50],
  [51, 96, 'ndpi_fully_encrypted', NET, MEDIUM, 50],
  [52, 97, 'ndpi_tls_alpn_sni_mismatch', SEC, MEDIUM, 50],
  [53, 98, 'ndpi_malware_host_contacted', SEC, SEVERE, 90],
  [54, 99, 'ndpi_binary_data_transfer', SEC, MEDIUM, 50],
  [55, 101, 'ndpi_probing_attempt', SEC, MEDIUM, 50],
  // 56 NDPI_OBFUSCATED_TRAFFIC: no entry in ntopng's table → no alert
];

export const FLOW_RISK_ALERTS: readonly FlowRiskAlert[] = ROWS.map(([risk, alertId, key, category, score, pct]) => ({
  risk,
  alertId,
  key,
  category,
  score,
  cliScore: Math.floor((score * pct) / 100),
}));

/** by nDPI risk id */
export const BY_RISK: readonly (FlowRiskAlert | undefined)[] = (() => {
  const a: (FlowRiskAlert | undefined)[] = new Array(64).fill(undefined);
  for (const r of FLOW_RISK_ALERTS) a[r.risk] = r;
  return a;
})();
/**
 * ntopng's own flow checks (src/flow_checks/) that a flow's row answers
 * (services/checks/flow-record-checks.ts decides): alert id and category
 * (include/flow_alerts/*Alert.h getClassType), score (getDefaultScore:
 * SCORE_LEVEL_NOTICE 10, WARNING 50, ERROR 100). `bit`: the check's bit in
 * the third word of a flow's alert mask (beside the 64 risk bits).
 */
export interface FlowCheckAlert {
  bit: number;
  alertId: number;
  key: string;
  category: number;
  score: number;
}

// [alert id, key, category, score], bit = position
const CHECK_ROWS: [number, string, number, number][] = [
  [57, 'remote_access', NET, 10],
  [27, 'web_mining_detected', SEC, 50],
  [67, 'broadcast_non_udp_traffic', SEC, 100],
  [100, 'tcp_flow_reset', NET, 10],
  [38, 'remote_to_local_insecure_proto', SEC, 100],
  [91, 'vlan_bidirectional_traffic', SEC, 100],
  [19, 'tcp_packets_issues', SEC, 100],
  [36, 'zero_tcp_window', NET, 10],
  [56, 'tcp_no_data_exchanged', NET, 10],
  [33, 'unexpected_dns_server', SEC, 100],
  [32, 'unexpected_dhcp_server', SEC, 100],
  [35, 'unexpected_ntp_server', SEC, 100],
  [34, 'unexpected_smtp_server', SEC, 100],
  // ntopng's default scores (CRITICAL, WARNING, CRITICAL); ntopng lowers a client contact the
  // server did not answer, and a server contact over ICMP, to NOTICE: not done here
  [1, 'blacklisted', SEC, 200],
  [9, 'blacklisted_client_contact', SEC, 50],
  [13, 'blacklisted_server_contact', SEC, 200],
  [16, 'remote_to_remote', NET, 10],
  // BlacklistedCountryAlert: SCORE_LEVEL_ERROR
  [2, 'blacklisted_country', SEC, 100],
  // LowGoodputFlowAlert: SCORE_LEVEL_NOTICE
  [12, 'low_goodput', NET, 10],
  // DeviceProtocolNotAllowedAlert: SCORE_LEVEL_ERROR
  [5, 'device_protocol_not_allowed', SEC, 100],
  // IEC104Stats raises these itself (triggerAlertSync) with client + server shares 90 + 10, 50 + 10 and
  // 90 + 10: what the flow's score grows by, not the alerts' getDefaultScore (NOTICE)
  [55, 'iec_unexpected_type_id', SEC, 100],
  [37, 'iec_invalid_transition', SEC, 60],
  [74, 'iec_invalid_command_transition', SEC, 100],
  // NotPurgedAlert: alert_internals, SCORE_LEVEL_WARNING
  [14, 'not_purged', CATEGORY.internals, 50],
];
export const FLOW_CHECK_ALERTS: readonly FlowCheckAlert[] = CHECK_ROWS.map(([alertId, key, category, score], bit) => ({ bit, alertId, key, category, score }));

/** by alert id (STATUS): the risks' alerts and the own checks' */
export type FlowAlertInfo = Pick<FlowCheckAlert, 'alertId' | 'key' | 'category' | 'score'>;
export const BY_ALERT_ID: ReadonlyMap<number, FlowAlertInfo> = new Map<number, FlowAlertInfo>([
  ...FLOW_RISK_ALERTS.map((r): [number, FlowAlertInfo] => [r.alertId, r]),
  ...FLOW_CHECK_ALERTS.map((c): [number, FlowAlertInfo] => [c.alertId, c]),
]);

/** ntopng's AlertLevel ids and their names, English titles (i18n_title) and colours (alert_severities.lua) */
export const SEVERITIES: Readonly<Record<number, { name: string; title: string; color: string }>> = {
  0: { name: 'none', title: 'None', color: '#a8e4ef' },
  1: { name: 'debug', title: 'Debug', color: '#a8e4ef' },
  2: { name: 'info', title: 'Info', color: '#c1f0c1' },
  3: { name: 'notice', title: 'Notice', color: '#5cd65c' },
  4: { name: 'warning', title: 'Warning', color: '#ffc007' },
  5: { name: 'error', title: 'Error', color: '#ff3231' },
  6: { name: 'critical', title: 'Critical', color: '#fb6962' },
  8: { name: 'emergency', title: 'Emergency', color: '#fb6962' },
};

/** Utils::mapScoreToSeverity: 0 none, <10 info, <50 notice, <100 warning, <200 error, <250 critical, else emergency */
export function scoreToSeverity(score: number): number {
  if (score < 1) return 0;
  if (score < 10) return 2;
  if (score < 50) return 3;
  if (score < 100) return 4;
  if (score < 200) return 5;
  if (score < 250) return 6;
  return 8;
}

/** The alert columns of a flow row (names as in flow-columns.ts). */
export interface FlowAlertColumns {
  SCORE: number;
  STATUS: number;
  ALERTS_MAP: string;
  SEVERITY: number;
  ALERT_CATEGORY: number;
}

const NONE: FlowAlertColumns = Object.freeze({ SCORE: 0, STATUS: 0, ALERTS_MAP: '', SEVERITY: 0, ALERT_CATEGORY: 0 });
const hex8 = (n: number) => (n >>> 0).toString(16).toUpperCase().padStart(8, '0');

/**
 * What ntopng's flow checks make of a risk mask (given as its low and high
 * 32-bit words, so the writer needs no BigInt): each mapped risk is one
 * alert worth its nDPI score (client + server share, each below 250); the
 * flow score is their sum; the predominant alert (STATUS) is the first with
 * the highest score (risks checked in id order; a later one replaces it only
 * when strictly higher, as setAlertsBitmap does); SEVERITY maps the
 * predominant score; ALERT_CATEGORY is the predominant alert's; ALERTS_MAP
 * is the 128-bit alert-id bitmap in Bitmap128::toHexString's form (upper
 * hex, leading zero bytes dropped, '' without alerts).
 * IS_CLI_ATTACKER/… follow the predominant alert (alertRoles).
 */
export function flowAlertColumnsOf(lo: number, hi: number, own = 0): FlowAlertColumns {
  if (!lo && !hi && !own) return NONE;
  let score = 0, top: { alertId: number; score: number; category: number } | undefined;
  const words = [0, 0, 0, 0]; // alert-id bitmap, 32 bits per word, least significant first
  for (let id = 1; id < 64; id++) {
    const set = id < 32 ? (lo >>> id) & 1 : (hi >>> (id - 32)) & 1;
    if (!set) continue;
    const a = BY_RISK[id];
    if (!a) continue;
    score += a.score;
    words[a.alertId >>> 5] |= 1 << (a.alertId & 31);
    if (!top || a.score > top.score) top = a;
  }
  // then ntopng's own checks (raised after the risks' check in ntopng's order), same rules
  for (const c of FLOW_CHECK_ALERTS) {
    if (!((own >>> c.bit) & 1)) continue;
    score += c.score;
    words[c.alertId >>> 5] |= 1 << (c.alertId & 31);
    if (!top || c.score > top.score) top = c;
  }
  if (!top) return NONE;
  return {
    SCORE: Math.min(score, 0xffff),
    STATUS: top.alertId,
    ALERTS_MAP: (hex8(words[3]) + hex8(words[2]) + hex8(words[1]) + hex8(words[0])).replace(/^(00)+(?=..)/, ''),
    SEVERITY: scoreToSeverity(top.score),
    ALERT_CATEGORY: top.category,
  };
}

/** the record's blacklisted bits (native records.h): client, server */
export const BL_CLIENT = 1, BL_SERVER = 2;

/**
 * Attacker / victim roles of a flow row, from its predominant alert as
 * ntopng's checks set them on the alert (Flow::setPredominantAlertInfo):
 * BroadcastNonUDPTraffic marks the client attacker; RemoteToLocalInsecureFlow
 * the client attacker and the server victim; the blacklist contacts the
 * client attacker and the server victim when only the client is
 * blacklisted, else both attackers; BlacklistedCountry likewise by the
 * ends in a listed country. Risk alerts mark none.
 * Bits: 1 client attacker, 2 client victim, 4 server attacker, 8 server victim.
 */
export function alertRoles(status: number, blacklisted: number, countries = 0, device = 0): number {
  switch (status) {
    case 67: return 1;
    case 38: return 1 | 8;
    case 9: case 13:
      return blacklisted & BL_CLIENT && !(blacklisted & BL_SERVER) ? 1 | 8 : 1 | 4;
    // BlacklistedCountry::buildAlert, `countries` the listed ends (BL_CLIENT, BL_SERVER)
    case 2:
      return countries & BL_CLIENT && !(countries & BL_SERVER) ? 1 | 8 : 1 | 4;
    // DeviceProtocolNotAllowed::buildAlert: the end not allowed is the attacker, no victim (unicast flows; `device` 0 otherwise)
    case 5:
      return device === BL_CLIENT ? 1 : device === BL_SERVER ? 4 : 0;
    default: return 0;
  }
}

/** The same from a 64-bit risk mask. */
export function flowAlertColumns(riskMask: bigint | number): FlowAlertColumns {
  const m = BigInt(riskMask);
  return flowAlertColumnsOf(Number(m & 0xffffffffn), Number((m >> 32n) & 0xffffffffn));
}

// Risks whose flow check is enabled (checks configuration), as two 32-bit
// words, and the enabled own checks (FLOW_CHECK_ALERTS bits) as a third.
// Module state, so one per thread: the flow decoder, which fills the flow
// rows' alert columns, is sent its own copy whenever the configuration
// changes (flow-decoder.ts). A disabled check raises no alert from then on; the
// flow keeps the risk itself (FLOW_RISK), as ntopng keeps it.
let enabledLo = -1, enabledHi = -1, enabledOwn = -1;

/** Sets the risks whose alerts are raised (bit n = nDPI risk n) and the own checks enabled (FLOW_CHECK_ALERTS bits). */
export function setEnabledRisks(lo: number, hi: number, own = -1): void {
  enabledLo = lo | 0;
  enabledHi = hi | 0;
  enabledOwn = own | 0;
}

/** The risks whose alerts are raised, as [low word, high word]. */
export const enabledRisks = (): [number, number] => [enabledLo >>> 0, enabledHi >>> 0];

/** The alert columns of a flow batch, filled row by row from the record's risk words (the writer's one hook). */
export class AlertColumnArrays {
  readonly score: Uint16Array;
  readonly status: Uint8Array;
  readonly map: string[];
  readonly severity: Uint8Array;
  readonly category: Uint8Array;
  readonly cliAttacker: Uint8Array;
  readonly cliVictim: Uint8Array;
  readonly srvAttacker: Uint8Array;
  readonly srvVictim: Uint8Array;
  constructor(n: number) {
    this.score = new Uint16Array(n);
    this.status = new Uint8Array(n);
    this.map = new Array<string>(n).fill('');
    this.severity = new Uint8Array(n);
    this.category = new Uint8Array(n);
    this.cliAttacker = new Uint8Array(n);
    this.cliVictim = new Uint8Array(n);
    this.srvAttacker = new Uint8Array(n);
    this.srvVictim = new Uint8Array(n);
  }
  /** [column name, array] for the batch's column map */
  entries(): [string, ArrayLike<unknown>][] {
    return [
      ['SCORE', this.score],
      ['STATUS', this.status],
      ['ALERTS_MAP', this.map],
      ['SEVERITY', this.severity],
      ['ALERT_CATEGORY', this.category],
      ['IS_CLI_ATTACKER', this.cliAttacker],
      ['IS_CLI_VICTIM', this.cliVictim],
      ['IS_SRV_ATTACKER', this.srvAttacker],
      ['IS_SRV_VICTIM', this.srvVictim],
    ];
  }
  /** row r's alert columns from its risk words and own-check bits (those enabled), and its blacklisted bits */
  fill(r: number, lo: number, hi: number, own: number, blacklisted = 0, countries = 0, device = 0): void {
    const a = flowAlertColumnsOf(lo & enabledLo, hi & enabledHi, own & enabledOwn);
    this.score[r] = a.SCORE;
    this.status[r] = a.STATUS;
    this.map[r] = a.ALERTS_MAP;
    this.severity[r] = a.SEVERITY;
    this.category[r] = a.ALERT_CATEGORY;
    const roles = alertRoles(a.STATUS, blacklisted, countries, device);
    this.cliAttacker[r] = roles & 1;
    this.cliVictim[r] = (roles >> 1) & 1;
    this.srvAttacker[r] = (roles >> 2) & 1;
    this.srvVictim[r] = (roles >> 3) & 1;
  }
}

/** The score of a flow with these risks, counting only enabled checks (active flows' `score`). */
export function flowScore(riskIds: readonly number[]): number {
  let lo = 0, hi = 0;
  for (const id of riskIds) {
    if (id > 0 && id < 32) lo |= 1 << id;
    else if (id >= 32 && id < 64) hi |= 1 << (id - 32);
  }
  return flowAlertColumnsOf(lo & enabledLo, hi & enabledHi).SCORE;
}

/**
 * The engine's flow score table (Engine.setRiskScores) for the risks whose
 * alerts are raised (`lo`, `hi`: enabledRisks' words): per risk, its alert's
 * client and server shares (Flow::setAlertsBitmap's cli_inc / srv_inc), its
 * score category (Utils::mapAlertToScoreCategory: security alerts count as
 * security, the rest as network) and the severity of its score.
 */
export function riskScoreTable(lo: number, hi: number) {
  const cli = new Uint16Array(64), srv = new Uint16Array(64), category = new Uint8Array(64), level = new Uint8Array(64);
  let aLo = 0, aHi = 0;
  for (const a of FLOW_RISK_ALERTS) {
    cli[a.risk] = a.cliScore;
    srv[a.risk] = a.score - a.cliScore;
    category[a.risk] = a.category === CATEGORY.security ? 1 : 0;
    level[a.risk] = scoreToSeverity(a.score);
    if (a.risk < 32 ? (lo >>> a.risk) & 1 : (hi >>> (a.risk - 32)) & 1) {
      if (a.risk < 32) aLo |= 1 << a.risk;
      else aHi |= 1 << (a.risk - 32);
    }
  }
  return { cli, srv, category, level, alerting: [aLo >>> 0, aHi >>> 0] as [number, number] };
}

