// Constants endpoints and the name ↔ id lookups the other endpoints share:
// L4 protocols (ntopng's l4_keys), nDPI applications and categories (the
// engine's registry), alert severities.
import { Engine } from '../../bindings/engine.js';
import { FLOW_RISK_ALERTS } from '../../services/alerts/catalogue.js';
import { ALERT_DEFS } from '../../services/alerts/titles.js';
import { riskCheckKey } from '../../services/checks/definitions.js';

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
 * Alert types, as ntopng's current release lists them (get/alert/type/consts:
 * alert_consts.alert_types): each alert definition's type (its file name) and
 * numeric key (alert_keys/*.lua, the alert_id of the alert endpoints, per
 * family), plus the flow risk alerts ntopng defines from nDPI's risks alone
 * (flow_risk_simple_alert_definition: type = the risk's check name).
 */
export const alertTypeConsts = () => {
  const defs = ALERT_DEFS.map((d) => ({ type: d.type, key: d.id }));
  const flowIds = new Set(ALERT_DEFS.filter((d) => d.family === 'flow').map((d) => d.id));
  const risks = FLOW_RISK_ALERTS.filter((r) => !flowIds.has(r.alertId)).map((r) => ({ type: riskCheckKey(r.risk, r.key), key: r.alertId }));
  return [...defs, ...risks].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
};
