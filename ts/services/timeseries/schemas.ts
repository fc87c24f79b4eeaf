// ⑧ The timeseries schemas, as ntopng defines them (scripts/lua/modules/
// timeseries/schemas/ts_minute.lua, ts_5min.lua, ts_second.lua): name, tags,
// metrics, counter or gauge. Interface schemas are written every 60 s of
// packet time, the others every 300 s (ntopng's steps; ntopng's per-second
// interface schemas are written here at 60 s). Counters are stored as what
// each step carried and read back as per-second rates; gauges as values.

export type MetricType = 'counter' | 'gauge';

export interface Schema {
  name: string;
  /** seconds between two points */
  step: 60 | 300 | 3600;
  /** tag names in ntopng's order; `ifid` first */
  tags: readonly string[];
  metrics: readonly string[];
  type: MetricType;
  /** what the consts list shows (timeseries_info.lua) */
  label: string;
  /** ntopng's measure_unit: bps for byte counters, pps for packets, fps for exported flows, number otherwise */
  unit: 'bps' | 'pps' | 'fps' | 'number';
  /** ntopng's is_system_schema: kept on the system interface (ts_query ifid:-1, stored as SYSTEM_TS_IFID) */
  system?: boolean;
}

/** ifid -1 as the store's u16 column keeps it (ntopng's alert tables do the same) */
export const SYSTEM_TS_IFID = 0xffff;

const iface = (name: string, metrics: string[], type: MetricType, label: string, unit: Schema['unit'], extraTag?: string): Schema => ({
  name, step: 60, tags: extraTag ? ['ifid', extraTag] : ['ifid'], metrics, type, label, unit,
});
const five = (name: string, entityTag: string, metrics: string[], label: string, extraTag?: string): Schema => ({
  name, step: 300, tags: extraTag ? ['ifid', entityTag, extraTag] : ['ifid', entityTag], metrics, type: 'counter', label, unit: 'bps',
});

// active monitoring (ts_minute.lua, ts_5min.lua, ts_hour.lua): one series
// per host and measurement, written by the measurement's granularity on the
// wall clock; gauges of milliseconds (0: unreachable)
const amStep = { min: 60, '5mins': 300, hour: 3600 } as const;
const am = (base: string, metrics: string[], label: string): Schema[] =>
  (Object.keys(amStep) as (keyof typeof amStep)[]).map((g) => ({
    name: `am_host:${base}_${g}`, step: amStep[g], tags: ['ifid', 'host', 'metric'], metrics, type: 'gauge', label, unit: 'number', system: true,
  }));
