// ⑧ Gateway ('edge') mode, nEdge's model: flowgate on a Linux box between
// LANs and WANs (--edge-lan / --edge-wan name their interfaces). Linux does
// the forwarding; this service configures it and reads it back:
// - VLAN subinterfaces of a LAN (`ip link add … type vlan`), kept and
//   recreated at start; each is a LAN interface of its own;
// - a WAN's state (`ip link set up|down`), kept and applied at start;
// - its gateways' health: each WAN's default route gateway pinged every 5 s
//   (nEdge's pinger callback), with the round trip;
// - the inter-LAN policy — a default accept / deny and rules by CIDR or
//   interface, one way or both — enforced by nftables: the whole table
//   `inet flowgate_edge` replaced in one `nft -f` transaction at every
//   change, so a packet never meets half a policy. Linux already decides
//   forwarding there; doing it in the engine would put the policy in the
//   capture path, which a gateway routing in the kernel does not take;
// - the LANs' DHCP server (dnsmasq, dhcp.ts) and its active leases;
// - forwarders (nEdge's repeaters): mDNS or a custom multicast group
//   repeated between trusted and restricted interfaces by the engine
//   (native/src/edge/repeater.*: real frames, their sender kept).
// Settings live in LMDB (db 'edge').
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

import type { Database } from 'lmdb';

import { ApiError, RC } from '../../api/rc.js';
import { openRepeater, openVlanBridge, type NativeRepeater, type NativeVlanBridge } from '../../bindings/engine.js';
import { ipv4ToNumber } from '../cidr.js';
import type { ConfigStore } from '../config-store.js';
import { DhcpServer, type Lease } from './dhcp.js';

export type Policy = 'accept' | 'deny';

export interface Endpoint {
  type: 'cidr' | 'interface';
  value: string;
}

export interface Rule {
  rule_id: number;
  source: Endpoint;
  destination: Endpoint;
  bidirectional: boolean;
  action: Policy;
}

export interface Forwarder {
  repeater_id: number;
  /** mdns (224.0.0.251, UDP 5353) or custom */
  type: 'mdns' | 'custom';
  /** the group (custom: an IPv4 multicast address, or '*' for any) */
  ip: string;
  /** UDP port (0: any) */
  port: number;
  /** trusted interfaces, comma-separated, and their labels */
  interfaces: string;
  details: string;
  restricted_interfaces: string;
  restricted_details: string;
}

interface Settings {
  forwarders: Forwarder[];
  default_policy: Policy;
  rules: Rule[];
  /** VLAN subinterfaces added: parent and id */
  vlans: { parent: string; vlan_id: number }[];
  /** WAN name → enabled */
  wan_enabled: Record<string, boolean>;
}

export interface GatewayStatus {
  interface: string;
  /** the default route's gateway through this WAN ('' when it has none) */
  gateway: string;
  status: 'up' | 'down' | 'unknown';
  /** ms of the last answered ping (0 when none) */
  rtt: number;
  /** epoch s of the last check (0: never) */
  last_check: number;
}

/** Runs a command (argument array, no shell): resolves with stdout, rejects with its stderr. */
export type Runner = (cmd: string, args: string[], input?: string) => Promise<string>;

export const run: Runner = (cmd, args, input) =>
  new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { timeout: 10_000, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${(stderr || err.message).trim().split('\n')[0]}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });

const IFNAME = /^[A-Za-z0-9_.:-]{1,15}$/;
const DEFAULTS: Settings = { default_policy: 'accept', rules: [], vlans: [], wan_enabled: {}, forwarders: [] };
const PING_SEC = 5;
/** how long the flows drop_host_flows names stay dropped */
const DROP_SEC = 300;

/** nft set elements of the flows dropped (`a . b . proto . sport . dport timeout Ns`) */
interface Drops {
  v4: string[];
  v6: string[];
}

