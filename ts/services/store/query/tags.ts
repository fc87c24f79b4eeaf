// ntopng's names for flow columns in its historical explorer ("tags": the
// filter parameters of historical_db_search.lua and the record fields it
// answers), as its historical_flow_utils.lua lists them; columns_info.lua
// answers each column with its tag. Columns ntopng gives no tag have none.
import type { ColType } from '../backend.js';

export const COLUMN_TAGS: Readonly<Record<string, string>> = {
  FLOW_ID: 'rowid',
  FIRST_SEEN: 'first_seen',
  LAST_SEEN: 'last_seen',
  VLAN_ID: 'vlan_id',
  PACKETS: 'packets',
  TOTAL_BYTES: 'bytes',
  SRC2DST_DSCP: 'src2dst_dscp',
  DST2SRC_DSCP: 'dst2src_dscp',
  PROTOCOL: 'l4proto',
  IPV4_SRC_ADDR: 'cli_ip',
  IPV6_SRC_ADDR: 'cli_ip',
  IP_SRC_PORT: 'cli_port',
  IPV4_DST_ADDR: 'srv_ip',
  IPV6_DST_ADDR: 'srv_ip',
  IP_DST_PORT: 'srv_port',
  L7_PROTO: 'l7proto',
  L7_PROTO_MASTER: 'l7proto_master',
  L7_CATEGORY: 'l7cat',
  FLOW_RISK: 'flow_risk',
  INFO: 'info',
  INTERFACE_ID: 'interface_id',
  STATUS: 'alert_id',
  SRC_COUNTRY_CODE: 'cli_country',
  DST_COUNTRY_CODE: 'srv_country',
  SRC_LABEL: 'cli_name',
  DST_LABEL: 'srv_name',
  SRC_MAC: 'cli_mac',
  DST_MAC: 'srv_mac',
  COMMUNITY_ID: 'community_id',
  SRC_ASN: 'cli_asn',
  DST_ASN: 'srv_asn',
  PROBE_IP: 'probe_ip',
  OBSERVATION_POINT_ID: 'observation_point_id',
  SRC2DST_TCP_FLAGS: 'src2dst_tcp_flags',
  DST2SRC_TCP_FLAGS: 'dst2src_tcp_flags',
  SCORE: 'score',
  CLIENT_NW_LATENCY_US: 'cli_nw_latency',
  SERVER_NW_LATENCY_US: 'srv_nw_latency',
  CLIENT_LOCATION: 'cli_location',
  SERVER_LOCATION: 'srv_location',
  SRC_NETWORK_ID: 'cli_network',
  DST_NETWORK_ID: 'srv_network',
  INPUT_SNMP: 'input_snmp',
  OUTPUT_SNMP: 'output_snmp',
  SRC_HOST_POOL_ID: 'cli_host_pool_id',
  DST_HOST_POOL_ID: 'srv_host_pool_id',
  ALERTS_MAP: 'alerts_map',
  SEVERITY: 'severity',
  ALERT_CATEGORY: 'alert_category',
  IS_CLI_ATTACKER: 'is_cli_attacker',
  IS_CLI_VICTIM: 'is_cli_victim',
  IS_CLI_BLACKLISTED: 'is_cli_blacklisted',
  IS_SRV_ATTACKER: 'is_srv_attacker',
  IS_SRV_VICTIM: 'is_srv_victim',
  IS_SRV_BLACKLISTED: 'is_srv_blacklisted',
  SRC_PROC_NAME: 'cli_proc_name',
  DST_PROC_NAME: 'srv_proc_name',
  SRC_PROC_USER_NAME: 'cli_user_name',
  DST_PROC_USER_NAME: 'srv_user_name',
};

/** ntopng's db_type / db_raw_type of a column (its ClickHouse types, spelled as its Lua table does). */
export function ntopngTypes(name: string, type: ColType): { db_type: string; db_raw_type: string } {
  if (/^IPV6_/.test(name)) return { db_type: 'IPv6', db_raw_type: 'IPv6' };
  switch (type) {
    case 'datetime':
      return { db_type: 'DateTime', db_raw_type: 'DateTime' };
    case 'str':
      return { db_type: 'String', db_raw_type: 'String' };
    case 'u8':
      return { db_type: 'Number', db_raw_type: 'Uint8' };
    case 'u16':
      return { db_type: 'Number', db_raw_type: 'Uint16' };
    case 'u32':
      return { db_type: 'Number', db_raw_type: 'Uint32' };
    case 'u64':
      return { db_type: 'Number', db_raw_type: 'Uint64' };
    case 'i64':
      return { db_type: 'Number', db_raw_type: 'Int64' };
    case 'f64':
      return { db_type: 'Number', db_raw_type: 'Float64' };
  }
}
