// ⑧ ntopng's own flow checks (src/flow_checks/ in ntop/ntopng) that a
// flow's record answers, run where its row is decoded (the flow writer's
// decoder thread): the bits of FLOW_CHECK_ALERTS (alerts/catalogue.ts) a
// row raises. Which of them are enabled, and the exclusions, are applied
// by the caller (AlertColumnArrays.fill, the exclusion matcher).
//
// - remote_access (RemoteAccess.cpp): category Remote Access, VPN or File
//   Sharing, and not local-to-local.
// - web_mining_detected (WebMining.cpp): category Mining.
// - broadcast_non_udp_traffic (BroadcastNonUDPTraffic.cpp): not UDP, to a
//   broadcast server: 255.255.255.255 or 0.0.0.0 (IpAddress.cpp), or the
//   broadcast MAC. ntopng also counts the first and last address of each
//   configured local network; the decoder does not hold the networks, so
//   those are left out.
// - tcp_flow_reset (TCPFlowReset.cpp): a TCP flow that ended in a reset in
//   any of Zeek's states ntopng lists (REJ, RSTO, RSTR, RSTOS0, RSTRH) or
//   carried only resets: all are a RST seen in either direction.
// - remote_to_local_insecure_proto (RemoteToLocalInsecureFlow.cpp): remote
//   client, local server, a detected protocol, TCP established (3-way
//   handshake seen) or not TCP, and the upper protocol's breed Unsafe,
//   Potentially Dangerous or Dangerous, or category Malware or Banned Site.
// - vlan_bidirectional_traffic (VLANBidirectionalTraffic.cpp): on a VLAN of
//   the check's list (script_conf items), bytes both ways, to a server that
//   is neither local nor multicast/broadcast.
// - tcp_packets_issues (TCPPacketsIssues.cpp): retransmitted, out-of-order
//   or lost packets (both directions) as a share of the flow's packets above
//   that metric's threshold, for each metric its script_conf enables
//   ({threshold, enabled}; none by default). ntopng computes each share as
//   (u_int8_t)count * 100 / packets, the cast cutting the count to its low
//   8 bits (300 retransmissions count as 44); the share here is of the real
//   count.
// - zero_tcp_window (TCPZeroWindow.cpp): a TCP window of 0 seen either way
//   on a packet that is neither FIN nor RST (Flow::updateTcpWindow, as
//   NetworkInterface calls it).
// - tcp_no_data_exchanged (TCPNoDataExchanged.cpp, at flow end only): a TCP
//   flow whose goodput is 0 (no payload byte either way) between unicast
//   endpoints (neither multicast nor broadcast).
// - unexpected_dns_server / dhcp / ntp / smtp (UnexpectedServer.cpp and its
//   four kinds): a DNS, DHCP, NTP or SMTP(S) flow whose server is not in the
//   network configuration's list for it (dns_list …: addresses or CIDRs with
//   an optional @VLAN; an empty list allows none) and is not a broadcast
//   address. The server is the end using port 53 (DNS) or 67 (DHCP), else
//   the flow's server. ntopng alerts only once that address earned its
//   "is a DNS / DHCP / NTP / SMTP server" mark from an earlier flow (set when
//   such a flow ends; for DHCP only flows to server port 67 are checked);
//   here the flow itself must show the server at work: it sent packets (DNS,
//   DHCP, NTP), or the flow went both ways (SMTP, as ntopng marks SMTP
//   servers), so a rogue server is alerted on its first answer.
//
// - blacklisted (BlacklistedFlow.cpp): the flow's category is Malware (a
//   custom category host name, or the protocol's) and neither end is a
//   blacklisted address.
// - blacklisted_client_contact / blacklisted_server_contact
//   (BlacklistedClientContact.cpp, BlacklistedServerContact.cpp): a
//   blacklisted client (an address a custom category network puts in
//   Malware) reaching a local server from outside; a local client reaching
//   a blacklisted remote server.
// - remote_to_remote (RemoteToRemote.cpp; off by default): neither end local,
//   both unicast.
// - country_check (BlacklistedCountry.cpp; off by default, alert
//   blacklisted_country): the client's or the server's country (the hosts'
//   geolocation, as the row stores it) is in the check's list (script_conf
//   items: two-letter codes); nothing while the list is empty.
// - low_goodput (LowGoodputFlow.cpp, periodic and at the end): a TCP flow
//   whose three-way handshake was seen, with more than 3 packets and a
//   goodput ratio (100 × payload bytes / (bytes + 1), Flow::get_goodput_ratio;
//   the record carries it in whole percent) of 60 or less, unless its
//   application is one of ntopng's chatty ones (mDNS, ntop, Signal, QQ, IRC,
//   Telnet, SSH, WhatsApp and its calls and files, Telegram, KakaoTalk and
//   its voice, WeChat).
// - not_purged (NotPurged.cpp, Flow::isNotPurged; periodic and at the end):
//   the flow was still held ten idle timeouts after its last packet without
//   being purged as idle — the engine's purge missed it (an internal check;
//   the engine sets the record's TCP_NOT_PURGED).
// - device_protocol_not_allowed (DeviceProtocolNotAllowed.cpp, Flow.h
//   isCli/SrvDeviceAllowedProtocol, Ntop::getDeviceAllowedProtocolStatus):
//   the client's device type (its MAC's) may not use the flow's application
//   as client, or the server's — once it answered — as server, by the device
//   protocol policies (device-protocols.ts). DNS and DHCP are always allowed;
//   the master protocol is checked first, then the application (Unknown
//   allowed, as ntopng's comment says). A host without a MAC, or with a zero
//   or group (multicast, broadcast) MAC, is allowed: ntopng's isSpecialMac
//   also lists some vendors' OUIs, not followed here.
// - iec_unexpected_type_id, iec_invalid_transition,
//   iec_invalid_command_transition (IEC104Stats.cpp processPacket, all off
//   by default): the engine walks every APDU of an IEC 60870-5-104 flow
//   (native flow/iec104.h) and sets a tcp_state bit for each: an I-APDU
//   whose type id (below 128) is not in the first check's items (sent to
//   the engines while it is enabled: ntopng allows every id when it is
//   not); a type-id transition (previous I-APDU's → this one's) new to the
//   flow once it has lasted longer than the learning period (6 h, an engine
//   option; ntopng learns the pairs seen before); more than 20 monitor →
//   command or command → monitor transitions, or more than 5 command →
//   command (monitoring ids ≤ 40 or 70, command ids 45-64 or 100-107).
//   ntopng raises them as the APDU is seen (triggerAlertSync); here the
//   flow's next row carries them, and every row after it.
//
// ntopng runs these when the protocol is detected or the flow ends; a row
// is written when its flow ends or is snapshotted, with what it saw by then.
import { BL_CLIENT, BL_SERVER, setEnabledRisks } from '../alerts/catalogue.js';
import type { DevicePolicyTable } from './device-protocols.js';
import { inServerList, type ServerEntry } from './network-config.js';