export class Edge {
  private readonly db: Database<Settings, string>;
  private settings: Settings;
  private readonly gw = new Map<string, GatewayStatus>();
  private timer: NodeJS.Timeout | null = null;
  /** user-space VLANs (a kernel without 8021q), per parent */
  private readonly bridges = new Map<string, NativeVlanBridge>();
  private readonly dhcp: DhcpServer | null;
  private readonly repeaters = new Map<number, NativeRepeater>();
  /** flows dropped by drop_host_flows: nft set element → epoch ms it lapses */
  private readonly dropped = new Map<string, number>();

  constructor(
    store: ConfigStore,
    readonly lan: readonly string[],
    readonly wan: readonly string[],
    private readonly o: { run?: Runner; log?: (l: string) => void; dhcp?: boolean } = {},
  ) {
    for (const i of [...lan, ...wan]) if (!IFNAME.test(i)) throw new Error(`edge: '${i}' is not an interface name`);
    this.db = store.db<Settings>('edge');
    this.dhcp = o.dhcp !== false && DhcpServer.available() ? new DhcpServer(join(store.dataDir, 'edge'), { log: o.log }) : null;
    const s = this.db.get('settings');
    this.settings = { ...DEFAULTS, ...(s ?? {}) };
  }

  private get exec(): Runner {
    return this.o.run ?? run;
  }

  /** Applies what is kept: forwarding on, VLANs, WAN states, the policy; then pings the gateways every 5 s. */
  async start(): Promise<this> {
    // a gateway forwards (nEdge turns it on too)
    for (const k of ['/proc/sys/net/ipv4/ip_forward', '/proc/sys/net/ipv6/conf/all/forwarding']) {
      try {
        writeFileSync(k, '1\n');
      } catch (e) {
        this.o.log?.(`flowgate: edge: cannot turn forwarding on (${k}): ${(e as Error).message}`);
      }
    }
    for (const v of this.settings.vlans) {
      try {
        await this.createVlan(v.parent, v.vlan_id);
      } catch (e) {
        this.o.log?.(`flowgate: edge: VLAN ${v.parent}.${v.vlan_id}: ${(e as Error).message}`);
      }
    }
    for (const [w, on] of Object.entries(this.settings.wan_enabled)) {
      if (this.wan.includes(w)) await this.exec('ip', ['link', 'set', w, on ? 'up' : 'down']).catch((e) => this.o.log?.(`flowgate: edge: ${(e as Error).message}`));
    }
    await this.applyPolicy().catch((e) => this.o.log?.(`flowgate: edge: the inter-LAN policy could not be applied: ${(e as Error).message}`));
    this.dhcp?.start(this.lanInterfaces());
    for (const f of this.settings.forwarders) {
      try {
        this.runForwarder(f);
      } catch (e) {
        this.o.log?.(`flowgate: edge: forwarder ${f.repeater_id}: ${(e as Error).message}`);
      }
    }
    const tick = () => {
      this.timer = setTimeout(() => void this.pingGateways().finally(tick), PING_SEC * 1000);
      this.timer.unref();
    };
    tick();
    return this;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // user-space VLANs go with the process (their TAPs with them)
    for (const b of this.bridges.values()) b.close();
    this.bridges.clear();
    this.dhcp?.stop();
    for (const r of this.repeaters.values()) r.close();
    this.repeaters.clear();
  }

  // ── forwarders ────────────────────────────────────────────────────────

  forwarders(): (Forwarder & { repeated: number })[] {
    return [...this.settings.forwarders].sort((a, b) => a.repeater_id - b.repeater_id).map((f) => ({ ...f, repeated: this.repeaters.get(f.repeater_id)?.repeated() ?? 0 }));
  }

