// GET /metrics: each interface's engine counters in Prometheus' text format
// (version 0.0.4): traffic, capture drops, decode errors, the state full
// tables and pools refused, flows and hosts, traffic per application, the
// alerts engaged by severity group and the alerts dropped, egress targets'
// packets by action and their outputs' drops, the packet recorder, the flow
// export's drops, and the process. Read like the API (same credentials); a
// user bound to one interface sees that interface only.
import { l7Name } from '../bindings/engine.js';
import type { InterfaceAlertCounters } from '../services/alerts/alert-service.js';
import type { MonitoredInterface } from '../services/interfaces.js';
import type { ExportCounters } from '../services/store/flow-writer.js';

type Labels = Record<string, string | number>;
interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: [Labels, number][];
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (l: Labels) => {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escape(String(v))}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

/** The state refused by each full table or pool: engine counter → `table` label. */
const REFUSED = {
  flow_table_full: 'flows', host_table_full: 'hosts', mac_table_full: 'macs',
  host_l7_pool_full: 'host_l7', host_contacts_full: 'host_contacts', host_side_full: 'host_side', flow_info_full: 'flow_info', flow_meta_full: 'flow_meta', flow_score_full: 'flow_score', flow_iec_full: 'flow_iec',
} as const;

const DROPPED_HELP = 'Alerts not handled (queue full, store missing or failing, engaged table full), by family';

/** What the other services count per interface (each absent when that service is not running). */
export interface MetricsSources {
  exportCounters?: (ifid: number) => ExportCounters;
  flowAlertDrops?: (ifid: number) => number;
  alerts?: (ifid: number) => InterfaceAlertCounters;
}