/** nDPI categories (ndpi_typedefs.h ndpi_protocol_category_t) */
const CAT_VPN = 2, CAT_REMOTE_ACCESS = 12, CAT_FILE_SHARING = 29, CAT_MINING = 99, CAT_MALWARE = 100, CAT_BANNED_SITE = 102;
/** nDPI breeds (ndpi_protocol_breed_t) that make a protocol insecure */
export const INSECURE_BREEDS: ReadonlySet<string> = new Set(['Unsafe', 'Potentially Dangerous', 'Dangerous']);
const TH_SYN = 0x02, TH_RST = 0x04, TH_ACK = 0x10;
/** the record's location codes */
const REMOTE = 0, LOCAL = 1, MULTICAST = 2;

export const BIT_REMOTE_ACCESS = 1 << 0;
export const BIT_WEB_MINING = 1 << 1;
export const BIT_BROADCAST_NON_UDP = 1 << 2;
export const BIT_TCP_FLOW_RESET = 1 << 3;
export const BIT_REMOTE_TO_LOCAL_INSECURE = 1 << 4;
export const BIT_VLAN_BIDIRECTIONAL = 1 << 5;
export const BIT_TCP_PACKETS_ISSUES = 1 << 6;
export const BIT_ZERO_TCP_WINDOW = 1 << 7;
export const BIT_TCP_NO_DATA = 1 << 8;
export const BIT_UNEXPECTED_DNS = 1 << 9;
export const BIT_UNEXPECTED_DHCP = 1 << 10;
export const BIT_UNEXPECTED_NTP = 1 << 11;
export const BIT_UNEXPECTED_SMTP = 1 << 12;
export const BIT_BLACKLISTED = 1 << 13;
export const BIT_BLACKLISTED_CLIENT_CONTACT = 1 << 14;
export const BIT_BLACKLISTED_SERVER_CONTACT = 1 << 15;
export const BIT_REMOTE_TO_REMOTE = 1 << 16;
export const BIT_BLACKLISTED_COUNTRY = 1 << 17;
export const BIT_LOW_GOODPUT = 1 << 18;
export const BIT_DEVICE_PROTOCOL = 1 << 19;
export const BIT_IEC_UNEXPECTED_TYPE_ID = 1 << 20;
export const BIT_IEC_INVALID_TRANSITION = 1 << 21;
export const BIT_IEC_INVALID_COMMAND_TRANSITION = 1 << 22;
export const BIT_NOT_PURGED = 1 << 23;
/** LowGoodputFlow's exclusion list (nDPI ids: MDNS, NTOP, SIGNAL, WHATSAPP_CALL, QQ, IRC, TELNET, SSH, WHATSAPP, TELEGRAM, KAKAOTALK, KAKAOTALK_VOICE, WECHAT, WHATSAPP_FILES) */
const GOODPUT_EXEMPT: ReadonlySet<number> = new Set([8, 26, 39, 45, 48, 65, 77, 92, 142, 185, 193, 194, 197, 242]);
/** nDPI protocol ids (ndpi_protocol_ids.h) */
const P_SMTP = 3, P_DNS = 5, P_NTP = 9, P_DHCP = 18, P_SMTPS = 29;
/** the record's tcp_state bits (native records.h kTcpData, kTcpZeroWindow, kTcpIec*) */
export const TCP_DATA = 1, TCP_ZERO_WINDOW = 2;
export const TCP_IEC_UNEXPECTED_TYPE_ID = 4, TCP_IEC_INVALID_TRANSITION = 8, TCP_IEC_INVALID_COMMAND_TRANSITION = 16;
export const TCP_NOT_PURGED = 32;