  /** add/edge/forwarder: rsp {repeater_id}. -5 a bad value, -6 the repeater could not start. */
  async addForwarder(p: Record<string, string | undefined>): Promise<number> {
    const f = this.checkForwarder(p, Math.max(0, ...this.settings.forwarders.map((x) => x.repeater_id)) + 1);
    this.startForwarder(f);
    await this.save({ ...this.settings, forwarders: [...this.settings.forwarders, f] });
    return f.repeater_id;
  }

  /** edit/edge/forwarder: repeater_id (new_repeater_id renames it) with the add fields. */
  async editForwarder(p: Record<string, string | undefined>): Promise<number> {
    const id = ruleId(p.repeater_id, 'repeater_id');
    if (!this.settings.forwarders.some((f) => f.repeater_id === id)) throw new ApiError(RC.INVALID_ARGUMENTS, `no forwarder ${id}`);
    const newId = p.new_repeater_id?.trim() ? ruleId(p.new_repeater_id, 'new_repeater_id') : id;
    if (newId !== id && this.settings.forwarders.some((f) => f.repeater_id === newId)) throw new ApiError(RC.INVALID_ARGUMENTS, `forwarder ${newId} exists`);
    const f = this.checkForwarder(p, newId);
    this.repeaters.get(id)?.close();
    this.repeaters.delete(id);
    this.startForwarder(f);
    await this.save({ ...this.settings, forwarders: [...this.settings.forwarders.filter((x) => x.repeater_id !== id), f] });
    return newId;
  }

  async deleteForwarder(idText: string | undefined): Promise<void> {
    const id = ruleId(idText, 'repeater_id');
    if (!this.settings.forwarders.some((f) => f.repeater_id === id)) throw new ApiError(RC.INVALID_ARGUMENTS, `no forwarder ${id}`);
    this.repeaters.get(id)?.close();
    this.repeaters.delete(id);
    await this.save({ ...this.settings, forwarders: this.settings.forwarders.filter((f) => f.repeater_id !== id) });
  }

  private startForwarder(f: Forwarder): void {
    try {
      this.runForwarder(f);
    } catch (e) {
      throw new ApiError(RC.INTERNAL_ERROR, (e as Error).message);
    }
  }

  private runForwarder(f: Forwarder): void {
    const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
    const group = f.ip === '*' ? 0 : ipv4ToNumber(f.ip);
    this.repeaters.set(f.repeater_id, openRepeater({ group, port: f.port, trusted: list(f.interfaces), restricted: list(f.restricted_interfaces) }));
  }

  private checkForwarder(p: Record<string, string | undefined>, id: number): Forwarder {
    const type = p.repeater_type?.trim();
    if (type !== 'mdns' && type !== 'custom') throw new ApiError(RC.INVALID_ARGUMENTS, "repeater_type must be 'mdns' or 'custom'");
    let ip = '224.0.0.251', port = 5353;
    if (type === 'custom') {
      ip = p.ip?.trim() ?? '';
      const first = Number(ip.split('.')[0]);
      if (ip !== '*' && !(isIP(ip) === 4 && first >= 224 && first <= 239) && ip !== '255.255.255.255') throw new ApiError(RC.INVALID_ARGUMENTS, "ip must be an IPv4 multicast address, 255.255.255.255 or '*'");
      const pt = p.port?.trim() ?? '';
      if (pt && (!/^\d{1,5}$/.test(pt) || Number(pt) > 65535)) throw new ApiError(RC.INVALID_ARGUMENTS, 'port must be 0-65535');
      port = pt ? Number(pt) : 0;
    }
    const names = (v: string | undefined) => (v ?? '').split(',').map((x) => x.trim()).filter(Boolean);
    const trusted = names(p.interfaces), restricted = names(p.restricted_interfaces);
    const known = [...this.lanInterfaces(), ...this.wan];
    for (const i of [...trusted, ...restricted]) if (!known.includes(i)) throw new ApiError(RC.INVALID_ARGUMENTS, `'${i.slice(0, 16)}' is not one of the gateway's interfaces`);
    if (new Set([...trusted, ...restricted]).size !== trusted.length + restricted.length) throw new ApiError(RC.INVALID_ARGUMENTS, 'an interface is listed twice');
    if (!trusted.length || trusted.length + restricted.length < 2) throw new ApiError(RC.INVALID_ARGUMENTS, 'a forwarder needs a trusted interface and another one');
    const text = (v: string | undefined) => (v ?? '').slice(0, 512);
    return {
      repeater_id: id, type, ip, port,
      interfaces: trusted.join(','), details: text(p.interface_details) || trusted.join(','),
      restricted_interfaces: restricted.join(','), restricted_details: text(p.restricted_interface_details) || restricted.join(','),
    };
  }

