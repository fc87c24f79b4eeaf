// ⑧ The packet-counting host checks (syn_scan, fin_scan, rst_scan,
// flow_flood, icmp_flood) as ntopng runs them once a minute per host
// (src/host_checks/SYNScan.cpp …, FlowHits.cpp, HostChecksExecutor.cpp):
//
// - a host whose attacker hits pass the threshold (strictly greater) is the
//   attacker; only otherwise are its victim hits looked at;
// - the check's one engaged alert on the host is raised or refreshed; an
//   alert engaged with the other role is refreshed as it is (FlowHits::
//   triggerFlowHitsAlert updates hits only for the same role);
// - an engaged alert not refreshed at this tick is released (auto-release),
//   and so are those of a check that has been disabled.
//
// The alert (include/host_alerts/FlowHitsAlert.h, HostAlert.h, Host.cpp
// alert2JSON): score SCORE_LEVEL_WARNING (50); the attacker gets
// CLIENT_FULL_RISK_PERCENTAGE (100 % of it as client), the victim
// CLIENT_NO_RISK_PERCENTAGE (0 %): client when its client share is the
// larger; severity maps the score (Utils::mapScoreToSeverity: warning);
// category security (the alert classes' getClassType); json as
// HostAlert::getSerializedAlert + FlowHitsAlert::getAlertJSON.
//
// And score_threshold (src/host_checks/ScoreThreshold.cpp,
// include/host_alerts/ScoreThresholdAlert.h), on the engine's host scores: a
// host whose score as client is above the threshold (strictly) gets the
// client alert, else one whose score as server is above it the server alert;
// an engaged alert is refreshed as it was raised (periodicUpdate allocates
// only when none is engaged), one not refreshed is released. Score
// SCORE_LEVEL_SEVERE (150), CLIENT_FULL / CLIENT_NO_RISK_PERCENTAGE, json:
// the score breakdown (ScoreStats::serialize_breakdown), is_client_alert,
// value, threshold.
//
// And dangerous_host (src/host_checks/DangerousHost.cpp,
// include/host_alerts/DangerousHostAlert.h): a host whose score (client +
// server) is above the threshold at more than 5 consecutive runs gets the
// alert, raised once with the score and the count of that run and refreshed
// while the streak lasts; a run at or below the threshold ends the streak
// (and the alert, not refreshed, is released). Score SCORE_LEVEL_ERROR
// (100), CLIENT_FULL_RISK_PERCENTAGE, category security, json:
// consecutive_high_score, score. ntopng Pro also moves such a host to its
// IPS jail pool; flowgate has no pools yet.
//
// And the one-figure checks (VALUE_CHECKS; ServerContacts.cpp and its DNS,
// NTP, SMTP kinds, DomainNamesContacts.cpp, ScanDetection.cpp,
// RemoteConnection.cpp), on the figure the engine took when the minute
// closed: above the threshold (strictly; remote_connection: any live
// remote-access flow) raises the alert, or refreshes the engaged one as it was
// raised (their periodicUpdate allocates only when none is engaged); one not
// refreshed is released. Scores, client shares, categories and json as
// VALUE_ALERTS says.
import { CATEGORY, scoreToSeverity } from '../alerts/catalogue.js';
import type { HostScoreRow } from '../../bindings/engine.js';
import { HOST_CHECK_NAMES, VALUE_CHECKS, type AlertInput, type AlertKey, type AlertSink, type FlowHitsCheckName, type HostCheckHits, type HostCheckName, type ValueCheckName } from '../alerts/types.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';

/** SCORE_LEVEL_WARNING: FlowHitsAlert::getAlertScore */
export const FLOW_HITS_SCORE = 50;
/** risk_percentage (nDPI ndpi_typedefs.h): the client's share of the score */
const CLIENT_FULL_RISK_PERCENTAGE = 100;
const CLIENT_NO_RISK_PERCENTAGE = 0;
/** seconds between runs (the checks' 'min' hook: HostCheck::getPeriod) */
const GRANULARITY = 60;

/** host_alert_keys.lua ids of the checks */
export const HOST_CHECK_ALERT_IDS: Readonly<Record<HostCheckName, number>> = Object.fromEntries(
  HOST_CHECK_NAMES.map((n) => [n, checkDef('host', n)!.alertIds[0]]),
) as Record<HostCheckName, number>;

