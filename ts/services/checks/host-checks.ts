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
import { CATEGORY, scoreToSeverity } from '../alerts/catalogue.js';
import type { HostScoreRow } from '../../bindings/engine.js';
import { HOST_CHECK_NAMES, type AlertInput, type AlertKey, type AlertSink, type HostCheckHits, type HostCheckName } from '../alerts/types.js';
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

/** The score_threshold alert of one host, as ntopng stores it. */
export function scoreThresholdAlert(ifid: number, tstamp: number, h: HostScoreRow, asClient: boolean, threshold: number): AlertInput {
  const r = roleScores(SCORE_THRESHOLD_SCORE, asClient ? CLIENT_FULL_RISK_PERCENTAGE : CLIENT_NO_RISK_PERCENTAGE);
  return {
    family: 'host',
    ifid,
    entityVal: hostEntity(h.ip, h.vlan),
    alertId: SCORE_THRESHOLD_ALERT_ID,
    subtype: '',
    tstamp,
    score: SCORE_THRESHOLD_SCORE,
    severity: scoreToSeverity(SCORE_THRESHOLD_SCORE),
    fields: {
      ip: h.ip,
      vlan_id: h.vlan,
      name: h.name,
      ip_version: h.ip.includes(':') ? 6 : 4,
      is_attacker: 0,
      is_victim: 0,
      is_client: r.isClient ? 1 : 0,
      is_server: r.isServer ? 1 : 0,
      alert_category: CATEGORY.security,
      granularity: GRANULARITY,
    },
    json: {
      alert_generation: {
        script_key: 'score_threshold',
        subdir: 'host',
        host_info: { name: h.name || h.ip, localhost: h.local },
      },
      ...scoreBreakdown(h),
      is_client_alert: asClient,
      value: asClient ? h.score_as_client : h.score_as_server,
      threshold,
    },
  };
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

/** The alert of one check on one host, as ntopng stores it. */
export function flowHitsAlert(ifid: number, tstamp: number, check: HostCheckName, h: HostCheckHits, attacker: boolean, hits: number, threshold: number): AlertInput {
  const r = roleScores(FLOW_HITS_SCORE, attacker ? CLIENT_FULL_RISK_PERCENTAGE : CLIENT_NO_RISK_PERCENTAGE);
  return {
    family: 'host',
    ifid,
    entityVal: hostEntity(h.ip, h.vlan),
    alertId: HOST_CHECK_ALERT_IDS[check],
    subtype: '', // no subtype for hosts (Host::alert2JSON)
    tstamp,
    score: FLOW_HITS_SCORE,
    severity: scoreToSeverity(FLOW_HITS_SCORE),
    fields: {
      ip: h.ip,
      vlan_id: h.vlan,
      name: h.name,
      ip_version: h.ip.includes(':') ? 6 : 4,
      is_attacker: attacker ? 1 : 0,
      is_victim: attacker ? 0 : 1,
      is_client: r.isClient ? 1 : 0,
      is_server: r.isServer ? 1 : 0,
      alert_category: CATEGORY.security,
      granularity: GRANULARITY,
    },
    json: {
      alert_generation: {
        script_key: check,
        subdir: 'host',
        host_info: { name: h.name || h.ip, localhost: h.local },
      },
      is_attacker: attacker,
      value: hits,
      threshold,
    },
  };
}

/** Asked before an alert is raised: excluded (host, alert) pairs are not (alert exclusions). */
export type HostAlertExcluded = (ip: string, vlan: number, alertId: number) => boolean;

export class HostChecks {
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
      // a threshold the configuration lacks never triggers (FlowHits' threshold starts at u_int64 max)
      out[n] = this.cfg.threshold('host', n) ?? Number.MAX_SAFE_INTEGER;
    }
    return out;
  }

  /**
   * One run, at the engine's tick `tstamp` (epoch s, packet time) on
   * interface `ifid`: asks `hits` for the enabled checks' figures, raises or
   * refreshes their alerts and releases the engaged ones not refreshed.
   */
  tick(ifid: number, tstamp: number, hits: HostHitsQuery, scores?: HostScoreQuery): void {
    const thresholds = this.thresholds();
    const checks = Object.keys(thresholds) as HostCheckName[];
    const engaged = new Map<string, AlertInput>();
    for (const a of this.sink.engaged('host', ifid))
      if (ALERT_CHECK.has(a.alertId) || (scores && a.alertId === SCORE_THRESHOLD_ALERT_ID)) engaged.set(`${a.entityVal}|${a.alertId}`, a);
    const refreshed = new Set<string>();
    for (const h of checks.length ? hits(thresholds) : []) {
      for (const check of checks) {
        const v = h.hits[check];
        if (!v) continue;
        const thr = thresholds[check]!;
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
          const { family, entityVal, alertId, subtype, score, severity, fields, json } = prev;
          this.sink.engage({ family, ifid, entityVal, alertId, subtype, tstamp, score, severity, fields, json });
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
        if (prev) {
          const { family, entityVal, alertId, subtype, score, severity, fields, json } = prev;
          this.sink.engage({ family, ifid, entityVal, alertId, subtype, tstamp, score, severity, fields, json });
        } else this.sink.engage(a);
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