  /** get/edge/dhcp_active_leases: dnsmasq's leases (-6 without a DHCP server) */
  leases(): Lease[] {
    if (!this.dhcp) throw new ApiError(RC.INTERNAL_ERROR, 'no DHCP server: dnsmasq is not installed');
    return this.dhcp.leases();
  }

  private async save(next: Settings): Promise<void> {
    await this.db.put('settings', next);
    this.settings = next;
  }

  /** LAN interfaces: the configured ones and the VLANs added to them */
  lanInterfaces(s: Pick<Settings, 'vlans'> = this.settings): string[] {
    return [...this.lan, ...s.vlans.map((v) => vlanName(v.parent, v.vlan_id))];
  }

  // ── interfaces ────────────────────────────────────────────────────────

  /** get/edge/interfaces: every interface with its role and what the kernel says of it. */
  interfaces(): Record<string, unknown>[] {
    const row = (ifname: string, role: 'lan' | 'wan', vlan?: { parent: string; vlan_id: number }) => ({
      ifname,
      role,
      ...(vlan ? { vlan_id: vlan.vlan_id, parent: vlan.parent } : {}),
      ...(role === 'wan' ? { enabled: this.settings.wan_enabled[ifname] ?? true } : {}),
      ...linkState(ifname),
    });
    return [
      ...this.lan.map((i) => row(i, 'lan')),
      ...this.settings.vlans.map((v) => row(vlanName(v.parent, v.vlan_id), 'lan', v)),
      ...this.wan.map((i) => row(i, 'wan')),
    ];
  }

  /** get/edge/physical/interface/data: the kernel's counters of one interface */
  physicalData(ifname: string): Record<string, unknown> {
    const st = (k: string) => readNum(`/sys/class/net/${ifname}/statistics/${k}`);
    return {
      ifname,
      ...linkState(ifname),
      bytes: { rcvd: st('rx_bytes'), sent: st('tx_bytes') },
      packets: { rcvd: st('rx_packets'), sent: st('tx_packets') },
      drops: { rcvd: st('rx_dropped'), sent: st('tx_dropped') },
      errors: { rcvd: st('rx_errors'), sent: st('tx_errors') },
    };
  }

  // ── VLANs ─────────────────────────────────────────────────────────────

  /** add/edge/vlan/add_vlan: a VLAN subinterface of a LAN, up. -5 bad or unknown values, -6 the kernel refused. */
  async addVlan(parent: string | undefined, vid: string | undefined): Promise<{ ifname: string; vlan_id: number }> {
    const p = parent?.trim() ?? '';
    if (!this.lan.includes(p)) throw new ApiError(RC.INVALID_ARGUMENTS, `interface must be one of the LAN interfaces (${this.lan.join(', ')})`);
    const id = vlanId(vid);
    if (this.settings.vlans.some((v) => v.vlan_id === id)) throw new ApiError(RC.INVALID_ARGUMENTS, `VLAN ${id} is already configured`);
    try {
      await this.createVlan(p, id);
    } catch (e) {
      throw new ApiError(RC.INTERNAL_ERROR, (e as Error).message);
    }
    await this.save({ ...this.settings, vlans: [...this.settings.vlans, { parent: p, vlan_id: id }] });
    await this.applyPolicy().catch(() => undefined);
    return { ifname: vlanName(p, id), vlan_id: id };
  }