// protocol id → 1 when its breed is insecure (module state, one per thread:
// the decoder is sent it when its sink opens)
let insecure = new Uint8Array(0);

/** What the configurable record checks read of their script_conf (sent with the enabled checks). */
export interface FlowCheckParams {
  /** vlan_bidirectional_traffic's VLAN list (items: numbers or numeric strings; others ignored) */
  vlans: readonly unknown[];
  /** tcp_packets_issues' thresholds (%), retransmissions / out of order / lost; -1: not checked */
  tcpIssues: readonly [number, number, number];
  /** the network configuration's allowed servers (dns_list, dhcp_list, ntp_list, smtp_list) */
  servers?: { dns: ServerEntry[]; dhcp: ServerEntry[]; ntp: ServerEntry[]; smtp: ServerEntry[] };
  /** country_check's list (items: two-letter codes; others ignored) */
  countries?: readonly unknown[];
  /** device protocol policies: per device type the allowed protocol ids as client and as server (null: all) */
  devices?: DevicePolicyTable;
}

const NO_SERVERS: NonNullable<FlowCheckParams['servers']> = { dns: [], dhcp: [], ntp: [], smtp: [] };
export const NO_PARAMS: FlowCheckParams = { vlans: [], tcpIssues: [-1, -1, -1], servers: NO_SERVERS };

// module state (one copy per thread): VLAN id → 1 when listed; the TCP issue thresholds;
// country code (ntopng's u16 of the two letters) → 1 when listed
const vlans = new Uint8Array(4096);
const countries = new Uint8Array(65536);
let anyCountry = false;
let tcpIssues: readonly [number, number, number] = [-1, -1, -1];
let servers = NO_SERVERS;
// device type → role (0 client, 1 server) → protocol id → 1 when allowed; null: everything allowed
let devicePolicies: ([Uint8Array | null, Uint8Array | null] | null)[] = [];

