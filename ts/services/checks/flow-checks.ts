// ⑧ Flow checks: each nDPI risk's alert is raised only while its flow check
// is enabled. The enabled risks become a 64-bit mask (and ntopng's own flow
// checks a third word, their script_conf parameters with it), set on this
// thread, sent to the flow writer (its decoder thread fills the stored rows' alert
// columns) and, as a score table, to the engines (active flows' scores and
// their hosts'), now and after every change.
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

/** What scores active flows (an engine). */
export interface RiskScoreSink {
  setRiskScores(t: RiskScoreTable): void;
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
    for (const e of engines) {
      try {
        e.setRiskScores(table);
      } catch (err) {
        log(`flowgate: checks: an engine did not take the score table: ${(err as Error).message}`);
      }
    }
    return writer ? writer.setEnabledRisks(lo, hi, own, params).catch((e: Error) => log(`flowgate: checks: the flow writer did not take the change: ${e.message}`)) : Promise.resolve();
  };
  const ready = apply();
  const stops = [cfg.onChange(() => void apply()), network?.onChange(() => void apply()), devices?.onChange(() => void apply())];
  return { ready, stop: () => stops.forEach((s) => s?.()) };
}