  /**
   * The kernel's VLAN device where the kernel has 802.1Q; else a TAP the
   * engine's VLAN bridge feeds (the same name, the parent's MAC, tagged on
   * the wire alike).
   */
  private async createVlan(parent: string, id: number): Promise<void> {
    const name = vlanName(parent, id);
    if (!existsSync(`/sys/class/net/${name}`)) {
      try {
        await this.exec('ip', ['link', 'add', 'link', parent, 'name', name, 'type', 'vlan', 'id', String(id)]);
      } catch (e) {
        if (!/Unknown device type|not supported/i.test((e as Error).message)) throw e;
        let b = this.bridges.get(parent);
        if (!b) this.bridges.set(parent, (b = openVlanBridge(parent)));
        b.add(id);
        this.o.log?.(`flowgate: edge: the kernel has no 802.1Q: VLAN ${name} is bridged in user space`);
      }
    }
    await this.exec('ip', ['link', 'set', name, 'up']);
  }

  private async deleteVlan(parent: string, id: number): Promise<void> {
    if (this.bridges.get(parent)?.remove(id)) return;
    if (existsSync(`/sys/class/net/${vlanName(parent, id)}`)) await this.exec('ip', ['link', 'del', vlanName(parent, id)]);
  }

  /** delete/edge/vlan/remove_vlan: the VLAN's subinterface removed, and the rules naming it. */
  async removeVlan(vid: string | undefined): Promise<void> {
    const id = vlanId(vid);
    const v = this.settings.vlans.find((x) => x.vlan_id === id);
    if (!v) throw new ApiError(RC.INVALID_ARGUMENTS, `VLAN ${id} is not configured`);
    const name = vlanName(v.parent, id);
    await this.deleteVlan(v.parent, id).catch((e) => this.o.log?.(`flowgate: edge: ${(e as Error).message}`));
    const names = (e: Endpoint) => e.type === 'interface' && e.value === name;
    await this.save({ ...this.settings, vlans: this.settings.vlans.filter((x) => x !== v), rules: this.settings.rules.filter((r) => !names(r.source) && !names(r.destination)) });
    await this.applyPolicy().catch(() => undefined);
  }

  // ── WAN state and gateways ────────────────────────────────────────────

  /** set/edge/interface/state: a WAN up or down. -5 not a WAN, -7 enabled not 'true'/'false', -6 the kernel refused. */
  async setWanState(ifname: string | undefined, enabled: string | undefined): Promise<void> {
    const w = ifname?.trim() ?? '';
    if (!this.wan.includes(w)) throw new ApiError(RC.INVALID_ARGUMENTS, `interface must be one of the WAN interfaces (${this.wan.join(', ')})`);
    if (enabled !== 'true' && enabled !== 'false') throw new ApiError(RC.BAD_FORMAT, "enabled must be 'true' or 'false'");
    const on = enabled === 'true';
    try {
      await this.exec('ip', ['link', 'set', w, on ? 'up' : 'down']);
    } catch (e) {
      throw new ApiError(RC.INTERNAL_ERROR, (e as Error).message);
    }
    await this.save({ ...this.settings, wan_enabled: { ...this.settings.wan_enabled, [w]: on } });
    this.gw.delete(w);
  }

  /** get/edge/gateways/status: each WAN's gateway as the last ping found it (pinged now when never checked). */
  async gatewaysStatus(): Promise<GatewayStatus[]> {
    if (this.wan.some((w) => !this.gw.has(w))) await this.pingGateways();
    return this.wan.map((w) => this.gw.get(w) ?? { interface: w, gateway: '', status: 'unknown', rtt: 0, last_check: 0 });
  }

