// One host: its data (get/host/data), its active flows, its applications
// (get/host/l7/stats), its traffic timeseries over the time it was seen,
// and its alerts (engaged and stored).
import { call, callRaw } from '../api.js';
import { TimeChart } from '../components/chart.js';
import { Card, Err, Pager, Section, Table, useApi } from '../components/ui.js';
import * as f from '../format.js';
import { go, num, type PageProps } from '../router.js';
import { ALERT_COLUMNS, type AlertRecord } from './alerts.js';
import { tsLines, type TsAnswer } from './charts.js';
import { FLOW_COLUMNS, type ActiveFlow } from './flows.js';

type HostData = Record<string, unknown> & { ip: string; vlan: number; name: string; mac: string; localhost: boolean };

const PER_PAGE = 10;

export function HostPage({ ifid, route }: PageProps) {
  const key = decodeURIComponent(route.path.slice('/host/'.length));
  const [ip, vlanText] = key.split('@');
  const vlan = Number(vlanText ?? 0);
  const page = num(route, 'page', 1);
  const sort = route.params.get('sort') ?? 'bytes';
  const order = route.params.get('order') === 'asc' ? 'asc' : 'desc';

  const host = useApi(() => call<HostData>('get/host/data', { ifid, host: ip, vlan }), [ifid, key], 5000);
  const flows = useApi(
    () => call<{ totalRows: number; data: ActiveFlow[] }>('get/flow/active', { ifid, host: ip, vlan: vlan || undefined, currentPage: page, perPage: PER_PAGE, sortColumn: sort, sortOrder: order }),
    [ifid, key, page, sort, order],
    10_000,
  );
  const apps = useApi(() => call<{ label: string; value: number }[]>('get/host/l7/stats', { ifid, host: ip, vlan }), [ifid, key], 10_000);
  const h = host.data;
  const first = Number(h?.['seen.first'] ?? 0);
  const last = Number(h?.['seen.last'] ?? 0);
  // the host's life, a step either side: its points wherever the clock of the capture put them
  const ts = useApi(
    () => (h ? call<TsAnswer>('get/timeseries/ts', { ifid, ts_schema: 'host:traffic', ts_query: `ifid:${ifid},host:${f.hostKey(ip!, vlan)}`, epoch_begin: first - 300, epoch_end: Math.max(last, first + 600) + 300 }) : Promise.resolve(undefined)),
    [ifid, key, first, last],
  );
  const now = Math.floor(Date.now() / 1000);
  const engaged = useApi(() => callRaw<{ records: AlertRecord[] }>('get/host/alert/list', { ifid, status: 'engaged', ip: `${ip};eq`, length: 50 }), [ifid, key], 10_000);
  const stored = useApi(() => callRaw<{ records: AlertRecord[] }>('get/host/alert/list', { ifid, status: 'historical', epoch_begin: 0, epoch_end: now + 60, ip: `${ip};eq`, length: 50 }), [ifid, key], 30_000);

  const n = (k: string) => (h ? Number(h[k] ?? 0) : undefined);
  const chart = ts.data ? tsLines(ts.data, 'bps', { bytes_sent: { label: 'Sent' }, bytes_rcvd: { label: 'Received' } }) : undefined;
  return (
    <div data-testid="page-host">
      <h1>
        Host <span data-testid="host-key">{key}</span> {h?.name ? <small>{h.name}</small> : null}
      </h1>
      <Err error={host.error} />
      {h && (
        <p class="facts">
          {h.localhost ? 'Local' : 'Remote'} · MAC <span data-testid="host-mac">{h.mac || '-'}</span> · first seen {f.time(first)} · last seen {f.time(last)}
        </p>
      )}
      <div class="cards">
        <Card id="host-bytes-sent" label="Sent" value={n('bytes.sent')} text={f.bytes} />
        <Card id="host-bytes-rcvd" label="Received" value={n('bytes.rcvd')} text={f.bytes} />
        <Card id="host-packets-sent" label="Packets sent" value={n('packets.sent')} text={f.count} />
        <Card id="host-packets-rcvd" label="Packets received" value={n('packets.rcvd')} text={f.count} />
        <Card id="host-flows-client" label="Active flows as client" value={n('active_flows.as_client')} text={f.count} />
        <Card id="host-flows-server" label="Active flows as server" value={n('active_flows.as_server')} text={f.count} />
        <Card id="host-score" label="Score" value={n('score')} text={f.count} />
        <Card id="host-throughput" label="Throughput" value={h && Number(h.throughput_bps ?? 0) * 8} text={f.bps} />
      </div>
      <Section title="Traffic over time" id="host-ts">
        <Err error={ts.error} />
        {chart && <TimeChart id="host-chart" x={chart.x} lines={chart.lines} unit={f.bps} />}
      </Section>
      <div class="two">
        <Section title="Applications" id="host-apps">
          <Err error={apps.error} />
          <Table
            id="host-apps-table"
            rows={apps.data}
            columns={[
              { key: 'app', label: 'Application', render: (a) => a.label, value: (a) => a.label },
              { key: 'bytes', label: 'Traffic', num: true, render: (a) => f.bytes(a.value), value: (a) => a.value },
            ]}
          />
        </Section>
        <Section title="Alerts" id="host-alerts">
          <Err error={engaged.error ?? stored.error} />
          <h3>
            Engaged: <span data-testid="host-engaged-count">{engaged.data?.recordsTotal ?? '…'}</span> · Stored:{' '}
            <span data-testid="host-stored-count">{stored.data?.recordsTotal ?? '…'}</span>
          </h3>
          <Table id="host-alerts-table" rows={[...(engaged.data?.rsp.records ?? []), ...(stored.data?.rsp.records ?? [])]} columns={ALERT_COLUMNS.filter((c) => c.key !== 'entity')} empty="No alerts" />
        </Section>
      </div>
      <Section title="Active flows" id="host-flows">
        <Err error={flows.error} />
        <Table id="host-flows-table" columns={FLOW_COLUMNS} rows={flows.data?.data} sort={{ column: sort, order }} onSort={(s) => go(route.path, { page: 1, sort: s.column, order: s.order })} />
        <Pager id="host-flows" page={page} perPage={PER_PAGE} total={flows.data?.totalRows} onPage={(p) => go(route.path, { page: p, sort, order })} />
      </Section>
    </div>
  );
}