export function setFlowCheckParams(p: FlowCheckParams): void {
  vlans.fill(0);
  for (const x of p.vlans) {
    const n = typeof x === 'number' ? x : typeof x === 'string' && /^\d+$/.test(x.trim()) ? Number(x) : -1;
    if (Number.isInteger(n) && n >= 0 && n < 4096) vlans[n] = 1;
  }
  tcpIssues = p.tcpIssues;
  servers = p.servers ?? NO_SERVERS;
  devicePolicies = (p.devices ?? []).map((t) => {
    if (!t) return null;
    const bits = (ids: readonly number[] | null) => {
      if (!ids) return null;
      const a = new Uint8Array(ids.reduce((m, x) => Math.max(m, x + 1), 1));
      for (const id of ids) a[id] = 1;
      return a;
    };
    return [bits(t.client), bits(t.server)];
  });
  countries.fill(0);
  anyCountry = false;
  for (const x of p.countries ?? []) {
    const cc = typeof x === 'string' ? x.trim().toUpperCase() : '';
    if (!/^[A-Z]{2}$/.test(cc)) continue;
    countries[(cc.charCodeAt(0) << 8) | cc.charCodeAt(1)] = 1;
    anyCountry = true;
  }
}

/**
 * This thread's whole flow-check state at once: the enabled risks and own
 * checks (catalogue.ts setEnabledRisks) and the checks' parameters; what the
 * main thread, a local sink and the decoder thread each apply.
 */
export function setFlowChecks(lo: number, hi: number, own: number, params: FlowCheckParams): void {
  setEnabledRisks(lo, hi, own);
  setFlowCheckParams(params);
}

const TCP_ISSUE_KEYS = ['retransmissions', 'out_of_orders', 'packet_loss'] as const;

/** The params of a configuration: vlan_bidirectional_traffic's items, tcp_packets_issues' enabled thresholds. */
export function flowCheckParams(scriptConf: (key: string) => Record<string, unknown>, allowed = NO_SERVERS, devices?: DevicePolicyTable): FlowCheckParams {
  const items = scriptConf('vlan_bidirectional_traffic').items;
  const t = scriptConf('tcp_packets_issues');
  const threshold = (k: (typeof TCP_ISSUE_KEYS)[number]) => {
    const m = t[k] as Record<string, unknown> | undefined;
    if (!m || typeof m !== 'object') return -1;
    const on = m.enabled === true || (typeof m.enabled === 'number' && m.enabled !== 0) || m.enabled === '1';
    const v = Number(m.threshold);
    return on && Number.isFinite(v) && v >= 0 ? v : -1;
  };
  const cc = scriptConf('country_check').items;
  return {
    vlans: Array.isArray(items) ? items : [],
    tcpIssues: [threshold('retransmissions'), threshold('out_of_orders'), threshold('packet_loss')],
    servers: allowed,
    countries: Array.isArray(cc) ? cc : [],
    devices,
  };
}

/** The protocol ids whose breed is insecure (from the engine's nDPI registry). */
export function setInsecureProtocols(ids: readonly number[]): void {
  const a = new Uint8Array(ids.reduce((m, x) => Math.max(m, x + 1), 0));
  for (const id of ids) a[id] = 1;
  insecure = a;
}

/** What the checks read of a row (the record's fields, as decoded). */
export interface RecordFacts {
  proto: number;
  /** upper protocol: the app, else the master (0 unknown) */
  l7: number;
  category: number;
  cliLocation: number;
  srvLocation: number;
  cliFlags: number;
  srvFlags: number;
  /** server address is 255.255.255.255 / 0.0.0.0, or its MAC the broadcast MAC */
  srvBroadcast: boolean;
  vlan: number;
  /** bytes seen both ways */
  bidirectional: boolean;
  /** the flow's packets, and of them retransmitted, out of order, lost (both directions, totals) */
  packets: number;
  retr: number;
  ooo: number;
  lost: number;
  /** the record's tcp_state (TCP_DATA, TCP_ZERO_WINDOW, TCP_IEC_*) */
  tcpState: number;
  /** the record's goodput ratio, whole percent (TCP payload bytes of all bytes) */
  goodputPct: number;
  /** the record's blacklisted bits: 1 the client's address, 2 the server's (as the flow began) */
  blacklisted: number;
  /** the flow ended (not a periodic snapshot) */
  end: boolean;
  /** the client address is a broadcast one (255.255.255.255 / 0.0.0.0) */
  cliBroadcast: boolean;
  /** lower protocol: the master, else the app (ndpi_get_lower_proto) */
  lower: number;
  cliPort: number;
  srvPort: number;
  /** the flow's packets each way (totals) */
  cliPkts: number;
  srvPkts: number;
  /** the hosts' countries (ntopng's u16 of the two letters; 0 none: private or unknown) */
  cliCountry: number;
  srvCountry: number;
  /** the record's protocols as nDPI gives them (master 0 when none) */
  master: number;
  app: number;
  /** the record's devtypes byte: the client's MAC's DeviceType << 4 | the server's */
  devtypes: number;
  /** the host has a MAC that is neither zero nor a group (multicast / broadcast) address */
  cliMacOk: boolean;
  srvMacOk: boolean;
  /** the record's bytes, where its client and server addresses (16 bytes each) are */
  buf: Uint8Array;
  cliIpAt: number;
  srvIpAt: number;
}

