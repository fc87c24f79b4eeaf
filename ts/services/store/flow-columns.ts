// The historical flows table: ntopng's `flows` columns (names and order of
// httpdocs/misc/db_schema_clickhouse.sql, readable names of
// doc/src/clickhouse/clickhouse_schema.rst), each with how its value comes
// from an expired-flow record (ts/bindings/engine.ts, native records.h).
// The flow writer fills the columns in this order; the query helper
// whitelists names from here. This file is the one place that lists them.
//
// Addresses: IPV4_* hold the IPv4 address as a UInt32 (0 when the flow is
// IPv6), as ntopng does. IPV6_* hold the canonical text of RFC 5952
// ('2001:db8::1', '::' when the flow is IPv4): ntopng's ClickHouse type IPv6
// is 16 bytes that its queries turn to text with IPv6NumToString, and
// neither ClickHouse 18.16 nor DuckDB share a 16-byte type; text reads alike
// in both and compares exactly (one canonical spelling).
//
// Columns marked absent always hold ntopng's unknown value for now (no
// probes, SNMP, process data yet): they are
// not stored, the store reads them as 0 / '' (a third of the columns: the
// insert rate is ~1.5x with them left out).
//
// Times: FIRST_SEEN/LAST_SEEN are epoch seconds (ClickHouse DateTime('UTC'),
// DuckDB UINTEGER); a backend returns them as numbers.
//
// Rows: one per flow that ended, plus one per periodic snapshot of a
// long-lived flow (every 300 s of its life, ntopng's periodic flow dump):
// each row holds what the flow carried in its window [FIRST_SEEN, LAST_SEEN]
// (a snapshot's window starts where the previous row of that flow ended), so
// SUM over the rows of a FLOW_ID is the flow's total.
import type { ColType, TableDef } from './backend.js';

export type FlowColumnKind = 'ipv4' | 'ipv6' | 'time' | 'mac' | 'port' | 'l4proto' | 'l7proto' | 'l7category' | 'bytes' | 'packets' | 'flags';

export interface FlowColumn {
  name: string;
  type: ColType;
  /** ntopng's readable name */
  label: string;
  /** how the query layer formats or filters it */
  kind?: FlowColumnKind;
  /** where the value comes from (documentation; the writer implements it) */
  from: string;
  /**
   * Always ntopng's unknown value (0 / '') for now: not stored, reads as
   * the default (ColumnDef.absent). Drop the flag when a value exists.
   */
  absent?: boolean;
}

const UNKNOWN = "ntopng's unknown value: not known to this engine yet";

