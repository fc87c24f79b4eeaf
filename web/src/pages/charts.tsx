// Historical charts: any timeseries schema of the interface or of a host
// (get/timeseries/type/consts lists them) over a time range — a preset
// window or a begin / end picked — drawn from get/timeseries/ts.
import { useState } from 'preact/hooks';

import { call } from '../api.js';
import { COLORS, TimeChart, type Line } from '../components/chart.js';
import { Err, Section, useApi } from '../components/ui.js';
import * as f from '../format.js';
import { go, type PageProps } from '../router.js';

export interface TsAnswer {
  metadata: { epoch_begin: number; epoch_end: number; epoch_step: number; schema: string };
  series: { id: string; label?: string; data: (number | null)[]; statistics?: { total?: number; average?: number } }[];
}

interface SchemaInfo {
  schema: string;
  label: string;
  measure_unit: string;
  timeseries: Record<string, { label: string }>;
}

export const WINDOWS: Record<string, { label: string; sec: number }> = {
  '10m': { label: 'Last 10 minutes', sec: 600 },
  '1h': { label: 'Last hour', sec: 3600 },
  '6h': { label: 'Last 6 hours', sec: 6 * 3600 },
  '1d': { label: 'Last day', sec: 86400 },
  '1w': { label: 'Last week', sec: 7 * 86400 },
  all: { label: 'Everything stored', sec: 0 },
};

/** [begin, end] epoch seconds of a preset window ('all': from 0) */
export function windowOf(w: string): [number, number] {
  const now = Math.floor(Date.now() / 1000);
  const sec = WINDOWS[w]?.sec ?? 0;
  return [sec ? now - sec : 0, now + 60];
}

/** bytes per second are drawn as bits per second, as ntopng's charts do */
const perUnit = (u: string) => (u === 'bps' ? { k: 8, text: f.bps } : u === 'pps' ? { k: 1, text: (n: number) => `${f.count(n)} pkt/s` } : { k: 1, text: f.count });

export function tsLines(a: TsAnswer, unit = 'bps', labels: Record<string, { label: string }> = {}): { x: number[]; lines: Line[] } {
  const n = Math.max(0, ...a.series.map((s) => s.data.length));
  const x = Array.from({ length: n }, (_, i) => a.metadata.epoch_begin + i * a.metadata.epoch_step);
  const { k } = perUnit(unit);
  const lines = a.series.map((s, i) => ({ label: labels[s.id]?.label ?? s.label ?? s.id, color: COLORS[i % COLORS.length]!, values: s.data.map((v) => (v === null ? null : v * k)) }));
  return { x, lines };
}

const toLocalInput = (epoch: number) => {
  const d = new Date(epoch * 1000 - new Date().getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => Math.floor(new Date(v).getTime() / 1000);

export function ChartsPage({ ifid, route }: PageProps) {
  const kind = route.params.get('kind') === 'host' ? 'host' : 'iface';
  const host = route.params.get('host') ?? '';
  const schema = route.params.get('schema') ?? (kind === 'host' ? 'host:traffic' : 'iface:traffic_rxtx');
  const win = route.params.get('window') ?? '1h';
  const custom = route.params.has('begin') && route.params.has('end');
  const [begin, end] = custom ? [Number(route.params.get('begin')), Number(route.params.get('end'))] : windowOf(win);
  const state = { kind, host, schema, window: win, begin: custom ? begin : undefined, end: custom ? end : undefined };
  const set = (o: Partial<typeof state>) => go('/charts', { ...state, ...o });
  const [range, setRange] = useState({ begin: toLocalInput(begin), end: toLocalInput(end) });
  const [hostText, setHostText] = useState(host);

  const schemas = useApi(() => call<SchemaInfo[]>('get/timeseries/type/consts', { query: kind === 'host' ? 'host' : 'iface' }), [kind]);
  const info = schemas.data?.find((s) => s.schema === schema);
  const tsQuery = kind === 'host' ? `ifid:${ifid},host:${host}` : `ifid:${ifid}`;
  const ts = useApi(
    () => (kind === 'host' && !host ? Promise.resolve(undefined) : call<TsAnswer>('get/timeseries/ts', { ifid, ts_schema: schema, ts_query: tsQuery, epoch_begin: begin, epoch_end: end })),
    [ifid, schema, tsQuery, begin, end],
  );
  const unit = info?.measure_unit ?? 'number';
  const chart = ts.data ? tsLines(ts.data, unit, info?.timeseries) : undefined;

  return (
    <div data-testid="page-charts">
      <h1>Charts</h1>
      <div class="filters">
        <select data-testid="charts-kind" value={kind} onChange={(e) => set({ kind: (e.target as HTMLSelectElement).value, schema: undefined })}>
          <option value="iface">Interface</option>
          <option value="host">Host</option>
        </select>
        {kind === 'host' && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              set({ host: hostText.trim() });
            }}
          >
            <input data-testid="charts-host" placeholder="Host address" value={hostText} onInput={(e) => setHostText((e.target as HTMLInputElement).value)} />
          </form>
        )}
        <select data-testid="charts-schema" value={schema} onChange={(e) => set({ schema: (e.target as HTMLSelectElement).value })}>
          {(schemas.data ?? []).map((s) => (
            <option value={s.schema}>{s.label}</option>
          ))}
        </select>
        <select data-testid="charts-window" value={custom ? 'custom' : win} onChange={(e) => set({ window: (e.target as HTMLSelectElement).value, begin: undefined, end: undefined })}>
          {Object.entries(WINDOWS).map(([k, w]) => (
            <option value={k}>{w.label}</option>
          ))}
          {custom && <option value="custom">Custom range</option>}
        </select>
        <form
          class="range"
          onSubmit={(e) => {
            e.preventDefault();
            const b = fromLocalInput(range.begin);
            const en = fromLocalInput(range.end);
            if (Number.isFinite(b) && Number.isFinite(en) && en > b) set({ begin: b, end: en });
          }}
        >
          <input type="datetime-local" data-testid="charts-begin" value={range.begin} onInput={(e) => setRange({ ...range, begin: (e.target as HTMLInputElement).value })} />
          <input type="datetime-local" data-testid="charts-end" value={range.end} onInput={(e) => setRange({ ...range, end: (e.target as HTMLInputElement).value })} />
          <button type="submit" data-testid="charts-apply">
            Apply
          </button>
        </form>
      </div>
      <Err error={schemas.error ?? ts.error} />
      <Section title={`${info?.label ?? schema} · ${f.time(begin)} – ${f.time(end)}`} id="charts-panel">
        {chart ? <TimeChart id="charts-chart" x={chart.x} lines={chart.lines} unit={perUnit(unit).text} height={300} /> : <p>{kind === 'host' && !host ? 'Pick a host' : 'Loading…'}</p>}
        {ts.data && (
          <table data-testid="charts-totals">
            <tbody>
              {ts.data.series.map((s) => (
                <tr>
                  <td>{info?.timeseries[s.id]?.label ?? s.id}</td>
                  <td class="num" data-col="total" data-value={s.statistics?.total ?? ''}>
                    {s.statistics?.total !== undefined ? (unit === 'bps' ? f.bytes(s.statistics.total) : f.count(s.statistics.total)) : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </div>
  );
}
