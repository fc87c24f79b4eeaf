// Flows: get/flow/active paged and sorted by the engine, filtered by host,
// application and L4 protocol.
import { useState } from 'preact/hooks';

import { call } from '../api.js';
import { Err, Pager, Table, useApi, type Column } from '../components/ui.js';
import * as f from '../format.js';
import { go, num, type PageProps } from '../router.js';
import { hostLink } from './hosts.js';

export interface ActiveFlow {
  key: string;
  first_seen: number;
  last_seen: number;
  client: { name: string; ip: string; port: number };
  server: { name: string; ip: string; port: number };
  vlan: number;
  protocol: { l4: string; l7: string };
  duration: number;
  bytes: number;
  thpt: { bps: number };
  score: string | number;
}

const end = (e: ActiveFlow['client'], vlan: number) => (
  <>
    {hostLink(e.ip, vlan, e.name)}:{e.port}
  </>
);

export const FLOW_COLUMNS: Column<ActiveFlow>[] = [
  { key: 'application', label: 'Application', sort: 'application', render: (x) => x.protocol.l7, value: (x) => x.protocol.l7 },
  { key: 'l4', label: 'L4', sort: 'l4', render: (x) => x.protocol.l4, value: (x) => x.protocol.l4 },
  { key: 'client', label: 'Client', sort: 'client', render: (x) => end(x.client, x.vlan), value: (x) => `${x.client.ip}:${x.client.port}` },
  { key: 'server', label: 'Server', sort: 'server', render: (x) => end(x.server, x.vlan), value: (x) => `${x.server.ip}:${x.server.port}` },
  { key: 'duration', label: 'Duration', sort: 'duration', num: true, render: (x) => f.duration(x.duration), value: (x) => x.duration },
  { key: 'score', label: 'Score', sort: 'score', num: true, render: (x) => String(x.score), value: (x) => Number(x.score) },
  { key: 'thpt', label: 'Throughput', sort: 'thpt', num: true, render: (x) => f.bps(x.thpt.bps), value: (x) => x.thpt.bps },
  { key: 'bytes', label: 'Traffic', sort: 'bytes', num: true, render: (x) => f.bytes(x.bytes), value: (x) => x.bytes },
];

const PER_PAGE = 25;
const L4 = ['', 'TCP', 'UDP', 'ICMP', 'ICMPv6', 'GRE', 'ESP', 'SCTP'];

export function FlowsPage({ ifid, route }: PageProps) {
  const page = num(route, 'page', 1);
  const sort = route.params.get('sort') ?? 'bytes';
  const order = route.params.get('order') === 'asc' ? 'asc' : 'desc';
  const host = route.params.get('host') ?? '';
  const application = route.params.get('application') ?? '';
  const l4proto = route.params.get('l4proto') ?? '';
  const state = { page, sort, order, host, application, l4proto };
  const set = (o: Partial<typeof state>) => go('/flows', { ...state, page: 1, ...o });
  const [form, setForm] = useState({ host, application });

  const flows = useApi(
    () => call<{ totalRows: number; data: ActiveFlow[] }>('get/flow/active', { ifid, currentPage: page, perPage: PER_PAGE, sortColumn: sort, sortOrder: order, host: host || undefined, application: application || undefined, l4proto: l4proto || undefined }),
    [ifid, page, sort, order, host, application, l4proto],
    10_000,
  );

  return (
    <div data-testid="page-flows">
      <h1>Flows</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          set({ host: form.host.trim(), application: form.application.trim() });
        }}
      >
        <input data-testid="flows-host" placeholder="Host" value={form.host} onInput={(e) => setForm({ ...form, host: (e.target as HTMLInputElement).value })} />
        <input data-testid="flows-application" placeholder="Application (TLS, DNS …)" value={form.application} onInput={(e) => setForm({ ...form, application: (e.target as HTMLInputElement).value })} />
        <select data-testid="flows-l4" value={l4proto} onChange={(e) => set({ l4proto: (e.target as HTMLSelectElement).value })}>
          {L4.map((p) => (
            <option value={p}>{p || 'any L4'}</option>
          ))}
        </select>
        <button type="submit">Filter</button>
      </form>
      <Err error={flows.error} />
      <Table id="flows" columns={FLOW_COLUMNS} rows={flows.data?.data} sort={{ column: sort, order }} onSort={(s) => set({ sort: s.column, order: s.order })} />
      <Pager id="flows" page={page} perPage={PER_PAGE} total={flows.data?.totalRows} onPage={(p) => go('/flows', { ...state, page: p })} />
    </div>
  );
}