export function metricsText(ifaces: MonitoredInterface[], src: MetricsSources = {}): string {
  const fam = new Map<string, Family>();
  const add = (name: string, type: Family['type'], help: string, labels: Labels, value: number) => {
    let f = fam.get(name);
    if (!f) fam.set(name, (f = { name, help, type, samples: [] }));
    f.samples.push([labels, value]);
  };
  for (const i of ifaces) {
    const s = i.engine.stats();
    const l = { ifid: i.ifid, ifname: i.ifname };
    add('flowgate_packets_total', 'counter', 'Packets seen on the interface', l, s.packets);
    add('flowgate_bytes_total', 'counter', 'Bytes seen on the interface (frame lengths)', l, s.bytes);
    add('flowgate_capture_drops_total', 'counter', 'Packets the capture dropped (kernel or ring)', l, s.drops);
    add('flowgate_malformed_packets_total', 'counter', 'Packets the decoder could not read', l, s.malformed);
    for (const [reason, n] of Object.entries(s.decode)) add('flowgate_decode_errors_total', 'counter', 'Decoder errors by reason', { ...l, reason }, n);
    for (const [k, table] of Object.entries(REFUSED)) {
      add('flowgate_refused_total', 'counter', 'State refused because a table or pool was full (flows, hosts, MACs refused; per-host L7 counters stopped; flows without DPI state or metadata)', { ...l, table }, s[k as keyof typeof REFUSED]);
    }
    add('flowgate_flows', 'gauge', 'Active flows', l, s.num_flows);
    add('flowgate_flows_max', 'gauge', 'Flow table size', l, s.max_flows);
    add('flowgate_hosts', 'gauge', 'Active hosts', l, s.num_hosts);
    add('flowgate_hosts_max', 'gauge', 'Host table size', l, s.max_hosts);
    add('flowgate_flows_created_total', 'counter', 'Flows created', l, s.flows_created);
    add('flowgate_flows_expired_total', 'counter', 'Flows expired', l, s.flows_expired);
    add('flowgate_expired_ring_drops_total', 'counter', 'Expired flows dropped before export (ring full)', l, s.expired_ring_drops);
    // per application (nDPI's name of the flow's application, as l7/stats sinceStartup)
    for (const a of i.engine.l7Stats().apps) {
      if (!a.bytes && !a.packets) continue;
      const al = { ...l, application: l7Name(0, a.id) };
      add('flowgate_application_bytes_total', 'counter', 'Bytes per application since start', al, a.bytes);
      add('flowgate_application_packets_total', 'counter', 'Packets per application since start', al, a.packets);
      add('flowgate_application_flows_total', 'counter', 'Flows per application since start', al, a.num_flows);
    }
    // active flows with an alert, by their predominant alert's severity group (interface data's alerted_flows_*)
    for (const sev of ['notice', 'warning', 'error'] as const) add('flowgate_alerted_flows', 'gauge', 'Active flows with an alert, by severity group', { ...l, severity: sev }, s[`alerted_flows_${sev}`]);
    const ac = src.alerts?.(i.ifid);
    if (ac) {
      for (const [sev, n] of Object.entries(ac.engagedBySeverity)) add('flowgate_engaged_alerts', 'gauge', 'Engaged alerts, by severity group', { ...l, severity: sev }, n);
      add('flowgate_alerts_written_total', 'counter', 'Alerts written to the store (all families but flow)', l, ac.written);
      add('flowgate_alerts_dropped_total', 'counter', DROPPED_HELP, { ...l, family: 'host' }, ac.droppedBy.host);
      add('flowgate_alerts_dropped_total', 'counter', DROPPED_HELP, { ...l, family: 'other' }, ac.droppedBy.other);
    }
    // egress targets fed by this interface (none unless configured): offered, by action, output drops
    for (const t of i.engine.egressStats().targets) {
      const tl = { ...l, target: t.target, ...(t.queue !== undefined ? { queue: t.queue } : {}) };
      add('flowgate_egress_packets_total', 'counter', 'Packets offered to an egress target', tl, t.packets);
      add('flowgate_egress_bytes_total', 'counter', 'Bytes offered to an egress target', tl, t.bytes);
      add('flowgate_egress_forwarded_bytes_total', 'counter', 'Bytes an egress target handed to its outputs', tl, t.forwarded_bytes);
      for (const [action, n] of Object.entries(t.actions)) add('flowgate_egress_action_packets_total', 'counter', 'Packets of an egress target by the action their policy chose', { ...tl, action }, n);
      add('flowgate_egress_output_drops_total', 'counter', "Packets an egress target's outputs dropped", tl, t.output_drops);
    }
    // the packet recorder (--record): written, dropped (the ring was full: live capture does not wait), on disk
    const rec = i.engine.recorderStats();
    if (rec) {
      add('flowgate_recorder_packets_total', 'counter', 'Packets written to the recording', l, rec.packets);
      add('flowgate_recorder_bytes_total', 'counter', 'Captured bytes written to the recording', l, rec.bytes);
      add('flowgate_recorder_drops_total', 'counter', 'Packets not recorded (ring full or write failed)', l, rec.drops);
      add('flowgate_recorder_disk_bytes', 'gauge', "The recording's files on disk (data and index)", l, rec.diskBytes);
    }
    const fd = src.flowAlertDrops?.(i.ifid);
    if (fd !== undefined) add('flowgate_alerts_dropped_total', 'counter', DROPPED_HELP, { ...l, family: 'flow' }, fd);
    const x = src.exportCounters?.(i.ifid);
    if (x) add('flowgate_flow_export_drops_total', 'counter', 'Flows the historical store did not take', l, x.flow_export_drops);
    add('flowgate_engine_memory_bytes', 'gauge', 'Memory of the tables and pools', l, s.memory_bytes);
  }
  const mem = process.memoryUsage();
  add('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes', {}, mem.rss);
  add('process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds', {}, Math.round(Date.now() / 1000 - process.uptime()));
  const cpu = process.cpuUsage();
  add('process_cpu_seconds_total', 'counter', 'Total user and system CPU time spent in seconds', {}, (cpu.user + cpu.system) / 1e6);
  add('nodejs_heap_size_used_bytes', 'gauge', 'Process heap size used from Node.js in bytes', {}, mem.heapUsed);
  let out = '';
  for (const f of fam.values()) {
    out += `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n`;
    for (const [labels, v] of f.samples) out += `${f.name}${labelText(labels)} ${Number.isFinite(v) ? v : 0}\n`;
  }
  return out;
}
