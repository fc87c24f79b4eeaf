// Hosts: get/host/active paged and sorted by the engine (only the page
// crosses), filtered by mode and by an address or CIDR (network_cidr).
import { useState } from 'preact/hooks';

import { call } from '../api.js';
import { Err, Pager, Table, useApi, type Column } from '../components/ui.js';
import * as f from '../format.js';
import { go, num, type PageProps } from '../router.js';

export interface ActiveHost {
  ip: string;
  vlan: number;
  name: string | number;
  first_seen: number;
  last_seen: number;
  country: string;
  num_alerts: number;
  is_localhost: boolean;
  thpt: { bps: number; pps: number };
  bytes: { total: number; sent: number; recvd: number };
  num_flows: { total: number; as_client: number; as_server: number };
  score?: { total: number };
}

export const hostLink = (ip: string, vlan: number, name?: string | number) => (
  <a href={`#/host/${encodeURIComponent(f.hostKey(ip, vlan))}`} title={ip}>
    {typeof name === 'string' && name && name !== ip ? `${name} (${ip})` : ip}
    {vlan ? ` @${vlan}` : ''}
  </a>
);

const PER_PAGE = 25;

export const HOST_COLUMNS: Column<ActiveHost>[] = [
  { key: 'ip', label: 'Host', sort: 'ip', render: (h) => hostLink(h.ip, h.vlan, h.name), value: (h) => f.hostKey(h.ip, h.vlan) },
  { key: 'location', label: 'Location', render: (h) => (h.is_localhost ? 'Local' : 'Remote'), value: (h) => (h.is_localhost ? 'local' : 'remote') },
  { key: 'country', label: 'Country', sort: 'country', render: (h) => h.country || '' },
  { key: 'since', label: 'First seen', sort: 'since', render: (h) => f.time(h.first_seen), value: (h) => h.first_seen },
  { key: 'last', label: 'Last seen', sort: 'last', render: (h) => f.time(h.last_seen), value: (h) => h.last_seen },
  { key: 'num_flows', label: 'Flows', sort: 'num_flows', num: true, render: (h) => f.count(h.num_flows.total), value: (h) => h.num_flows.total },
  { key: 'score', label: 'Score', sort: 'score', num: true, render: (h) => f.count(h.score?.total ?? 0), value: (h) => h.score?.total ?? 0 },
  { key: 'alerts', label: 'Alerts', sort: 'alerts', num: true, render: (h) => f.count(h.num_alerts), value: (h) => h.num_alerts },
  { key: 'thpt', label: 'Throughput', sort: 'thpt', num: true, render: (h) => f.bps(h.thpt.bps), value: (h) => h.thpt.bps },
  { key: 'traffic', label: 'Traffic', sort: 'traffic', num: true, render: (h) => f.bytes(h.bytes.total), value: (h) => h.bytes.total },
];

export function HostsPage({ ifid, route }: PageProps) {
  const page = num(route, 'page', 1);
  const sort = route.params.get('sort') ?? 'traffic';
  const order = route.params.get('order') === 'asc' ? 'asc' : 'desc';
  const mode = route.params.get('mode') ?? 'all';
  const q = route.params.get('q') ?? '';
  const state = { page, sort, order, mode, q };
  const set = (o: Partial<typeof state>) => go('/hosts', { ...state, page: 1, ...o });
  const [text, setText] = useState(q);

  const hosts = useApi(
    () => call<{ totalRows: number; data: ActiveHost[] }>('get/host/active', { ifid, currentPage: page, perPage: PER_PAGE, sortColumn: sort, sortOrder: order, mode, network_cidr: q || undefined }),
    [ifid, page, sort, order, mode, q],
    10_000,
  );

  return (
    <div data-testid="page-hosts">
      <h1>Hosts</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          set({ q: text.trim() });
        }}
      >
        <input data-testid="hosts-search" placeholder="Address or CIDR (192.168.1.0/24)" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
        <select data-testid="hosts-mode" value={mode} onChange={(e) => set({ mode: (e.target as HTMLSelectElement).value })}>
          {['all', 'local', 'remote', 'broadcast_domain', 'blacklisted'].map((m) => (
            <option value={m}>{m.replace('_', ' ')}</option>
          ))}
        </select>
      </form>
      <Err error={hosts.error} />
      <Table id="hosts" columns={HOST_COLUMNS} rows={hosts.data?.data} sort={{ column: sort, order }} onSort={(s) => set({ sort: s.column, order: s.order })} />
      <Pager id="hosts" page={page} perPage={PER_PAGE} total={hosts.data?.totalRows} onPage={(p) => go('/hosts', { ...state, page: p })} />
    </div>
  );
}
