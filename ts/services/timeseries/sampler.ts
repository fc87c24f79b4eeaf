// ⑧ The sampler: at each tick of an engine (packet time, Engine.onTick) it
// reads the engine's counters through the normal queries and turns them
// into points: what each counter carried since the previous sample (a delta)
// and the gauges' values. The engine has credited every flow up to the
// boundary and waits while this runs, so a replay gives the same points at
// any speed. Points are queued for the store; the tick never waits for it
// (unless the queue is very long: then a file replay waits, a live capture
// does not).
//
// Which step a delta belongs to: the engine ticks before the first packet at
// or past each boundary, and when a packet jumps several steps only once, at
// the last boundary before it. So the traffic between two ticks lies in the
// step starting at the earlier one (`prev`); the quiet steps after it carry
// nothing and read back as zeros (query.ts fills gaps inside a series).
import type { Geo } from '../geo/index.js';
import { categoryName, protocolInfo, type Engine, type HostDetail } from '../../bindings/engine.js';
import type { Point, TsStore } from './store.js';
import { dscpClass, l4Key, schemaByName } from './schemas.js';

export interface SampledInterface {
  ifid: number;
  engine: Engine;
}

/** ntopng's host key: the address, then @vlan when tagged. */
export const hostTag = (ip: string, vlan: number) => (vlan ? `${ip}@${vlan}` : ip);

/** Canonical tags text of a series: the schema's tags after ifid, 'k=v' joined by ','. */
export function tagsText(schema: string, tags: Record<string, string>): string {
  const s = schemaByName(schema);
  if (!s) throw new Error(`unknown schema ${schema}`);
  return s.tags
    .slice(1)
    .map((t) => `${t}=${tags[t]}`)
    .join(',');
}