const ALERT_CHECK = new Map<number, HostCheckName>(HOST_CHECK_NAMES.map((n) => [HOST_CHECK_ALERT_IDS[n], n]));

/** SCORE_LEVEL_SEVERE: ScoreThresholdAlert's score */
export const SCORE_THRESHOLD_SCORE = 150;
export const SCORE_THRESHOLD_ALERT_ID = checkDef('host', 'score_threshold')!.alertIds[0];

/** SCORE_LEVEL_ERROR: DangerousHostAlert::getAlertScore */
export const DANGEROUS_HOST_SCORE = 100;
export const DANGEROUS_HOST_ALERT_ID = checkDef('host', 'dangerous_host')!.alertIds[0];
/** DangerousHost's NUM_CONSECUTIVE_CHECKS_BEFORE_ALERTING: the streak must be longer */
export const DANGEROUS_HOST_RUNS = 5;

/** SCORE_LEVEL_NOTICE */
const NOTICE_SCORE = 10;
/** CLIENT_FAIR_RISK_PERCENTAGE */
const CLIENT_FAIR_RISK_PERCENTAGE = 50;

/** The one-figure checks' alerts (include/host_alerts/*.h getAlertScore / getClassType, *Alert.cpp getAlertJSON). */
const VALUE_ALERTS: Readonly<Record<ValueCheckName, { score: number; cliPctg: number; category: number; json: (v: number, thr: number) => Record<string, unknown> }>> = {
  scan_detection: { score: 100, cliPctg: CLIENT_FULL_RISK_PERCENTAGE, category: CATEGORY.security, json: (value, threshold) => ({ value, threshold, is_rx_only: false }) },
  dns_contacts: { score: NOTICE_SCORE, cliPctg: CLIENT_FULL_RISK_PERCENTAGE, category: CATEGORY.security, json: (value, threshold) => ({ value, threshold }) },
  ntp_contacts: { score: NOTICE_SCORE, cliPctg: CLIENT_FULL_RISK_PERCENTAGE, category: CATEGORY.security, json: (value, threshold) => ({ value, threshold }) },
  smtp_contacts: { score: NOTICE_SCORE, cliPctg: CLIENT_FULL_RISK_PERCENTAGE, category: CATEGORY.security, json: (value, threshold) => ({ value, threshold }) },
  domain_names_contacts: { score: NOTICE_SCORE, cliPctg: CLIENT_FAIR_RISK_PERCENTAGE, category: CATEGORY.network, json: (v, threshold) => ({ num_domain_names: v, threshold }) },
  remote_connection: { score: NOTICE_SCORE, cliPctg: CLIENT_FAIR_RISK_PERCENTAGE, category: CATEGORY.network, json: (v) => ({ num_flows: v }) },
  // CountriesContactsAlert: ntopng keeps the figure in a u_int8_t
  countries_contacts: { score: NOTICE_SCORE, cliPctg: CLIENT_FAIR_RISK_PERCENTAGE, category: CATEGORY.security, json: (v, threshold) => ({ value: Math.min(v, 255), threshold }) },
};
const isValueCheck = (c: HostCheckName): c is ValueCheckName => (VALUE_CHECKS as readonly string[]).includes(c);

/** The engine's hosts whose score as client or as server is above a threshold (Engine.hostScoresAbove). */
export type HostScoreQuery = (threshold: number) => HostScoreRow[];

/** ScoreStats::serialize_breakdown: each category's share of the side's score, whole percent (1 when the side has none). */
function scoreBreakdown(h: HostScoreRow): Record<string, number> {
  const out: Record<string, number> = {};
  const side = (name: string, v: [number, number]) => {
    const total = v[0] + v[1] || 1;
    v.forEach((x, c) => (out[`score_breakdown_${name}_${c}`] = Math.trunc(Math.fround(Math.fround(x / total) * 100))));
  };
  side('client', h.score_breakdown.as_client);
  side('server', h.score_breakdown.as_server);
  return out;
}

/** What a host alert names of its host. */
type AlertHost = Pick<HostScoreRow, 'ip' | 'vlan' | 'name' | 'local'>;

/**
 * A host alert as ntopng stores it (Host::alert2JSON, HostAlert's fields):
 * `cliPctg` the client's share of its score, `role` attacker / victim / none,
 * `json` the alert class's own fields after alert_generation.
 */