export const FLOW_COLUMNS: readonly FlowColumn[] = [
  { name: 'FLOW_ID', type: 'u64', label: 'Flow ID', from: 'run id × 2^32 + the engine serial of the flow (same on every row of a flow; run ids grow across restarts and interfaces)' },
  { name: 'IP_PROTOCOL_VERSION', type: 'u8', label: 'IP Version', from: '4 or 6' },
  { name: 'FIRST_SEEN', type: 'datetime', label: 'First Seen', kind: 'time', from: "first packet (a snapshot row: the previous row's LAST_SEEN), seconds" },
  { name: 'LAST_SEEN', type: 'datetime', label: 'Last Seen', kind: 'time', from: 'last packet, seconds' },
  { name: 'VLAN_ID', type: 'u16', label: 'VLAN ID', from: 'the flow key VLAN (innermost tag), 0 = none' },
  { name: 'PACKETS', type: 'u32', label: 'Total Packets', kind: 'packets', from: 'SRC2DST_PACKETS + DST2SRC_PACKETS' },
  { name: 'TOTAL_BYTES', type: 'u64', label: 'Total Bytes', kind: 'bytes', from: 'SRC2DST_BYTES + DST2SRC_BYTES' },
  { name: 'SRC2DST_BYTES', type: 'u64', label: 'Source to Dest. Bytes', kind: 'bytes', from: 'client → server bytes (frame lengths on the wire) in the row window' },
  { name: 'DST2SRC_BYTES', type: 'u64', label: 'Dest. to Source Bytes', kind: 'bytes', from: 'server → client bytes in the row window' },
  { name: 'SRC2DST_DSCP', type: 'u8', label: 'Source to Dest. DSCP', from: 'last DSCP seen client → server' },
  { name: 'DST2SRC_DSCP', type: 'u8', label: 'Dest. to Source DSCP', from: 'last DSCP seen server → client' },
  { name: 'PROTOCOL', type: 'u8', label: 'Layer 4 Protocol', kind: 'l4proto', from: 'IP protocol number' },
  { name: 'IPV4_SRC_ADDR', type: 'u32', label: 'IPv4 Source Address', kind: 'ipv4', from: 'client address (IPv4), else 0' },
  { name: 'IPV6_SRC_ADDR', type: 'str', label: 'IPv6 Source Address', kind: 'ipv6', from: "client address (IPv6, RFC 5952 text), else '::'" },
  { name: 'IP_SRC_PORT', type: 'u16', label: 'Source Port', kind: 'port', from: 'client port (0 without ports)' },
  { name: 'IPV4_DST_ADDR', type: 'u32', label: 'IPv4 Destination Address', kind: 'ipv4', from: 'server address (IPv4), else 0' },
  { name: 'IPV6_DST_ADDR', type: 'str', label: 'IPv6 Destination Address', kind: 'ipv6', from: "server address (IPv6), else '::'" },
  { name: 'IP_DST_PORT', type: 'u16', label: 'Destination Port', kind: 'port', from: 'server port' },
  { name: 'L7_PROTO', type: 'u16', label: 'Layer 7 Application Proto', kind: 'l7proto', from: 'nDPI app id (the master when no app)' },
  { name: 'L7_PROTO_MASTER', type: 'u16', label: 'Layer 7 Master Proto', kind: 'l7proto', from: 'nDPI master protocol id (0 when none)' },
  { name: 'L7_CATEGORY', type: 'u16', label: 'Layer 7 Category', kind: 'l7category', from: 'nDPI category id' },
  { name: 'FLOW_RISK', type: 'u64', label: 'Flow Risk', from: 'nDPI risk bitmap (bit = ndpi_risk_enum id)' },
  { name: 'INFO', type: 'str', label: 'Flow Info', from: 'Flow::getFlowInfo: DNS query, HTTP host + URL, TLS/QUIC SNI, server name, SSH banner (≤ 50 bytes)' },
  { name: 'PROFILE', absent: true, type: 'str', label: 'Profile Name', from: `'' (traffic profiles are not configured): ${UNKNOWN}` },
  { name: 'NTOPNG_INSTANCE_NAME', type: 'str', label: 'Instance Name', from: 'the host name of the machine running the service' },
  { name: 'INTERFACE_ID', type: 'u16', label: 'Interface ID', from: 'ifid (position of -i)' },
  { name: 'STATUS', type: 'u8', label: 'Predominant Alert ID', from: 'the flow alert with the highest score among those its nDPI risks raise, 0 = none (services/alerts/catalogue.ts)' },
  { name: 'SRC_COUNTRY_CODE', type: 'u16', label: 'Source Country Code', from: "the client's country, ntopng's u16 of its two letters (first letter high; 0: private address or unknown)" },
  { name: 'DST_COUNTRY_CODE', type: 'u16', label: 'Destination Country Code', from: "the server's country (u16 as SRC_COUNTRY_CODE)" },
  { name: 'SRC_LABEL', type: 'str', label: 'Source Host Name', from: "the client host's learned name (DNS, DHCP, SNI …), ≤ 31 bytes, else ''" },
  { name: 'DST_LABEL', type: 'str', label: 'Destination Host Name', from: "the server host's learned name, else ''" },
  { name: 'SRC_MAC', type: 'u64', label: 'Source MAC Address', kind: 'mac', from: "client host's MAC as a 48-bit number (0 when unknown)" },
  { name: 'DST_MAC', type: 'u64', label: 'Destination MAC Address', kind: 'mac', from: "server host's MAC (0 when unknown)" },
  { name: 'COMMUNITY_ID', type: 'str', label: 'Community ID', from: 'Community ID v1 (seed 0) of the 5-tuple (ICMP: type/code)' },
  { name: 'SRC_ASN', type: 'u32', label: 'Source AS', from: "the client's AS number (0: private address or unknown)" },
  { name: 'DST_ASN', type: 'u32', label: 'Destination AS', from: "the server's AS number (0: unknown)" },
  { name: 'PROBE_IP', absent: true, type: 'u32', label: 'Probe IP', kind: 'ipv4', from: '0: packets captured here, no probe exported them' },
  { name: 'OBSERVATION_POINT_ID', absent: true, type: 'u16', label: 'Observation Point ID', from: '0: no probe observation point' },
  { name: 'SRC2DST_TCP_FLAGS', type: 'u8', label: 'Source TCP Flags', kind: 'flags', from: 'OR of TCP flags client → server' },
  { name: 'DST2SRC_TCP_FLAGS', type: 'u8', label: 'Destination TCP Flags', kind: 'flags', from: 'OR of TCP flags server → client' },
  { name: 'SCORE', type: 'u16', label: 'Score', from: "sum of the scores of the flow's risk alerts (nDPI's per-risk score, services/alerts/catalogue.ts)" },
  { name: 'CLIENT_NW_LATENCY_US', type: 'u32', label: 'Source Network Latency', from: 'TCP: half of SYN|ACK → the handshake ACK, µs (0: not measured or 5 s and more); as get/flow/active tcp.nw_latency.cli' },
  { name: 'SERVER_NW_LATENCY_US', type: 'u32', label: 'Dest. Network Latency', from: 'TCP: half of SYN → SYN|ACK, µs (0: not measured or 5 s and more); as get/flow/active tcp.nw_latency.srv' },
  { name: 'CLIENT_LOCATION', type: 'u8', label: 'Source Location', from: '0 remote, 1 local (-m networks), 2 multicast' },
  { name: 'SERVER_LOCATION', type: 'u8', label: 'Destination Location', from: '0 remote, 1 local, 2 multicast' },
  { name: 'SRC_NETWORK_ID', absent: true, type: 'u16', label: 'Source Network ID', from: `0: ${UNKNOWN}` },
  { name: 'DST_NETWORK_ID', absent: true, type: 'u16', label: 'Destination Network ID', from: `0: ${UNKNOWN}` },
  { name: 'INPUT_SNMP', absent: true, type: 'u32', label: 'Input SNMP Interface', from: '0: no SNMP/flow-export ifindex for captured packets' },
  { name: 'OUTPUT_SNMP', absent: true, type: 'u32', label: 'Output SNMP Interface', from: '0: no SNMP/flow-export ifindex for captured packets' },
  { name: 'SRC_HOST_POOL_ID', type: 'u16', label: 'Source Host Pool ID', from: "the client host's pool when the flow ended (0: the default pool)" },
  { name: 'DST_HOST_POOL_ID', type: 'u16', label: 'Dest. Host Pool ID', from: "the server host's pool (0: the default pool)" },
  { name: 'SRC_PROC_NAME', absent: true, type: 'str', label: 'Source Process Name', from: "'': process data comes from nProbe Agent only" },
  { name: 'DST_PROC_NAME', absent: true, type: 'str', label: 'Destination Process Name', from: "''" },
  { name: 'SRC_PROC_USER_NAME', absent: true, type: 'str', label: 'Source Process Username', from: "''" },
  { name: 'DST_PROC_USER_NAME', absent: true, type: 'str', label: 'Dest. Process Username', from: "''" },
  { name: 'ALERTS_MAP', type: 'str', label: 'Alerts Bitmap', from: "the flow's alert ids as a 128-bit bitmap in hex ('' = none)" },
  { name: 'SEVERITY', type: 'u8', label: 'Alert Severity', from: "ntopng's severity of the predominant alert's score (0 = none)" },
  { name: 'IS_CLI_ATTACKER', type: 'u8', label: 'Source Attacker', from: "the predominant alert's role for the client, as ntopng's checks set it (risk alerts set none): alerts/catalogue.ts alertRoles" },
  { name: 'IS_CLI_VICTIM', type: 'u8', label: 'Source Victim', from: 'as IS_CLI_ATTACKER' },
  { name: 'IS_CLI_BLACKLISTED', type: 'u8', label: 'Blacklisted Source', from: "1 when the client's address was blacklisted as the flow began (a custom category network puts it in Malware)" },
  { name: 'IS_SRV_ATTACKER', type: 'u8', label: 'Destination Attacker', from: 'as IS_CLI_ATTACKER' },
  { name: 'IS_SRV_VICTIM', type: 'u8', label: 'Destination Victim', from: 'as IS_CLI_ATTACKER' },
  { name: 'IS_SRV_BLACKLISTED', type: 'u8', label: 'Blacklisted Destination', from: "1 when the server's address was blacklisted as the flow began" },
  { name: 'SRC2DST_PACKETS', type: 'u32', label: 'Source to Dest. Packets', kind: 'packets', from: 'client → server packets in the row window' },
  { name: 'DST2SRC_PACKETS', type: 'u32', label: 'Dest. to Source Packets', kind: 'packets', from: 'server → client packets in the row window' },
  // ntopng adds it with ALTER TABLE after the others (db_schema_clickhouse.sql)
  { name: 'ALERT_CATEGORY', type: 'u8', label: 'Alert Category', from: "the predominant alert's category (ntopng's AlertCategory: 0 other, 1 security, 3 network)" },
];

/** ntopng's flows table (ORDER BY as ntopng's), partitioned by the UTC day of FIRST_SEEN. */
export const FLOWS_TABLE: TableDef = {
  name: 'flows',
  columns: FLOW_COLUMNS.map(({ name, type, absent }) => (absent ? { name, type, absent } : { name, type })),
  orderBy: ['IPV4_SRC_ADDR', 'IPV4_DST_ADDR', 'FIRST_SEEN'],
  partitionBy: 'FIRST_SEEN',
};

/** column name → position in FLOW_COLUMNS / a batch */
export const FLOW_COLUMN_INDEX: Readonly<Record<string, number>> = Object.fromEntries(FLOW_COLUMNS.map((c, i) => [c.name, i]));
