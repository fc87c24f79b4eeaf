// Constants endpoints and the name ↔ id lookups the other endpoints share:
// L4 protocols (ntopng's l4_keys), nDPI applications and categories (the
// engine's registry), alert severities.
import { Engine } from '../../bindings/engine.js';
import { FLOW_RISK_ALERTS } from '../../services/alerts/catalogue.js';
import { ALERT_DEFS } from '../../services/alerts/titles.js';
import { riskCheckKey } from '../../services/checks/definitions.js';

/**
 * ntopng's l4_keys (l4_protocol_list.lua, current release): display name,
 * lower-case key, IP protocol number — in its order, IGMP listed twice as
 * there.
 */
export const L4_PROTOCOLS: [string, string, number][] = [
  ['IP', 'ip', 0], ['ICMP', 'icmp', 1], ['IGMP', 'igmp', 2], ['TCP', 'tcp', 6], ['UDP', 'udp', 17], ['IPv6', 'ipv6', 41],
  ['RSVP', 'rsvp', 46], ['GRE', 'gre', 47], ['ESP', 'esp', 50], ['IPv6-ICMP', 'ipv6icmp', 58], ['EIGRP', 'eigrp', 88], ['OSPF', 'ospf', 89],
  ['PIM', 'pim', 103], ['VRRP', 'vrrp', 112], ['L2TP', 'l2tp', 115], ['HIP', 'hip', 139], ['SCTP', 'sctp', 132], ['ICMPv6', 'icmpv6', 58],
  ['IGMP', 'igmp', 2], ['Other IP', 'other_ip', -1],
];

// Names for flows: ntopng's Utils::l4proto2name, exactly (any other protocol: its number).
const L4_FLOW_NAMES: Record<number, string> = {
  0: 'IP', 1: 'ICMP', 2: 'IGMP', 6: 'TCP', 17: 'UDP', 41: 'IPv6', 46: 'RSVP', 47: 'GRE', 50: 'ESP', 51: 'AH',
  58: 'IPv6-ICMP', 88: 'EIGRP', 89: 'OSPF', 103: 'PIM', 112: 'VRRP', 139: 'HIP',
};

export const l4Name = (proto: number) => L4_FLOW_NAMES[proto] ?? String(proto);

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

/** ntopng's English labels of the nDPI categories that differ from nDPI's names (locales/en.lua ndpi_categories) */
const CATEGORY_LABELS: Record<string, string> = { Allowed_Site: 'Allowed Site', Banned_Site: 'Banned Site', Site_Unavailable: 'Site Unavailable' };

/** ntopng's getCategoryLabel: the operator's alias, else ntopng's label, else the name with a capital first letter. */
export function categoryLabel(id: number, name: string, alias?: string): string {
  return alias ?? CATEGORY_LABELS[name] ?? name.charAt(0).toUpperCase() + name.slice(1);
}

/** get/l7/category/consts (ntopng's current script): each category's label, id and its applications (case-insensitive order). */
export const l7CategoryConsts = (aliasOf: (id: number) => string | undefined = () => undefined) => {
  const reg = registry();
  return reg.categories
    .map((c) => ({
      name: categoryLabel(c.id, c.name, aliasOf(c.id)),
      cat_id: c.id,
      app_list: reg.protocols
        .filter((p) => p.category === c.id)
        .map((p) => ({ name: p.name, id: p.id }))
        .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase())),
    }))
    .sort((a, b) => a.cat_id - b.cat_id);
};


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