function hostAlert(ifid: number, tstamp: number, h: AlertHost, alertId: number, scriptKey: string, score: number, cliPctg: number, role: 'attacker' | 'victim' | null, json: Record<string, unknown>, category: number = CATEGORY.security): AlertInput {
  const r = roleScores(score, cliPctg);
  return {
    family: 'host',
    ifid,
    entityVal: hostEntity(h.ip, h.vlan),
    alertId,
    subtype: '', // no subtype for hosts (Host::alert2JSON)
    tstamp,
    score,
    severity: scoreToSeverity(score),
    fields: {
      ip: h.ip,
      vlan_id: h.vlan,
      name: h.name,
      ip_version: h.ip.includes(':') ? 6 : 4,
      is_attacker: role === 'attacker' ? 1 : 0,
      is_victim: role === 'victim' ? 1 : 0,
      is_client: r.isClient ? 1 : 0,
      is_server: r.isServer ? 1 : 0,
      alert_category: category,
      granularity: GRANULARITY,
    },
    json: {
      alert_generation: { script_key: scriptKey, subdir: 'host', host_info: { name: h.name || h.ip, localhost: h.local } },
      ...json,
    },
  };
}

/** The score_threshold alert of one host, as ntopng stores it. */
export function scoreThresholdAlert(ifid: number, tstamp: number, h: HostScoreRow, asClient: boolean, threshold: number): AlertInput {
  const pct = asClient ? CLIENT_FULL_RISK_PERCENTAGE : CLIENT_NO_RISK_PERCENTAGE;
  return hostAlert(ifid, tstamp, h, SCORE_THRESHOLD_ALERT_ID, 'score_threshold', SCORE_THRESHOLD_SCORE, pct, null, {
    ...scoreBreakdown(h),
    is_client_alert: asClient,
    value: asClient ? h.score_as_client : h.score_as_server,
    threshold,
  });
}

/** The dangerous_host alert of one host (its score and streak when raised). */
export function dangerousHostAlert(ifid: number, tstamp: number, h: HostScoreRow, runs: number): AlertInput {
  return hostAlert(ifid, tstamp, h, DANGEROUS_HOST_ALERT_ID, 'dangerous_host', DANGEROUS_HOST_SCORE, CLIENT_FULL_RISK_PERCENTAGE, null, {
    consecutive_high_score: runs,
    score: h.score_as_client + h.score_as_server,
  });
}

/** unexpected_gateway (UnexpectedGatewayAlert: score ERROR, the client's whole, category network, no fields of its own) */
export const UNEXPECTED_GATEWAY_ALERT_ID = checkDef('host', 'unexpected_gateway')!.alertIds[0];
export const UNEXPECTED_GATEWAY_SCORE = 100;

/** The local hosts whose MAC is a networking device (Engine.gatewayHosts), each with whether the network configuration lists it as a gateway. */
export type GatewayQuery = () => { ip: string; vlan: number; name: string; configured: boolean }[];

/** The unexpected_gateway alert of one host. */
export function unexpectedGatewayAlert(ifid: number, tstamp: number, h: { ip: string; vlan: number; name: string }): AlertInput {
  return hostAlert(ifid, tstamp, { ...h, local: true }, UNEXPECTED_GATEWAY_ALERT_ID, 'unexpected_gateway', UNEXPECTED_GATEWAY_SCORE, CLIENT_FULL_RISK_PERCENTAGE, null, {}, CATEGORY.network);
}

/** The engine's per-minute hits for the checks asked (Engine.hostCheckHits, inside a tick listener). */
export type HostHitsQuery = (thresholds: Partial<Record<HostCheckName, number>>) => HostCheckHits[];

/** ntopng's host entity value: 'ip@vlan', or 'ip' untagged (Host::getEntityValue). */
export const hostEntity = (ip: string, vlan: number) => (vlan ? `${ip}@${vlan}` : ip);

/** HostAlert::getCliScore/getSrvScore (integer shares of the score) and isClient/isServer. */
export function roleScores(score: number, cliPctg: number) {
  const cli = Math.floor((cliPctg * score) / 100);
  const srv = score - cli;
  return { cli, srv, isClient: cli > 0 && cli > srv, isServer: srv > 0 && srv > cli };
}