  /** One ping of each WAN's default gateway (out of that interface). */
  async pingGateways(): Promise<void> {
    await Promise.all(
      this.wan.map(async (w) => {
        const g: GatewayStatus = { interface: w, gateway: await this.defaultGateway(w), status: 'unknown', rtt: 0, last_check: Math.floor(Date.now() / 1000) };
        if (g.gateway) {
          try {
            const out = await this.exec('ping', ['-n', '-c', '1', '-W', '1', '-I', w, g.gateway]);
            const m = /time[=<]([\d.]+) ?ms/.exec(out);
            g.status = 'up';
            g.rtt = m ? Number(m[1]) : 0;
          } catch {
            g.status = 'down';
          }
        }
        this.gw.set(w, g);
      }),
    );
  }

  private async defaultGateway(w: string): Promise<string> {
    try {
      const routes = JSON.parse(await this.exec('ip', ['-j', 'route', 'show', 'default', 'dev', w])) as { gateway?: string }[];
      return routes.find((r) => r.gateway)?.gateway ?? '';
    } catch {
      return '';
    }
  }

  // ── inter-LAN policy ──────────────────────────────────────────────────

  defaultPolicy(): Policy {
    return this.settings.default_policy;
  }

  async setDefaultPolicy(p: string | undefined): Promise<void> {
    if (p !== 'accept' && p !== 'deny') throw new ApiError(RC.INVALID_ARGUMENTS, "default_policy must be 'accept' or 'deny'");
    await this.commit({ ...this.settings, default_policy: p });
  }

  rules(): Rule[] {
    return [...this.settings.rules].sort((a, b) => a.rule_id - b.rule_id);
  }

  /** add/edge/policy/rule: the new rule's id (after the last). */
  async addRule(p: Record<string, string | undefined>): Promise<number> {
    const r = this.checkRule(p, Math.max(0, ...this.settings.rules.map((x) => x.rule_id)) + 1);
    await this.commit({ ...this.settings, rules: [...this.settings.rules, r] });
    return r.rule_id;
  }

  /** edit/edge/policy/rule: rule_id changed (new_rule_id: its new place; a rule already there moves one down). */
  async editRule(p: Record<string, string | undefined>): Promise<number> {
    const id = ruleId(p.rule_id);
    if (!this.settings.rules.some((r) => r.rule_id === id)) throw new ApiError(RC.INVALID_ARGUMENTS, `no rule ${id}`);
    const newId = p.new_rule_id?.trim() ? ruleId(p.new_rule_id) : id;
    const r = this.checkRule(p, newId);
    let others = this.settings.rules.filter((x) => x.rule_id !== id);
    // the ids stay unique: rules from the new id on move down one
    if (others.some((x) => x.rule_id === newId)) others = others.map((x) => (x.rule_id >= newId ? { ...x, rule_id: x.rule_id + 1 } : x));
    await this.commit({ ...this.settings, rules: [...others, r] });
    return newId;
  }

  async deleteRule(id: string | undefined): Promise<void> {
    const n = ruleId(id);
    if (!this.settings.rules.some((r) => r.rule_id === n)) throw new ApiError(RC.INVALID_ARGUMENTS, `no rule ${n}`);
    await this.commit({ ...this.settings, rules: this.settings.rules.filter((r) => r.rule_id !== n) });
  }

