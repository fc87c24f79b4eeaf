// Egress: the policies in force on the interface as its engine holds them
// (get/interface/egress), per target with its counters and each rule's.
import { call } from '../api.js';
import { Card, Err, Section, Table, useApi } from '../components/ui.js';
import * as f from '../format.js';
import type { PageProps } from '../router.js';

interface Policy {
  scope: 'default' | 'subnet' | 'protocol';
  match?: string;
  action: string;
  packets: number;
  bytes: number;
}

interface Target {
  target: string;
  queue?: number;
  output: string;
  packets: number;
  bytes: number;
  forwarded: number;
  discarded: number;
  shunted: number;
  sliced: number;
  output_drops: number;
  policies: Policy[];
}

export function EgressPage({ ifid }: PageProps) {
  const targets = useApi(() => call<Target[]>('get/interface/egress', { ifid }), [ifid], 5000);
  return (
    <div data-testid="page-egress">
      <h1>Egress policies</h1>
      <Err error={targets.error} />
      {targets.data?.length === 0 && <p data-testid="egress-none">This interface feeds no egress target.</p>}
      {(targets.data ?? []).map((t) => {
        const id = `egress-${t.target}${t.queue !== undefined ? `-${t.queue}` : ''}`;
        return (
          <Section title={`${t.target}${t.queue !== undefined ? ` queue ${t.queue}` : ''} → ${t.output}`} id={id}>
            <div class="cards">
              <Card id={`${id}-packets`} label="Offered" value={t.packets} text={f.count} />
              <Card id={`${id}-forwarded`} label="Forwarded" value={t.forwarded} text={f.count} />
              <Card id={`${id}-discarded`} label="Discarded" value={t.discarded} text={f.count} />
              <Card id={`${id}-shunted`} label="Shunted" value={t.shunted} text={f.count} />
              <Card id={`${id}-sliced`} label="Sliced" value={t.sliced} text={f.count} />
              <Card id={`${id}-drops`} label="Output drops" value={t.output_drops} text={f.count} />
            </div>
            <Table
              id={`${id}-rules`}
              rows={t.policies}
              columns={[
                { key: 'scope', label: 'Rule', render: (p) => p.scope, value: (p) => p.scope },
                { key: 'match', label: 'Match', render: (p) => p.match ?? '(everything else)', value: (p) => p.match ?? '' },
                { key: 'action', label: 'Action', render: (p) => p.action, value: (p) => p.action },
                { key: 'packets', label: 'Packets', num: true, render: (p) => f.count(p.packets), value: (p) => p.packets },
                { key: 'bytes', label: 'Bytes', num: true, render: (p) => f.bytes(p.bytes), value: (p) => p.bytes },
              ]}
            />
          </Section>
        );
      })}
    </div>
  );
}