/** Parses tags text back ('' → {}). */
export function parseTagsText(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!text) return out;
  for (const part of text.split(',')) {
    const i = part.indexOf('=');
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

const HOST_STEP = 300;
/** Queued points past which a file replay waits for the store at its next tick. */
const MAX_BACKLOG = 500_000;

interface HostPrev {
  serial: number;
  /** cumulative values by `schema|tags|metric` */
  values: Map<string, number>;
}

/** Per interface: the cumulative counters of the previous sample. */
/** What the interface's data shows beside the engine's: engaged and dropped alerts, flows exported and dropped (totals). */
export interface InterfaceCounters {
  engaged_alerts: number;
  dropped_alerts: number;
  dumped_flows: number;
  dropped_flows: number;
}

class IfaceState {
  readonly minute = new Map<string, number>();
  readonly five = new Map<string, number>();
  hosts = new Map<string, HostPrev>();
  /** every host's bytes sent/rcvd at the previous 5-minute sample (asn:traffic), by host key */
  asHosts = new Map<string, { serial: number; sent: number; rcvd: number }>();
}

export class Sampler {
  private readonly state = new Map<number, IfaceState>();
  private readonly removers = new Map<number, () => void>();
  ticks = 0;
  /** the hosts' ASes (asn:traffic); null: that schema is not written */
  geo: Geo | null = null;
  /** the alert service's and flow writer's counters of an interface (iface:engaged_alerts …); null: not written */
  counters: ((ifid: number) => InterfaceCounters) | null = null;

  constructor(private readonly store: TsStore) {}

  /** Listens to the engines' ticks; call before Engine.start() so no step is missed. */
  attach(ifaces: readonly SampledInterface[]): this {
    for (const i of ifaces) {
      this.state.set(i.ifid, new IfaceState());
      this.removers.set(i.ifid, i.engine.addTickListener((boundary, prev, last) => this.onTick(i, boundary, prev, last)));
    }
    return this;
  }

  detach(ifaces: readonly SampledInterface[]): void {
    for (const i of ifaces) {
      this.removers.get(i.ifid)?.();
      this.removers.delete(i.ifid);
    }
  }

  private onTick(i: SampledInterface, boundary: number, prev: number, last: boolean): void | Promise<void> {
    this.ticks++;
    const st = this.state.get(i.ifid)!;
    const points: Point[] = [];
    this.sampleMinute(i, st, prev, points);
    // 300-s schemas when the tick closes a 5-minute step (or jumps past one),
    // and after a playlist's last packet (its partial 5-minute step)
    if (last || Math.floor(boundary / HOST_STEP) > Math.floor(prev / HOST_STEP)) {
      this.sampleFive(i, st, Math.floor(prev / HOST_STEP) * HOST_STEP, points);
    }
    this.store.write(points);
    this.store.stepClosed(i.ifid, boundary);
    if (this.store.backlog > MAX_BACKLOG) return this.store.flush();
  }

  private sampleMinute(i: SampledInterface, st: IfaceState, t: number, out: Point[]): void {
    const e = i.engine;
    const s = e.stats();
    const l7 = e.l7Stats();
    const by = e.trafficBy();
    const ifid = i.ifid;
    const counter = (schema: string, tags: string, metric: string, cur: number) => {
      const key = `${schema}|${tags}|${metric}`;
      const before = st.minute.get(key) ?? 0;
      st.minute.set(key, cur);
      // engine counters only grow; a smaller value means they restarted from zero
      out.push({ ifid, schema, tags, metric, tstamp: t, value: cur >= before ? cur - before : cur });
    };
    const gauge = (schema: string, metric: string, v: number) => out.push({ ifid, schema, tags: '', metric, tstamp: t, value: v });

    counter('iface:traffic', '', 'bytes', s.bytes);
    counter('iface:traffic_rxtx', '', 'bytes_sent', s.bytes_upload);
    counter('iface:traffic_rxtx', '', 'bytes_rcvd', s.bytes_download);
    counter('iface:packets', '', 'packets', s.packets);
    gauge('iface:hosts', 'num_hosts', s.num_hosts);
    gauge('iface:local_hosts', 'num_hosts', s.num_local_hosts);
    gauge('iface:devices', 'num_devices', s.num_devices);
    gauge('iface:flows', 'num_flows', s.num_flows);
    counter('iface:new_flows', '', 'new_flows', s.flows_created);
    gauge('iface:score', 'cli_score', s.score_as_client);
    gauge('iface:score', 'srv_score', s.score_as_server);
    // the active alerted flows, as the interface's data counts them; their signed change per step
    const alerted = s.alerted_flows_notice + s.alerted_flows_warning + s.alerted_flows_error;
    const alertedKey = 'iface:alerted_flows||num_flows';
    out.push({ ifid, schema: 'iface:alerted_flows', tags: '', metric: 'num_flows', tstamp: t, value: alerted - (st.minute.get(alertedKey) ?? 0) });
    st.minute.set(alertedKey, alerted);
    const c = this.counters?.(ifid);
    if (c) {
      gauge('iface:engaged_alerts', 'engaged_alerts', c.engaged_alerts);
      counter('iface:dropped_alerts', '', 'dropped_alerts', c.dropped_alerts);
      counter('iface:dumped_flows', '', 'dumped_flows', c.dumped_flows);
      counter('iface:dumped_flows', '', 'dropped_flows', c.dropped_flows);
    }
    counter('iface:local2remote', '', 'bytes', s.local2remote);
    counter('iface:remote2local', '', 'bytes', s.remote2local);
    counter('iface:tcp_retransmissions', '', 'packets', s.tcpPacketStats.retransmissions);
    counter('iface:tcp_out_of_order', '', 'packets', s.tcpPacketStats.out_of_order);
    counter('iface:tcp_lost', '', 'packets', s.tcpPacketStats.lost);
    counter('iface:tcp_keep_alive', '', 'packets', s.tcpPacketStats.keep_alive);
    for (const [name, v] of sumBy(l7.apps, (a) => protocolInfo(a.id)?.name ?? 'Unknown', (a) => a.bytes)) counter('iface:ndpi', `protocol=${name}`, 'bytes', v);
    for (const [name, v] of sumBy(l7.categories, (c) => categoryName(c.id), (c) => c.bytes)) counter('iface:ndpi_categories', `category=${name}`, 'bytes', v);
    for (const [name, v] of sumBy(s.l4.filter((x) => l4Key(x.proto) !== null), (x) => l4Key(x.proto)!, (x) => x.bytes)) counter('iface:l4protos', `l4proto=${name}`, 'bytes', v);
    for (const [name, v] of sumBy(s.dscp, (x) => dscpClass(x.dscp), (x) => x.bytes)) counter('iface:dscp', `dscp_class=${name}`, 'bytes', v);
    const nets = e.localNetworks;
    for (const n of by.networks) {
      const subnet = nets[n.index];
      if (subnet === undefined) continue;
      const tags = `subnet=${subnet}`;
      counter('subnet:traffic', tags, 'bytes_ingress', n.ingress);
      counter('subnet:traffic', tags, 'bytes_egress', n.egress);
      counter('subnet:traffic', tags, 'bytes_inner', n.inner);
    }
  }

  private sampleFive(i: SampledInterface, st: IfaceState, t: number, out: Point[]): void {
    const e = i.engine;
    const ifid = i.ifid;
    const by = e.trafficBy();
    const counter5 = (schema: string, tags: string, metric: string, cur: number) => {
      const key = `${schema}|${tags}|${metric}`;
      const before = st.five.get(key) ?? 0;
      st.five.set(key, cur);
      out.push({ ifid, schema, tags, metric, tstamp: t, value: cur >= before ? cur - before : cur });
    };
    for (const v of by.vlans) {
      counter5('vlan:traffic', `vlan=${v.vlan}`, 'bytes_sent', v.bytes_sent);
      counter5('vlan:traffic', `vlan=${v.vlan}`, 'bytes_rcvd', v.bytes_rcvd);
    }
    // ntopng's Country stats (ts_5min.lua's country:traffic)
    for (const c of by.countries) {
      counter5('country:traffic', `country=${c.country}`, 'bytes_ingress', c.ingress);
      counter5('country:traffic', `country=${c.country}`, 'bytes_egress', c.egress);
      counter5('country:traffic', `country=${c.country}`, 'bytes_inner', c.inner);
    }
    // Local hosts only, as ntopng writes host timeseries.
    const hosts = e.hosts({ mode: 'local', limit: 2 ** 31 - 1, detail: true }).rows;
    const next = new Map<string, HostPrev>();
    for (const h of hosts) {
      const key = hostTag(h.ip, h.vlan);
      const old = st.hosts.get(key);
      const prev = old && old.serial === h.serial ? old.values : undefined; // a new host (same address) starts from zero
      const values = new Map<string, number>();
      next.set(key, { serial: h.serial, values });
      samplesOfHost(h, key, (schema, tags, metric, cur, gauge) => {
        const k = `${schema}|${tags}|${metric}`;
        let value = cur;
        if (!gauge) {
          values.set(k, cur);
          const before = prev?.get(k) ?? 0;
          value = cur >= before ? cur - before : cur;
        }
        out.push({ ifid, schema, tags, metric, tstamp: t, value });
      });
    }
    st.hosts = next; // hosts gone since the previous sample are forgotten
    if (this.geo) this.sampleAsn(i, st, t, out, this.geo);
  }

  /**
   * asn:traffic: ntopng's AutonomousSystem counters (every host's, local or
   * remote, AS 0 for those without one), as what each AS's hosts sent and
   * received since the previous sample: per host deltas (a host gone since
   * keeps what it had counted), summed by AS.
   */
  private sampleAsn(i: SampledInterface, st: IfaceState, t: number, out: Point[], geo: Geo): void {
    const by = new Map<number, [number, number]>();
    const next = new Map<string, { serial: number; sent: number; rcvd: number }>();
    const cur = i.engine.hostsCursor({ limit: 2 ** 31 - 1, brief: true });
    try {
      for (let rows = cur.next(4096); rows.length; rows = cur.next(4096)) {
        for (const h of rows) {
          const key = hostTag(h.ip, h.vlan);
          const old = st.asHosts.get(key);
          const prev = old && old.serial === h.serial ? old : undefined;
          next.set(key, { serial: h.serial, sent: h.bytes_sent, rcvd: h.bytes_rcvd });
          const ds = prev && h.bytes_sent >= prev.sent ? h.bytes_sent - prev.sent : h.bytes_sent;
          const dr = prev && h.bytes_rcvd >= prev.rcvd ? h.bytes_rcvd - prev.rcvd : h.bytes_rcvd;
          const asn = geo.lookup(h.ip).asn;
          const v = by.get(asn) ?? [0, 0];
          v[0] += ds;
          v[1] += dr;
          by.set(asn, v);
        }
      }
    } finally {
      cur.close();
    }
    st.asHosts = next;
    for (const [asn, [sent, rcvd]] of by) {
      out.push({ ifid: i.ifid, schema: 'asn:traffic', tags: `asn=${asn}`, metric: 'bytes_sent', tstamp: t, value: sent });
      out.push({ ifid: i.ifid, schema: 'asn:traffic', tags: `asn=${asn}`, metric: 'bytes_rcvd', tstamp: t, value: rcvd });
    }
  }
}

/** The 300-s host series with their current (cumulative or gauge) values. */
function samplesOfHost(h: HostDetail, key: string, emit: (schema: string, tags: string, metric: string, cur: number, gauge?: boolean) => void): void {
  const host = `host=${key}`;
  emit('host:traffic', host, 'bytes_sent', h.bytes_sent);
  emit('host:traffic', host, 'bytes_rcvd', h.bytes_rcvd);
  for (const [name, v] of sumBy2(h.ndpi, (a) => protocolInfo(a.id)?.name ?? 'Unknown')) {
    emit('host:ndpi', `${host},protocol=${name}`, 'bytes_sent', v[0]);
    emit('host:ndpi', `${host},protocol=${name}`, 'bytes_rcvd', v[1]);
  }
  for (const [name, v] of sumBy2(h.ndpi_categories, (c) => categoryName(c.id))) {
    emit('host:ndpi_categories', `${host},category=${name}`, 'bytes_sent', v[0]);
    emit('host:ndpi_categories', `${host},category=${name}`, 'bytes_rcvd', v[1]);
  }
  for (const [name, v] of sumBy2(h.dscp, (d) => dscpClass(d.dscp))) {
    emit('host:dscp', `${host},dscp_class=${name}`, 'bytes_sent', v[0]);
    emit('host:dscp', `${host},dscp_class=${name}`, 'bytes_rcvd', v[1]);
  }
  for (const [name, c] of [['tcp', h.tcp], ['udp', h.udp], ['icmp', h.icmp], ['other_ip', h.other_ip]] as const) {
    if (!c.bytes_sent && !c.bytes_rcvd) continue;
    emit('host:l4protos', `${host},l4proto=${name}`, 'bytes_sent', c.bytes_sent);
    emit('host:l4protos', `${host},l4proto=${name}`, 'bytes_rcvd', c.bytes_rcvd);
  }
  emit('host:active_flows', host, 'flows_as_client', h.active_flows_as_client, true);
  emit('host:active_flows', host, 'flows_as_server', h.active_flows_as_server, true);
  emit('host:total_flows', host, 'flows_as_client', h.total_flows_as_client);
  emit('host:total_flows', host, 'flows_as_server', h.total_flows_as_server);
  emit('host:score', host, 'score_as_cli', h.score_as_client, true);
  emit('host:score', host, 'score_as_srv', h.score_as_server, true);
}

function sumBy<T>(xs: readonly T[], key: (x: T) => string, val: (x: T) => number): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + val(x));
  return m;
}

function sumBy2<T extends { bytes_sent: number; bytes_rcvd: number }>(xs: readonly T[], key: (x: T) => string): Map<string, [number, number]> {
  const m = new Map<string, [number, number]>();
  for (const x of xs) {
    const k = key(x);
    const v = m.get(k) ?? [0, 0];
    v[0] += x.bytes_sent, v[1] += x.bytes_rcvd;
    m.set(k, v);
  }
  return m;
}
