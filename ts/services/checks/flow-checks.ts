// ⑧ Flow checks: each nDPI risk's alert is raised only while its flow check
// is enabled. The enabled risks become a 64-bit mask (and ntopng's own flow
// checks a third word, their script_conf parameters with it), set on this
// thread, sent to the flow writer (its decoder thread fills the stored rows' alert
// columns) and, as a score table, to the engines (active flows' scores and
// their hosts'), now and after every change; the engines also get the IEC
// 60870-5-104 type ids iec_unexpected_type_id allows.
import { Engine, type RiskScoreTable } from '../../bindings/engine.js';
import { riskScoreTable } from '../alerts/catalogue.js';
import type { ChecksConfig } from './config.js';
import type { DeviceProtocols } from './device-protocols.js';
import { flowCheckParams, setFlowChecks, type FlowCheckParams } from './flow-record-checks.js';
import { OWN_FLOW_CHECKS, RISK_CHECKS } from './definitions.js';
import type { NetworkConfig } from './network-config.js';

/**
 * Bit n set when nDPI risk n's flow check is enabled, as [low word, high
 * word], and the enabled own flow checks (FLOW_CHECK_ALERTS bits) as a third.
 */
export function enabledRiskMask(cfg: ChecksConfig): [number, number, number] {
  let lo = 0, hi = 0, own = 0;
  RISK_CHECKS.forEach((d, risk) => {
    if (!d || !cfg.isEnabled(d.subdir, d.key)) return;
    if (risk < 32) lo |= 1 << risk;
    else hi |= 1 << (risk - 32);
  });
  OWN_FLOW_CHECKS.forEach((d, bit) => {
    if (d && cfg.isEnabled(d.subdir, d.key)) own |= 1 << bit;
  });
  return [lo >>> 0, hi >>> 0, own >>> 0];
}

/** What takes the mask besides this thread (the flow writer). */
export interface RiskMaskSink {
  setEnabledRisks(lo: number, hi: number, own: number, params: FlowCheckParams): Promise<void>;
}

/** What scores active flows and runs the IEC checks (an engine). */
export interface RiskScoreSink {
  setRiskScores(t: RiskScoreTable): void;
  setIecConfig(c: { allowedTypeIds: readonly number[] | null }): void;
}

const IEC_UNEXPECTED = 'iec_unexpected_type_id';

/**
 * The type ids iec_unexpected_type_id allows: its `items` (integers 0-255,
 * numbers or numeric strings; others ignored) while it is enabled, else
 * null — everything allowed, as ntopng's scriptDisable sets "-1".
 */
export function iecAllowedTypeIds(cfg: Pick<ChecksConfig, 'isEnabled' | 'scriptConf'>): number[] | null {
  if (!cfg.isEnabled('flow', IEC_UNEXPECTED)) return null;
  const items = cfg.scriptConf('flow', IEC_UNEXPECTED).items;
  const ids = new Set<number>();
  for (const x of Array.isArray(items) ? items : []) {
    const n = typeof x === 'number' ? x : typeof x === 'string' && /^\d+$/.test(x.trim()) ? Number(x) : -1;
    if (Number.isInteger(n) && n >= 0 && n <= 255) ids.add(n);
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * Applies the configuration's enabled risks now and on every change; the
 * engines have them at once, the promise settles once the writer has them.
 * Returns the unsubscribe function.
 */
export function applyFlowChecks(
  cfg: ChecksConfig,
  writer: RiskMaskSink | null | undefined,
  log: (l: string) => void = console.error,
  engines: readonly RiskScoreSink[] = [],
  network?: NetworkConfig,
  devices?: DeviceProtocols,
): { ready: Promise<void>; stop: () => void } {
  // every protocol id of the classifier (the device policies are sent as allowed-id lists)
  const ids = devices ? (Engine.info().dpi.protocols as { id: number }[]).map((p) => p.id) : [];
  const apply = () => {
    const [lo, hi, own] = enabledRiskMask(cfg);
    const servers = network
      ? { dns: network.list('dns_list'), dhcp: network.list('dhcp_list'), ntp: network.list('ntp_list'), smtp: network.list('smtp_list') }
      : undefined;
    const params = flowCheckParams((key) => cfg.scriptConf('flow', key), servers, devices?.table(ids));
    setFlowChecks(lo, hi, own, params);
    const table = riskScoreTable(lo, hi);
    const iec = { allowedTypeIds: iecAllowedTypeIds(cfg) };
    for (const e of engines) {
      try {
        e.setRiskScores(table);
        e.setIecConfig(iec);
      } catch (err) {
        log(`flowgate: checks: an engine did not take the score table or the IEC type ids: ${(err as Error).message}`);
      }
    }
    return writer ? writer.setEnabledRisks(lo, hi, own, params).catch((e: Error) => log(`flowgate: checks: the flow writer did not take the change: ${e.message}`)) : Promise.resolve();
  };
  const ready = apply();
  const stops = [cfg.onChange(() => void apply()), network?.onChange(() => void apply()), devices?.onChange(() => void apply())];
  return { ready, stop: () => stops.forEach((s) => s?.()) };
}