export const SCHEMAS: readonly Schema[] = [
  // interface, every minute
  iface('iface:traffic', ['bytes'], 'counter', 'Traffic', 'bps'),
  // ntopng: NIC egress/ingress; here what left the local networks (upload) and what came in (download)
  iface('iface:traffic_rxtx', ['bytes_sent', 'bytes_rcvd'], 'counter', 'Traffic Sent vs Received', 'bps'),
  iface('iface:packets', ['packets'], 'counter', 'Packets', 'pps'),
  iface('iface:hosts', ['num_hosts'], 'gauge', 'Active Hosts', 'number'),
  iface('iface:local_hosts', ['num_hosts'], 'gauge', 'Active Local Hosts', 'number'),
  iface('iface:devices', ['num_devices'], 'gauge', 'Active Devices', 'number'),
  iface('iface:flows', ['num_flows'], 'gauge', 'Active Flows', 'number'),
  iface('iface:new_flows', ['new_flows'], 'counter', 'New Flows', 'number'),
  // the active hosts' scores summed (NetworkInterface::luaScore)
  iface('iface:score', ['cli_score', 'srv_score'], 'gauge', 'Score', 'number'),
  // ntopng declares it a counter (its schema's default) though it holds the active alerted
  // flows: read back, as from ntopng's RRD (DERIVE), as their per-second change, signed
  iface('iface:alerted_flows', ['num_flows'], 'counter', 'Total Alerted Flows', 'number'),
  // the alert service's and the flow writer's counters (written when the API runs them)
  iface('iface:engaged_alerts', ['engaged_alerts'], 'gauge', 'Engaged Alerts', 'number'),
  iface('iface:dropped_alerts', ['dropped_alerts'], 'counter', 'Dropped Alerts', 'number'),
  iface('iface:dumped_flows', ['dumped_flows', 'dropped_flows'], 'counter', 'Exported Flows', 'fps'),
  iface('iface:local2remote', ['bytes'], 'counter', 'Local to Remote Traffic', 'bps'),
  iface('iface:remote2local', ['bytes'], 'counter', 'Remote to Local Traffic', 'bps'),
  iface('iface:tcp_retransmissions', ['packets'], 'counter', 'TCP Retransmissions', 'pps'),
  iface('iface:tcp_out_of_order', ['packets'], 'counter', 'TCP Out of Order', 'pps'),
  iface('iface:tcp_lost', ['packets'], 'counter', 'TCP Lost', 'pps'),
  iface('iface:tcp_keep_alive', ['packets'], 'counter', 'TCP Keep Alive', 'pps'),
  iface('iface:ndpi', ['bytes'], 'counter', 'Application Protocols', 'bps', 'protocol'),
  iface('iface:ndpi_categories', ['bytes'], 'counter', 'Application Categories', 'bps', 'category'),
  iface('iface:l4protos', ['bytes'], 'counter', 'L4 Protocols', 'bps', 'l4proto'),
  // not in ntopng (which keeps DSCP per host only): the interface's bytes per DSCP class, named as host:dscp
  iface('iface:dscp', ['bytes'], 'counter', 'DSCP Classes', 'bps', 'dscp_class'),
  // local networks (-m), every minute as ntopng (ts_minute.lua)
  { name: 'subnet:traffic', step: 60, tags: ['ifid', 'subnet'], metrics: ['bytes_ingress', 'bytes_egress', 'bytes_inner'], type: 'counter', label: 'Traffic', unit: 'bps' },
  // local hosts, every 5 minutes
  five('host:traffic', 'host', ['bytes_sent', 'bytes_rcvd'], 'Traffic'),
  five('host:ndpi', 'host', ['bytes_sent', 'bytes_rcvd'], 'Application Protocols', 'protocol'),
  five('host:ndpi_categories', 'host', ['bytes_sent', 'bytes_rcvd'], 'Application Categories', 'category'),
  five('host:dscp', 'host', ['bytes_sent', 'bytes_rcvd'], 'DSCP Classes', 'dscp_class'),
  five('host:l4protos', 'host', ['bytes_sent', 'bytes_rcvd'], 'L4 Protocols', 'l4proto'),
  { ...five('host:active_flows', 'host', ['flows_as_client', 'flows_as_server'], 'Active Flows'), type: 'gauge', unit: 'number' },
  { ...five('host:total_flows', 'host', ['flows_as_client', 'flows_as_server'], 'Total Flows'), unit: 'number' },
  // the shares of its active flows' alert scores (ts_5min.lua host:score)
  { ...five('host:score', 'host', ['score_as_cli', 'score_as_srv'], 'Score'), type: 'gauge', unit: 'number' },
  five('vlan:traffic', 'vlan', ['bytes_sent', 'bytes_rcvd'], 'Traffic'),
  // every host's traffic by its AS (the geolocation databases; AS 0: none)
  five('asn:traffic', 'asn', ['bytes_sent', 'bytes_rcvd'], 'Traffic'),
  // per flow by both ends' countries (the engine's, from the city databases)
  five('country:traffic', 'country', ['bytes_ingress', 'bytes_egress', 'bytes_inner'], 'Traffic'),
  ...am('val', ['value'], 'Active Monitoring'),
  ...am('http_stats', ['lookup_ms', 'other_ms'], 'HTTP Stats'),
  ...am('https_stats', ['lookup_ms', 'connect_ms', 'other_ms'], 'HTTPS Stats'),
  // SNMP interfaces (ts_5min.lua), written by the SNMP poller every 5 minutes of wall time
  ...([
    ['snmp_if:traffic', ['bytes_sent', 'bytes_rcvd'], 'SNMP Interface Traffic', 'bps'],
    ['snmp_if:packets', ['ucast_sent', 'nucast_sent', 'ucast_rcvd', 'nucast_rcvd'], 'SNMP Interface Packets', 'pps'],
    ['snmp_if:errors', ['packets_disc', 'packets_err'], 'SNMP Interface Errors', 'number'],
  ] as const).map(([name, metrics, label, unit]): Schema => ({
    name, step: 300, tags: ['ifid', 'device', 'if_index'], metrics, type: 'counter', label, unit, system: true,
  })),
];

const BY_NAME = new Map(SCHEMAS.map((s) => [s.name, s]));

export const schemaByName = (name: string): Schema | undefined => BY_NAME.get(name);

/** The entity of a schema name: 'iface', 'host', 'subnet' … (timeseries_info's id). */
export const schemaFamily = (name: string): string => name.slice(0, name.indexOf(':'));

/** ntopng's DSCP precedence class names (DSCPStats::precedence2Name over ds2Precedence). */
export function dscpClass(dscp: number): string {
  if (dscp === 0) return 'cs0';
  if (dscp === 1) return 'le';
  if (dscp === 46 || dscp === 40) return 'cs5';
  if (dscp === 57) return 'cs7';
  if (dscp === 48) return 'cs6';
  // AF classes and CS1-4 (even code points 8..38 with drop bits 00/01/10/11 → x0, x2, x4, x6)
  if (dscp >= 8 && dscp <= 38 && dscp % 2 === 0) return `cs${dscp >> 3}`;
  return 'unknown';
}

/**
 * iface:l4protos' tag as ntopng's series have it: L4Stats keeps tcp, udp,
 * icmp and other_ip (every other protocol; IP protocol 0 is not counted), the
 * only l4_keys whose counters exist when ts_min_dump_utils writes them.
 */
export function l4Key(proto: number): string | null {
  if (proto === 0) return null;
  return proto === 6 ? 'tcp' : proto === 17 ? 'udp' : proto === 1 ? 'icmp' : 'other_ip';
}
