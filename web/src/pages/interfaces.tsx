// Interfaces: every monitored interface with its figures (one
// get/interface/data per interface).
import { call } from '../api.js';
import { Err, Table, useApi } from '../components/ui.js';
import * as f from '../format.js';
import type { PageProps } from '../router.js';
import type { IfData } from './overview.js';

interface Row extends IfData {
  ifid: number;
  name: string;
}

export function InterfacesPage(_: PageProps) {
  const list = useApi(async () => {
    const ifs = await call<{ ifid: number; ifname: string; name: string }[]>('get/ntopng/interfaces');
    return Promise.all(ifs.map(async (i) => ({ ...(await call<IfData>('get/interface/data', { ifid: i.ifid })), ifid: i.ifid, name: i.name }) as Row));
  }, [], 5000);
  return (
    <div data-testid="page-interfaces">
      <h1>Interfaces</h1>
      <Err error={list.error} />
      <Table
        id="interfaces"
        rows={list.data}
        columns={[
          { key: 'ifid', label: 'Id', render: (r) => r.ifid, value: (r) => r.ifid },
          { key: 'name', label: 'Interface', render: (r) => <span title={r.ifname}>{r.name || r.ifname}</span>, value: (r) => r.ifname },
          { key: 'packets', label: 'Packets', num: true, render: (r) => f.count(r.packets), value: (r) => r.packets },
          { key: 'bytes', label: 'Traffic', num: true, render: (r) => f.bytes(r.bytes), value: (r) => r.bytes },
          { key: 'drops', label: 'Drops', num: true, render: (r) => f.count(r.drops), value: (r) => r.drops },
          { key: 'hosts', label: 'Hosts', num: true, render: (r) => f.count(r.num_hosts), value: (r) => r.num_hosts },
          { key: 'flows', label: 'Flows', num: true, render: (r) => f.count(r.num_flows), value: (r) => r.num_flows },
          { key: 'thpt', label: 'Throughput', num: true, render: (r) => f.bps(r.throughput_bps * 8), value: (r) => r.throughput_bps },
        ]}
      />
    </div>
  );
}