  private checkRule(p: Record<string, string | undefined>, id: number): Rule {
    const end = (t: string | undefined, v: string | undefined, what: string): Endpoint => {
      const type = t?.trim(), value = v?.trim() ?? '';
      if (type === 'interface') {
        if (!this.lanInterfaces().includes(value)) throw new ApiError(RC.INVALID_ARGUMENTS, `${what}_value must be a LAN interface (${this.lanInterfaces().join(', ')})`);
        return { type, value };
      }
      if (type === 'cidr') {
        if (!cidrOk(value)) throw new ApiError(RC.INVALID_ARGUMENTS, `${what}_value must be an address or a CIDR`);
        return { type, value };
      }
      throw new ApiError(RC.INVALID_ARGUMENTS, `${what}_type must be 'cidr' or 'interface'`);
    };
    const bidi = p.bidirectional?.trim();
    if (bidi !== 'true' && bidi !== 'false') throw new ApiError(RC.INVALID_ARGUMENTS, "bidirectional must be 'true' or 'false'");
    const policy = p.policy?.trim();
    if (policy !== 'accept' && policy !== 'deny') throw new ApiError(RC.INVALID_ARGUMENTS, "policy must be 'accept' or 'deny'");
    return { rule_id: id, source: end(p.src_type, p.src_value, 'src'), destination: end(p.dst_type, p.dst_value, 'dst'), bidirectional: bidi === 'true', action: policy };
  }

  /** A policy change: applied first (-6 when nftables refuses it, nothing kept), then kept. */
  private async commit(next: Settings): Promise<void> {
    try {
      await this.applyPolicy(next);
    } catch (e) {
      throw new ApiError(RC.INTERNAL_ERROR, `nftables refused the policy: ${(e as Error).message}`);
    }
    await this.save(next);
  }

  /** The nftables table of the policy (and the flows dropped), replaced in one transaction. */
  async applyPolicy(s: Settings = this.settings): Promise<void> {
    const now = Date.now();
    const drops: Drops = { v4: [], v6: [] };
    for (const [e, until] of this.dropped) {
      const left = Math.ceil((until - now) / 1000);
      if (left <= 0) this.dropped.delete(e);
      else (e.includes(':') ? drops.v6 : drops.v4).push(`${e} timeout ${left}s`);
    }
    await this.exec('nft', ['-f', '-'], nftRuleset(this.lanInterfaces(s), s, drops));
  }

  /**
   * set/edge/interface/drop_host_flows (ntopng's dropFlowsTraffic: a drop
   * verdict on each active flow of the host): the host's active TCP and UDP
   * flows, as the engines see them, are dropped in the kernel's forwarding
   * both ways for DROP_SEC (a connection dies; new ones pass). The number of
   * flows dropped.
   */
  async dropHostFlows(flows: readonly { proto: number; cli: string; cport: number; srv: string; sport: number }[]): Promise<number> {
    const until = Date.now() + DROP_SEC * 1000;
    let n = 0;
    for (const f of flows) {
      if ((f.proto !== 6 && f.proto !== 17) || isIP(f.cli) !== isIP(f.srv) || !isIP(f.cli)) continue;
      this.dropped.set(`${f.cli} . ${f.srv} . ${f.proto} . ${f.cport} . ${f.sport}`, until);
      this.dropped.set(`${f.srv} . ${f.cli} . ${f.proto} . ${f.sport} . ${f.cport}`, until);
      n++;
    }
    if (n) {
      try {
        await this.applyPolicy();
      } catch (e) {
        throw new ApiError(RC.INTERNAL_ERROR, `nftables refused the drop: ${(e as Error).message}`);
      }
    }
    return n;
  }

  /** Removes the table (the service stopping leaves the kernel's forwarding as it was before). */
  async clearPolicy(): Promise<void> {
    await this.exec('nft', ['-f', '-'], 'table inet flowgate_edge {}\ndelete table inet flowgate_edge\n').catch(() => undefined);
  }
}

/**
 * The ruleset: packets forwarded between two LAN interfaces meet the rules in
 * rule_id order (a bidirectional rule also matches the other way), then the
 * default; replies of an accepted connection pass (conntrack). Traffic to or
 * from a WAN is not the inter-LAN policy's.
 */