/** count as a whole percentage of packets, above a threshold (-1: not checked) */
const over = (count: number, packets: number, threshold: number) => threshold >= 0 && Math.floor((count * 100) / packets) > threshold;

/** The FLOW_CHECK_ALERTS bits this row raises. */
export function recordCheckBits(f: RecordFacts): number {
  let bits = 0;
  const c = f.category;
  if ((c === CAT_REMOTE_ACCESS || c === CAT_VPN || c === CAT_FILE_SHARING) && !(f.cliLocation === LOCAL && f.srvLocation === LOCAL)) bits |= BIT_REMOTE_ACCESS;
  if (c === CAT_MINING) bits |= BIT_WEB_MINING;
  if (f.proto !== 17 && f.srvBroadcast) bits |= BIT_BROADCAST_NON_UDP;
  const tcp = f.proto === 6;
  if (tcp && (f.cliFlags | f.srvFlags) & TH_RST) bits |= BIT_TCP_FLOW_RESET;
  if (f.cliLocation === REMOTE && f.srvLocation === LOCAL && f.l7 !== 0) {
    const established = !tcp || handshake(f);
    if (established && (insecure[f.l7] === 1 || c === CAT_MALWARE || c === CAT_BANNED_SITE)) bits |= BIT_REMOTE_TO_LOCAL_INSECURE;
  }
  if (vlans[f.vlan] === 1 && f.bidirectional && f.srvLocation === REMOTE && !f.srvBroadcast) bits |= BIT_VLAN_BIDIRECTIONAL;
  if (tcp && f.tcpState & TCP_ZERO_WINDOW) bits |= BIT_ZERO_TCP_WINDOW;
  const unicast = f.cliLocation !== MULTICAST && f.srvLocation !== MULTICAST && !f.srvBroadcast && !f.cliBroadcast;
  if (tcp && f.end && unicast && !(f.tcpState & TCP_DATA)) bits |= BIT_TCP_NO_DATA;
  if (tcp && handshake(f) && f.packets > 3 && f.goodputPct <= 60 && !GOODPUT_EXEMPT.has(f.l7)) bits |= BIT_LOW_GOODPUT;
  bits |= unexpectedServer(f);
  const bl = f.blacklisted;
  if (c === CAT_MALWARE && !(bl & (BL_CLIENT | BL_SERVER))) bits |= BIT_BLACKLISTED;
  if (bl & BL_CLIENT && f.cliLocation === REMOTE && f.srvLocation === LOCAL) bits |= BIT_BLACKLISTED_CLIENT_CONTACT;
  if (bl & BL_SERVER && f.cliLocation === LOCAL && f.srvLocation === REMOTE) bits |= BIT_BLACKLISTED_SERVER_CONTACT;
  if (f.cliLocation === REMOTE && f.srvLocation === REMOTE && !f.cliBroadcast && !f.srvBroadcast) bits |= BIT_REMOTE_TO_REMOTE;
  if (countryHits(f)) bits |= BIT_BLACKLISTED_COUNTRY;
  if (deviceProtocolPeer(f)) bits |= BIT_DEVICE_PROTOCOL;
  if (f.tcpState & TCP_IEC_UNEXPECTED_TYPE_ID) bits |= BIT_IEC_UNEXPECTED_TYPE_ID;
  if (f.tcpState & TCP_IEC_INVALID_TRANSITION) bits |= BIT_IEC_INVALID_TRANSITION;
  if (f.tcpState & TCP_IEC_INVALID_COMMAND_TRANSITION) bits |= BIT_IEC_INVALID_COMMAND_TRANSITION;
  if (f.tcpState & TCP_NOT_PURGED) bits |= BIT_NOT_PURGED;
  if (f.packets > 0 && (over(f.retr, f.packets, tcpIssues[0]) || over(f.ooo, f.packets, tcpIssues[1]) || over(f.lost, f.packets, tcpIssues[2]))) bits |= BIT_TCP_PACKETS_ISSUES;
  return bits;
}