/** The alert of a one-figure check on one host, as ntopng stores it. */
export function valueCheckAlert(ifid: number, tstamp: number, check: ValueCheckName, h: AlertHost, value: number, threshold: number): AlertInput {
  const d = VALUE_ALERTS[check];
  return hostAlert(ifid, tstamp, h, HOST_CHECK_ALERT_IDS[check], check, d.score, d.cliPctg, null, d.json(value, threshold), d.category);
}

/** The alert of one check on one host, as ntopng stores it. */
export function flowHitsAlert(ifid: number, tstamp: number, check: FlowHitsCheckName, h: HostCheckHits, attacker: boolean, hits: number, threshold: number): AlertInput {
  const pct = attacker ? CLIENT_FULL_RISK_PERCENTAGE : CLIENT_NO_RISK_PERCENTAGE;
  return hostAlert(ifid, tstamp, h, HOST_CHECK_ALERT_IDS[check], check, FLOW_HITS_SCORE, pct, attacker ? 'attacker' : 'victim', {
    is_attacker: attacker,
    value: hits,
    threshold,
  });
}

/** Asked before an alert is raised: excluded (host, alert) pairs are not (alert exclusions). */
export type HostAlertExcluded = (ip: string, vlan: number, alertId: number) => boolean;

export class HostChecks {
  /** dangerous_host: per interface, 'ip@vlan' → consecutive runs above the threshold */
  private readonly streaks = new Map<number, Map<string, number>>();

  constructor(
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
    private readonly excluded: HostAlertExcluded = () => false,
  ) {}

  /** The running checks that are enabled, with their thresholds. */
  thresholds(): Partial<Record<HostCheckName, number>> {
    const out: Partial<Record<HostCheckName, number>> = {};
    for (const n of HOST_CHECK_NAMES) {
      if (!this.cfg.isEnabled('host', n)) continue;
      // a threshold the configuration lacks never triggers (FlowHits' threshold starts at u_int64 max);
      // remote_connection has none: any live remote-access flow
      out[n] = n === 'remote_connection' ? 0 : (this.cfg.threshold('host', n) ?? Number.MAX_SAFE_INTEGER);
    }
    return out;
  }

  /** An engaged alert refreshed as it was raised (only its time moves). */
  private refresh(prev: AlertInput, tstamp: number): void {
    const { family, ifid, entityVal, alertId, subtype, score, severity, fields, json } = prev;
    this.sink.engage({ family, ifid, entityVal, alertId, subtype, tstamp, score, severity, fields, json });
  }

  /** dangerous_host's run: streaks of hosts above the threshold, alerts for those past DANGEROUS_HOST_RUNS. */
  private dangerousHosts(ifid: number, tstamp: number, scores: HostScoreQuery, engaged: Map<string, AlertInput>, refreshed: Set<string>): void {
    if (!this.cfg.isEnabled('host', 'dangerous_host')) {
      this.streaks.delete(ifid);
      return;
    }
    // a threshold the configuration lacks never triggers (DangerousHost starts at u_int64 max)
    const thr = this.cfg.threshold('host', 'dangerous_host');
    const before = this.streaks.get(ifid) ?? new Map<string, number>();
    const now = new Map<string, number>();
    this.streaks.set(ifid, now);
    if (thr === null || thr >= 2 * 0xffffffff) return;
    // a total above thr has a side above thr / 2: the engine filters by side, the total is checked here
    for (const h of scores(Math.min(Math.floor(thr / 2), 0xffffffff))) {
      if (h.score_as_client + h.score_as_server <= thr) continue;
      const e = hostEntity(h.ip, h.vlan);
      const runs = (before.get(e) ?? 0) + 1;
      now.set(e, runs);
      if (runs <= DANGEROUS_HOST_RUNS || this.excluded(h.ip, h.vlan, DANGEROUS_HOST_ALERT_ID)) continue;
      const k = `${e}|${DANGEROUS_HOST_ALERT_ID}`;
      const prev = engaged.get(k);
      if (prev) this.refresh(prev, tstamp);
      else this.sink.engage(dangerousHostAlert(ifid, tstamp, h, runs));
      refreshed.add(k);
    }
  }

