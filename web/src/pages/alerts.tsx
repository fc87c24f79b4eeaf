// Alerts by family: engaged ones (held while their condition lasts) and
// stored ones in a time window, paged; a stored alert is acknowledged or
// deleted where the API allows it (every family but flows, whose alerts
// are the stored flows themselves).
import { useState } from 'preact/hooks';

import { call, callRaw } from '../api.js';
import { Err, Pager, Table, useApi, type Column } from '../components/ui.js';
import * as f from '../format.js';
import { go, num, type PageProps } from '../router.js';
import { hostLink } from './hosts.js';
import { WINDOWS, windowOf } from './charts.js';

type Labelled = { value: string | number; label: string };
export type AlertRecord = Record<string, unknown> & {
  row_id: string;
  tstamp: Labelled;
  alert_id: Labelled;
  severity: Labelled;
  score: Labelled;
  msg?: { description?: string };
  description?: string;
};

/** family → its folder in the API's paths, and whether it is a pro path */
const FAMILIES: Record<string, { dir: string; pro: boolean; engaged: boolean; manage: boolean }> = {
  host: { dir: 'host', pro: false, engaged: true, manage: true },
  flow: { dir: 'flow', pro: false, engaged: false, manage: false },
  interface: { dir: 'interface', pro: false, engaged: true, manage: true },
  network: { dir: 'network', pro: false, engaged: true, manage: true },
  mac: { dir: 'mac', pro: false, engaged: true, manage: true },
  system: { dir: 'system', pro: false, engaged: true, manage: true },
  user: { dir: 'user', pro: false, engaged: true, manage: true },
  am_host: { dir: 'am_host', pro: false, engaged: true, manage: false },
  snmp_device: { dir: 'snmp/device', pro: true, engaged: true, manage: true },
};

const s = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** What the alert is about, per family's record shape. */
function entity(r: AlertRecord): preact.ComponentChildren {
  const v = r as Record<string, any>;
  if (v.cli_ip) return `${s(v.cli_ip.value)}:${s(v.cli_port?.value)} → ${s(v.srv_ip?.value)}:${s(v.srv_port?.value)}`;
  if (v.ip && typeof v.ip === 'object') return hostLink(s(v.ip.value), Number(v.vlan_id || 0), s(v.ip.label));
  return s(v.address ?? v.network ?? v.user ?? v.resolved_ip ?? v.ip ?? v.name);
}

export const ALERT_COLUMNS: Column<AlertRecord>[] = [
  { key: 'time', label: 'Time', render: (r) => f.time(Number(r.tstamp.value)), value: (r) => Number(r.tstamp.value) },
  { key: 'severity', label: 'Severity', render: (r) => <span class={`sev sev-${r.severity.label}`}>{r.severity.label}</span>, value: (r) => r.severity.label },
  { key: 'type', label: 'Alert', render: (r) => r.alert_id.label, value: (r) => Number(r.alert_id.value) },
  { key: 'entity', label: 'About', render: entity },
  { key: 'score', label: 'Score', num: true, render: (r) => s(r.score.value), value: (r) => Number(r.score.value) },
  { key: 'description', label: 'Description', render: (r) => r.msg?.description || r.description || '' },
];

const PER_PAGE = 25;

export function AlertsPage({ ifid, route }: PageProps) {
  const family = FAMILIES[route.params.get('family') ?? ''] ? route.params.get('family')! : 'host';
  const fam = FAMILIES[family]!;
  const status = fam.engaged && route.params.get('status') === 'engaged' ? 'engaged' : 'historical';
  const win = route.params.get('window') ?? 'all';
  const page = num(route, 'page', 1);
  const state = { family, status, window: win, page };
  const set = (o: Partial<typeof state>) => go('/alerts', { ...state, page: 1, ...o });
  const [note, setNote] = useState<string>();

  const [begin, end] = windowOf(win);
  const list = useApi(
    () =>
      callRaw<{ records: AlertRecord[] }>(
        `get/${fam.dir}/alert/list`,
        { ifid, ...(family === 'flow' ? {} : { status }), ...(status === 'engaged' ? {} : { epoch_begin: begin, epoch_end: end }), start: (page - 1) * PER_PAGE, length: PER_PAGE },
        { pro: fam.pro },
      ),
    [ifid, family, status, win, page],
    15_000,
  );

  const act = async (what: 'acknowledge' | 'delete', r: AlertRecord) => {
    try {
      if (what === 'acknowledge') await call(`acknowledge/${fam.dir}/alerts`, { ifid, row_id: r.row_id, label: 'acknowledged from the dashboard' }, { pro: fam.pro });
      else await call(`delete/${fam.dir}/alerts`, { ifid, status: 'historical', row_id: `${r.row_id};eq` }, { pro: fam.pro });
      setNote(`${what === 'acknowledge' ? 'Acknowledged' : 'Deleted'} alert ${r.row_id}`);
      list.reload();
    } catch (e) {
      setNote((e as Error).message);
    }
  };
  const columns: Column<AlertRecord>[] =
    fam.manage && status === 'historical'
      ? [
          ...ALERT_COLUMNS,
          {
            key: 'actions',
            label: '',
            render: (r) => (
              <span class="actions">
                <button data-action="acknowledge" onClick={() => act('acknowledge', r)}>
                  Ack
                </button>
                <button data-action="delete" onClick={() => act('delete', r)}>
                  Delete
                </button>
              </span>
            ),
          },
        ]
      : ALERT_COLUMNS;

  return (
    <div data-testid="page-alerts">
      <h1>Alerts</h1>
      <div class="filters">
        <select data-testid="alerts-family" value={family} onChange={(e) => set({ family: (e.target as HTMLSelectElement).value })}>
          {Object.keys(FAMILIES).map((k) => (
            <option value={k}>{k.replace('_', ' ')}</option>
          ))}
        </select>
        {fam.engaged && (
          <select data-testid="alerts-status" value={status} onChange={(e) => set({ status: (e.target as HTMLSelectElement).value })}>
            <option value="historical">stored</option>
            <option value="engaged">engaged</option>
          </select>
        )}
        {status !== 'engaged' && (
          <select data-testid="alerts-window" value={win} onChange={(e) => set({ window: (e.target as HTMLSelectElement).value })}>
            {Object.entries(WINDOWS).map(([k, w]) => (
              <option value={k}>{w.label}</option>
            ))}
          </select>
        )}
      </div>
      {note && (
        <p class="note" data-testid="alerts-note">
          {note}
        </p>
      )}
      <Err error={list.error} />
      <Table id="alerts" columns={columns} rows={list.data?.rsp.records} empty="No alerts" />
      <Pager id="alerts" page={page} perPage={PER_PAGE} total={list.data ? Number(list.data.recordsTotal ?? 0) : undefined} onPage={(p) => go('/alerts', { ...state, page: p })} />
    </div>
  );
}
