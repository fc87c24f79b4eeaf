// Overview: the interface's figures (get/interface/data), its throughput
// live (polled every 3 s, seeded with the last minute of
// top/realtime_traffic), the top hosts by traffic, the top applications
// and the alert counts by severity.
import { useEffect, useRef, useState } from 'preact/hooks';

import { call } from '../api.js';
import { COLORS, TimeChart } from '../components/chart.js';
import { Card, Err, Section, Table, useApi } from '../components/ui.js';
import * as f from '../format.js';
import type { PageProps } from '../router.js';
import { hostLink } from './hosts.js';

export interface IfData {
  ifname: string;
  packets: number;
  bytes: number;
  num_hosts: number;
  num_local_hosts: number;
  num_devices: number;
  num_flows: number;
  drops: number;
  throughput_bps: number;
  throughput: { upload: { bps: number }; download: { bps: number } };
  engaged_alerts: number;
  alerted_flows: number;
  epoch: number;
}

interface HostRow {
  ip: string;
  vlan: number;
  name: string | number;
  bytes: { total: number; sent: number; recvd: number };
  thpt: { bps: number };
  num_flows: { total: number };
}

interface Page<R> {
  totalRows: number;
  data: R[];
}

type Counters = Record<'historical-flows' | 'historical', { count: string; severity: string; severity_id: number }[]>;

const LIVE_POINTS = 120;

export function OverviewPage({ ifid }: PageProps) {
  const data = useApi(() => call<IfData>('get/interface/data', { ifid }), [ifid], 3000);
  const hosts = useApi(() => call<Page<HostRow>>('get/host/active', { ifid, perPage: 10, sortColumn: 'traffic', sortOrder: 'desc' }), [ifid], 10_000);
  const apps = useApi(() => call<{ label: string; value: number }[]>('get/interface/l7/stats', { ifid, ndpistats_mode: 'sinceStartup' }), [ifid], 10_000);
  const now = Math.floor(Date.now() / 1000);
  const stored = useApi(() => call<Counters>('get/alert/severity/counters', { ifid, epoch_begin: 0, epoch_end: now + 60 }), [ifid], 30_000);

  // the live series: the last minute from the API, then one point per poll
  const [live, setLive] = useState<{ x: number[]; up: number[]; down: number[] }>({ x: [], up: [], down: [] });
  const seeded = useRef(-1);
  useEffect(() => {
    seeded.current = -1;
    setLive({ x: [], up: [], down: [] });
    call<{ metadata: { epoch_begin: number; epoch_step: number }; series: { id: string; data: number[] }[] }>('get/interface/top/realtime_traffic', { ifid }, { pro: true })
      .then((r) => {
        if (seeded.current !== -1) return;
        const sent = r.series.find((s) => s.id === 'bytes_sent')?.data ?? [];
        const rcvd = r.series.find((s) => s.id === 'bytes_rcvd')?.data ?? [];
        const x = sent.map((_, i) => r.metadata.epoch_begin + i * r.metadata.epoch_step);
        seeded.current = ifid;
        setLive({ x, up: sent.map((v) => v * 8), down: rcvd.map((v) => v * 8) });
      })
      .catch(() => (seeded.current = ifid));
  }, [ifid]);
  useEffect(() => {
    const d = data.data;
    if (!d) return;
    setLive((l) => {
      const t = l.x.length && l.x[l.x.length - 1]! >= d.epoch ? l.x[l.x.length - 1]! + 1 : d.epoch;
      const keep = (a: number[], v: number) => [...a, v].slice(-LIVE_POINTS);
      return { x: keep(l.x, t), up: keep(l.up, d.throughput.upload.bps * 8), down: keep(l.down, d.throughput.download.bps * 8) };
    });
  }, [data.data]);

  const d = data.data;
  const sev = (stored.data?.['historical-flows'] ?? []).concat(stored.data?.historical ?? []);
  const bySeverity = new Map<string, number>();
  for (const s of sev) bySeverity.set(s.severity, (bySeverity.get(s.severity) ?? 0) + Number(s.count));

  return (
    <div data-testid="page-overview">
      <h1>Overview</h1>
      <Err error={data.error} />
      <div class="cards">
        <Card id="ov-packets" label="Packets" value={d?.packets} text={f.count} />
        <Card id="ov-bytes" label="Traffic" value={d?.bytes} text={f.bytes} />
        <Card id="ov-throughput" label="Throughput" value={d && d.throughput_bps * 8} text={f.bps} />
        <Card id="ov-hosts" label="Hosts" value={d?.num_hosts} text={f.count} />
        <Card id="ov-local-hosts" label="Local hosts" value={d?.num_local_hosts} text={f.count} />
        <Card id="ov-devices" label="Devices" value={d?.num_devices} text={f.count} />
        <Card id="ov-flows" label="Flows" value={d?.num_flows} text={f.count} />
        <Card id="ov-drops" label="Drops" value={d?.drops} text={f.count} />
        <Card id="ov-engaged" label="Engaged alerts" value={d?.engaged_alerts} text={f.count} />
        <Card id="ov-alerted-flows" label="Alerted flows" value={d?.alerted_flows} text={f.count} />
      </div>
      <Section title="Throughput (live)" id="ov-live">
        <TimeChart
          id="ov-chart"
          x={live.x}
          lines={[
            { label: 'Upload', values: live.up, color: COLORS[0]! },
            { label: 'Download', values: live.down, color: COLORS[1]! },
          ]}
          unit={f.bps}
        />
      </Section>
      <div class="two">
        <Section title="Top hosts by traffic" id="ov-top-hosts">
          <Err error={hosts.error} />
          <Table
            id="top-hosts"
            rows={hosts.data?.data}
            columns={[
              { key: 'host', label: 'Host', render: (h) => hostLink(h.ip, h.vlan, h.name), value: (h) => f.hostKey(h.ip, h.vlan) },
              { key: 'bytes', label: 'Traffic', num: true, render: (h) => f.bytes(h.bytes.total), value: (h) => h.bytes.total },
              { key: 'thpt', label: 'Throughput', num: true, render: (h) => f.bps(h.thpt.bps), value: (h) => h.thpt.bps },
              { key: 'flows', label: 'Flows', num: true, render: (h) => f.count(h.num_flows.total), value: (h) => h.num_flows.total },
            ]}
          />
        </Section>
        <Section title="Top applications" id="ov-top-apps">
          <Err error={apps.error} />
          <Table
            id="top-apps"
            rows={apps.data}
            columns={[
              { key: 'app', label: 'Application', render: (a) => (a.label === 'Other' ? 'Other' : <a href={`#/flows?application=${encodeURIComponent(a.label)}`}>{a.label}</a>), value: (a) => a.label },
              { key: 'bytes', label: 'Traffic', num: true, render: (a) => f.bytes(a.value), value: (a) => a.value },
            ]}
          />
        </Section>
      </div>
      <Section title="Stored alerts by severity" id="ov-alerts">
        <Err error={stored.error} />
        <div class="cards">
          {['emergency', 'alert', 'critical', 'error', 'warning', 'notice', 'info'].map((s) => (
            <Card id={`ov-alerts-${s}`} label={s} value={stored.data ? (bySeverity.get(s) ?? 0) : undefined} text={f.count} />
          ))}
        </div>
        <p>
          <a href="#/alerts">All alerts ›</a>
        </p>
      </Section>
    </div>
  );
}