export function nftRuleset(lans: readonly string[], s: Pick<Settings, 'default_policy' | 'rules'>, drops: Drops = { v4: [], v6: [] }): string {
  const q = (i: string) => `"${i}"`;
  const set = lans.length ? `{ ${lans.map(q).join(', ')} }` : '{ "none" }';
  const match = (e: Endpoint, dir: 'src' | 'dst'): string => {
    if (e.type === 'interface') return `${dir === 'src' ? 'iifname' : 'oifname'} ${q(e.value)}`;
    const fam = e.value.includes(':') ? 'ip6' : 'ip';
    return `${fam} ${dir === 'src' ? 'saddr' : 'daddr'} ${e.value}`;
  };
  const lines = [
    'table inet flowgate_edge {}',
    'delete table inet flowgate_edge',
    'table inet flowgate_edge {',
    // the flows drop_host_flows dropped: every forwarded packet of theirs, both ways, whatever the interfaces
    '  set dropped4 { type ipv4_addr . ipv4_addr . inet_proto . inet_service . inet_service; flags timeout;' + (drops.v4.length ? ` elements = { ${drops.v4.join(', ')} }` : '') + ' }',
    '  set dropped6 { type ipv6_addr . ipv6_addr . inet_proto . inet_service . inet_service; flags timeout;' + (drops.v6.length ? ` elements = { ${drops.v6.join(', ')} }` : '') + ' }',
    '  chain forward {',
    '    type filter hook forward priority 0; policy accept;',
    '    ip saddr . ip daddr . meta l4proto . th sport . th dport @dropped4 drop',
    '    ip6 saddr . ip6 daddr . meta l4proto . th sport . th dport @dropped6 drop',
    `    iifname != ${set} accept`,
    `    oifname != ${set} accept`,
    '    ct state established,related accept',
  ];
  for (const r of [...s.rules].sort((a, b) => a.rule_id - b.rule_id)) {
    const verdict = r.action === 'accept' ? 'accept' : 'drop';
    lines.push(`    ${match(r.source, 'src')} ${match(r.destination, 'dst')} ${verdict} comment "rule ${r.rule_id}"`);
    if (r.bidirectional) lines.push(`    ${match(r.destination, 'src')} ${match(r.source, 'dst')} ${verdict} comment "rule ${r.rule_id} (reverse)"`);
  }
  lines.push(`    ${s.default_policy === 'accept' ? 'accept' : 'drop'} comment "default policy"`, '  }', '}', '');
  return lines.join('\n');
}

const vlanName = (parent: string, id: number) => `${parent}.${id}`;

function vlanId(v: string | undefined): number {
  const t = v?.trim() ?? '';
  if (!/^\d{1,4}$/.test(t) || Number(t) < 1 || Number(t) > 4094) throw new ApiError(RC.INVALID_ARGUMENTS, 'the VLAN id must be 1 to 4094');
  return Number(t);
}

function ruleId(v: string | undefined, what = 'rule_id'): number {
  const t = v?.trim() ?? '';
  if (!/^\d{1,6}$/.test(t) || Number(t) < 1) throw new ApiError(RC.INVALID_ARGUMENTS, `${what} must be a whole number from 1`);
  return Number(t);
}

function cidrOk(v: string): boolean {
  const [a, len, extra] = v.split('/');
  const fam = isIP(a ?? '');
  if (!fam || extra !== undefined) return false;
  if (len === undefined) return true;
  return /^\d{1,3}$/.test(len) && Number(len) <= (fam === 4 ? 32 : 128);
}

function readNum(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}

function linkState(ifname: string): Record<string, unknown> {
  const base = `/sys/class/net/${ifname}`;
  const text = (k: string) => {
    try {
      return readFileSync(`${base}/${k}`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  const flags = Number.parseInt(text('flags') || '0', 16);
  return {
    present: existsSync(base),
    mac: text('address'),
    mtu: Number(text('mtu')) || 0,
    // IFF_UP: administratively up; operstate: the link as the kernel sees it
    up: (flags & 1) === 1,
    operstate: text('operstate') || 'unknown',
    speed: Number(text('speed')) > 0 ? Number(text('speed')) : 0,
  };
}