  /**
   * One run, at the engine's tick `tstamp` (epoch s, packet time) on
   * interface `ifid`: asks `hits` for the enabled checks' figures, raises or
   * refreshes their alerts and releases the engaged ones not refreshed.
   */
  tick(ifid: number, tstamp: number, hits: HostHitsQuery, scores?: HostScoreQuery, gateways?: GatewayQuery): void {
    const thresholds = this.thresholds();
    const checks = Object.keys(thresholds) as HostCheckName[];
    const engaged = new Map<string, AlertInput>();
    for (const a of this.sink.engaged('host', ifid))
      if (
        ALERT_CHECK.has(a.alertId) ||
        (scores && (a.alertId === SCORE_THRESHOLD_ALERT_ID || a.alertId === DANGEROUS_HOST_ALERT_ID)) ||
        (gateways && a.alertId === UNEXPECTED_GATEWAY_ALERT_ID)
      )
        engaged.set(`${a.entityVal}|${a.alertId}`, a);
    const refreshed = new Set<string>();
    for (const h of checks.length ? hits(thresholds) : []) {
      for (const check of checks) {
        const v = h.hits[check];
        if (!v) continue;
        const thr = thresholds[check]!;
        if (isValueCheck(check)) {
          if (!(v.attacker > thr) || this.excluded(h.ip, h.vlan, HOST_CHECK_ALERT_IDS[check])) continue;
          const a = valueCheckAlert(ifid, tstamp, check, h, v.attacker, thr);
          const k = `${a.entityVal}|${a.alertId}`;
          const prev = engaged.get(k);
          if (prev) this.refresh(prev, tstamp);
          else this.sink.engage(a);
          refreshed.add(k);
          continue;
        }
        let attacker: boolean;
        if (v.attacker > thr) attacker = true;
        else if (v.victim > thr) attacker = false;
        else continue;
        // excluded: never raised, and one engaged before the exclusion is released below
        if (this.excluded(h.ip, h.vlan, HOST_CHECK_ALERT_IDS[check])) continue;
        const a = flowHitsAlert(ifid, tstamp, check, h, attacker, attacker ? v.attacker : v.victim, thr);
        const k = `${a.entityVal}|${a.alertId}`;
        const prev = engaged.get(k);
        if (prev && prev.fields.is_attacker !== a.fields.is_attacker) {
          // engaged with the other role: refreshed as it is
          this.refresh(prev, tstamp);
        } else {
          // same role: the hits are updated, the threshold stays the one it was raised with (FlowHitsAlert::setHits)
          if (prev && prev.json.threshold !== undefined) a.json.threshold = prev.json.threshold;
          this.sink.engage(a);
        }
        refreshed.add(k);
      }
    }
    if (scores && this.cfg.isEnabled('host', 'score_threshold')) {
      // a threshold the configuration lacks never triggers (ScoreThreshold starts at u_int32 max)
      const thr = Math.min(this.cfg.threshold('host', 'score_threshold') ?? 0xffffffff, 0xffffffff);
      for (const h of scores(thr)) {
        const asClient = h.score_as_client > thr;
        const a = scoreThresholdAlert(ifid, tstamp, h, asClient, thr);
        const k = `${a.entityVal}|${a.alertId}`;
        const prev = engaged.get(k);
        if (prev) this.refresh(prev, tstamp);
        else this.sink.engage(a);
        refreshed.add(k);
      }
    }
    if (scores) this.dangerousHosts(ifid, tstamp, scores, engaged, refreshed);
    // UnexpectedGateway::periodicUpdate: a local host whose MAC is a networking device, not a configured gateway
    if (gateways && this.cfg.isEnabled('host', 'unexpected_gateway')) {
      for (const h of gateways()) {
        if (h.configured || this.excluded(h.ip, h.vlan, UNEXPECTED_GATEWAY_ALERT_ID)) continue;
        const a = unexpectedGatewayAlert(ifid, tstamp, h);
        const k = `${a.entityVal}|${a.alertId}`;
        const prev = engaged.get(k);
        if (prev) this.refresh(prev, tstamp);
        else this.sink.engage(a);
        refreshed.add(k);
      }
    }
    for (const [k, a] of engaged) {
      if (refreshed.has(k)) continue;
      const key: AlertKey = { family: a.family, ifid: a.ifid, entityVal: a.entityVal, alertId: a.alertId, subtype: a.subtype };
      this.sink.release(key, tstamp);
    }
  }
}
