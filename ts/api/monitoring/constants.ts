// Constants endpoints and the name ↔ id lookups the other endpoints share:
// L4 protocols (ntopng's l4_keys), nDPI applications and categories (the
// engine's registry), alert severities.
import { Engine } from '../../bindings/engine.js';

/** ntopng's l4_keys: display name, lower-case key, IP protocol number. */
export const L4_PROTOCOLS: [string, string, number][] = [
  ['IP', 'ip', 0], ['ICMP', 'icmp', 1], ['IGMP', 'igmp', 2], ['TCP', 'tcp', 6], ['UDP', 'udp', 17], ['IPv6', 'ipv6', 41],
  ['RSVP', 'rsvp', 46], ['GRE', 'gre', 47], ['ESP', 'esp', 50], ['IPv6-ICMP', 'ipv6icmp', 58], ['OSPF', 'ospf', 89],
  ['PIM', 'pim', 103], ['VRRP', 'vrrp', 112], ['HIP', 'hip', 139], ['ICMPv6', 'icmpv6', 58], ['Other IP', 'other_ip', -1],
];

// Names for flows: ntopng's Utils::l4proto2name spellings.
const L4_FLOW_NAMES: Record<number, string> = {
  0: 'IP', 1: 'ICMP', 2: 'IGMP', 6: 'TCP', 17: 'UDP', 41: 'IPv6', 46: 'RSVP', 47: 'GRE', 50: 'ESP', 51: 'AH',
  58: 'ICMPv6', 88: 'EIGRP', 89: 'OSPF', 103: 'PIM', 112: 'VRRP', 115: 'L2TP', 132: 'SCTP', 139: 'HIP',
};

export const l4Name = (proto: number) => L4_FLOW_NAMES[proto] ?? 'Other IP';

/** An L4 protocol given by name (any spelling above) or number. */
export function l4Id(v: string): number | undefined {
  const s = v.trim();
  if (/^\d{1,3}$/.test(s) && +s <= 255) return +s;
  const lower = s.toLowerCase();
  const hit = L4_PROTOCOLS.find(([name, key]) => name.toLowerCase() === lower || key === lower);
  return hit && hit[2] >= 0 ? hit[2] : undefined;
}

export const l4Consts = () => L4_PROTOCOLS.map(([name, other, id]) => ({ name, other, id }));

const registry = () => Engine.info().dpi;

export const l7ApplicationConsts = () =>
  registry()
    .protocols.map((p) => ({ name: p.name, appl_id: p.id, cat_id: p.category }))
    .sort((a, b) => a.name.localeCompare(b.name));

export const l7CategoryConsts = () =>
  registry()
    .categories.map((c) => ({ name: c.name, cat_id: c.id }))
    .sort((a, b) => a.cat_id - b.cat_id);


/** Alert severities as the spec numbers them. */
export const alertSeverityConsts = () => [
  { severity: 'info', id: 0 },
  { severity: 'warning', id: 1 },
  { severity: 'error', id: 2 },
];

/**
 * Alert types with their numeric keys, as ntopng's alert_keys numbers them
 * (the same era as the 0/1/2 severities above): clients decode the
 * `alert_type` filters and fields of the alert endpoints with this table.
 */
const ALERT_TYPES = [
  'blacklisted_country', 'broadcast_domain_too_large', 'device_connection', 'device_disconnection',
  'device_protocol_not_allowed', 'dropped_alerts', 'external', 'flow_blacklisted', 'flow_blocked', 'flow_misbehaviour',
  'flows_flood', 'ghost_network', 'host_pool_connection', 'host_pool_disconnection', 'influxdb_dropped_points',
  'influxdb_error', 'influxdb_export_failure', 'internals', 'ip_outsite_dhcp_range', 'list_download_failed',
  'login_failed', 'mac_ip_association_change', 'malicious_signature', 'misbehaving_flows_ratio', 'misconfigured_app',
  'new_device', 'nfq_flushed', 'none', 'periodic_activity_not_executed', 'am_threshold_cross',
  'port_duplexstatus_change', 'port_errors', 'port_load_threshold_exceeded', 'port_mac_changed', 'port_status_change',
  'potentially_dangerous_protocol', 'process_notification', 'quota_exceeded', 'remote_to_remote', 'request_reply_ratio',
  'slow_periodic_activity', 'slow_purge', 'snmp_device_reset', 'snmp_topology_changed', 'suspicious_activity',
  'tcp_syn_flood', 'tcp_syn_scan', 'test_failed', 'threshold_cross', 'too_many_drops', 'udp_unidirectional',
  'unresponsive_device', 'user_activity', 'user_script_calls_drops', 'web_mining',
];

export const alertTypeConsts = () => ALERT_TYPES.map((t, i) => ({ type: `alert_${t}`, key: i + 1 }));