/** the three-way handshake seen: SYN and ACK from the client, SYN+ACK from the server */
const handshake = (f: RecordFacts) => (f.cliFlags & (TH_SYN | TH_ACK)) === (TH_SYN | TH_ACK) && (f.srvFlags & (TH_SYN | TH_ACK)) === (TH_SYN | TH_ACK);

/** nDPI's DNS and DHCP: network-critical, always allowed (Utils::isCriticalNetworkProtocol) */
const critical = (id: number) => id === P_DNS || id === P_DHCP;

/** Whether a device type may use a protocol in a role (Ntop::getDeviceAllowedProtocolStatus, allowed or not). */
function deviceAllows(devtype: number, role: 0 | 1, master: number, app: number): boolean {
  const allowed = devicePolicies[devtype]?.[role];
  if (!allowed) return true;
  if (critical(master) || critical(app)) return true;
  if (master !== 0 && allowed[master] !== 1) return false;
  return app === 0 || allowed[app] === 1;
}

/**
 * The end whose device may not use the flow's protocol: BL_CLIENT (the
 * client, checked first), BL_SERVER (the server, once it answered), 0 none.
 */
export function deviceProtocolPeer(f: Pick<RecordFacts, 'master' | 'app' | 'devtypes' | 'cliMacOk' | 'srvMacOk' | 'srvPkts'>): number {
  if (!devicePolicies.length) return 0;
  const master = f.master === f.app ? 0 : f.master;
  if (f.cliMacOk && !deviceAllows(f.devtypes >> 4, 0, master, f.app)) return BL_CLIENT;
  if (f.srvMacOk && f.srvPkts > 0 && !deviceAllows(f.devtypes & 15, 1, master, f.app)) return BL_SERVER;
  return 0;
}

/** The ends whose country country_check lists: BL_CLIENT, BL_SERVER (as the blacklisted bits). */
export function countryHits(f: Pick<RecordFacts, 'cliCountry' | 'srvCountry'>): number {
  if (!anyCountry) return 0;
  return (f.cliCountry && countries[f.cliCountry] ? BL_CLIENT : 0) | (f.srvCountry && countries[f.srvCountry] ? BL_SERVER : 0);
}

/** The unexpected-server bit of a DNS, DHCP, NTP or SMTP(S) flow whose working server is not allowed. */
function unexpectedServer(f: RecordFacts): number {
  let bit: number, list: ServerEntry[], cliIsServer = false, working: boolean;
  switch (f.lower) {
    case P_DNS:
    case P_DHCP: {
      const port = f.lower === P_DNS ? 53 : 67;
      if (f.cliPort !== port && f.srvPort !== port) return 0;
      cliIsServer = f.cliPort === port;
      working = cliIsServer ? f.cliPkts > 0 : f.srvPkts > 0;
      [bit, list] = f.lower === P_DNS ? [BIT_UNEXPECTED_DNS, servers.dns] : [BIT_UNEXPECTED_DHCP, servers.dhcp];
      break;
    }
    case P_NTP:
      [bit, list, working] = [BIT_UNEXPECTED_NTP, servers.ntp, f.srvPkts > 0];
      break;
    case P_SMTP:
    case P_SMTPS:
      [bit, list, working] = [BIT_UNEXPECTED_SMTP, servers.smtp, f.cliPkts > 0 && f.srvPkts > 0];
      break;
    default:
      return 0;
  }
  if (!working || (cliIsServer ? f.cliBroadcast : f.srvBroadcast)) return 0;
  return inServerList(list, f.buf, cliIsServer ? f.cliIpAt : f.srvIpAt, f.vlan) ? 0 : bit;
}
