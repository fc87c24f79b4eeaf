// The egress policies in force: the rules file (re-read on SIGHUP) with the
// changes made through the API on top (kept in LMDB, so they come back after
// a restart), pushed to the engine as one table each time anything changes.
import type { Database } from 'lmdb';

import { l7Id, type Engine } from '../bindings/engine.js';
import type { ConfigStore } from '../services/config-store.js';
import {
  emptyPolicies, subnetInForce, target, toNative, type Action, type EgressPolicies,
  type TargetKind,
} from './policy.js';
import { parseRulesFile } from './rules-file.js';

/** What the service needs of an engine with egress outputs. */
export type EgressEngine = Pick<Engine, 'setEgressPolicies' | 'egressStats'>;

/** One change made through the API. */
interface Override {
  target: string;
  scope: 'default' | 'subnet' | 'protocol';
  match: string;
  action: Action;
  /** order of the change (later wins) */
  seq: number;
}

export interface EgressLayout {
  /** number of aggregated queues bound to outputs */
  aggregated: number;
  balanced: number;
  bridge: boolean;
}

export class EgressService {
  private base: EgressPolicies = emptyPolicies();
  private readonly db: Database<Override, string>;

  constructor(
    store: ConfigStore,
    readonly layout: EgressLayout,
    private readonly engine: EgressEngine | null,
    private readonly rulesFile?: string,
  ) {
    this.db = store.db<Override>('egress_policies');
    if (rulesFile) this.base = parseRulesFile(rulesFile);
  }

  /** Rules file, then API changes in the order they were made (later wins). */
  effective(): EgressPolicies {
    const p: EgressPolicies = structuredClone(this.base);
    const list = [...this.db.getRange()].map((e) => e.value).sort((a, b) => a.seq - b.seq);
    for (const o of list) {
      const t = target(p, o.target);
      if (o.scope === 'default') t.default = o.action;
      else if (o.scope === 'subnet') t.subnets[o.match] = o.action;
      else t.protocols[o.match] = o.action;
    }
    return p;
  }

  /** Targets this engine has (a rules file may name others: they wait for an engine that has them). */
  private has(t: { target: TargetKind; queue?: number }): boolean {
    if (t.target === 'aggregated') return (t.queue ?? 0) < this.layout.aggregated;
    if (t.target === 'balanced') return this.layout.balanced > 0;
    return this.layout.bridge;
  }

  apply(): void {
    if (!this.engine) return;
    const table = toNative(this.effective());
    this.engine.setEgressPolicies({ ...table, targets: table.targets.filter((t) => this.has(t)) });
  }

  /** SIGHUP: read the rules file again (a bad file keeps the current rules and throws). */
  reload(): void {
    if (!this.rulesFile) return;
    this.base = parseRulesFile(this.rulesFile);
    this.apply();
  }

  async set(targetKey: string, scope: Override['scope'], match: string, action: Action): Promise<void> {
    const key = `${targetKey}|${scope}|${match}`;
    // the next number is read and written in one write transaction: changes made at the same
    // moment are serialized there and each gets its own number (a total order)
    await this.db.transaction(() => {
      const last = [...this.db.getRange()].reduce((m, e) => Math.max(m, e.value.seq), 0);
      this.db.put(key, { target: targetKey, scope, match, action, seq: last + 1 });
    });
    this.apply();
  }

  /** The rule in force for a query, with its counters when the engine has the target. */
  status(kind: TargetKind, queue: number | undefined, scope: Override['scope'], match: string, master?: string) {
    const key = kind === 'aggregated' ? `aggregated:${queue ?? 0}` : kind;
    const t = this.effective().targets[key] ?? { default: 'forward' as Action, subnets: {}, protocols: {} };
    let inForce: { scope: Override['scope']; match?: string; action: Action };
    if (scope === 'default') inForce = { scope: 'default', action: t.default };
    else if (scope === 'subnet') inForce = subnetInForce(t, match);
    else {
      // the application's own rule, else its master's (TLS covers TLS.YouTube), else the default
      const rule = [match, master].find((m) => m && t.protocols[m]);
      inForce = rule ? { scope: 'protocol', match: rule, action: t.protocols[rule] } : { scope: 'default', action: t.default };
    }
    const ts = this.engine?.egressStats().targets.find((x) => x.target === kind && (kind !== 'aggregated' || (x.queue ?? 0) === (queue ?? 0)));
    // the engine names protocol rules by nDPI id
    const engineMatch = inForce.scope === 'protocol' ? String(l7Id(inForce.match!)) : (inForce.match ?? '');
    const pol = ts?.policies.find((x) => x.scope === inForce.scope && (x.match ?? '') === engineMatch);
    return {
      target: kind,
      ...(kind === 'aggregated' ? { queue: queue ?? 0 } : {}),
      scope,
      ...(scope === 'subnet' ? { subnet: match } : scope === 'protocol' ? { protocol: master ? `${master}.${match}` : match } : {}),
      action: inForce.action,
      // the rule that decides: this one, a covering subnet, or the default
      rule: { scope: inForce.scope, ...(inForce.match !== undefined ? { match: inForce.match } : {}) },
      output: ts?.output ?? null,
      counters: ts
        ? {
            rule: { packets: pol?.packets ?? 0, bytes: pol?.bytes ?? 0 },
            target: {
              packets: ts.packets, bytes: ts.bytes, forwarded: ts.forwarded, discarded: ts.discarded,
              shunted: ts.shunted, sliced: ts.sliced, output_drops: ts.output_drops,
            },
          }
        : null,
    };
  }
}
