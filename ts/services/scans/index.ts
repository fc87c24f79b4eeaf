// ⑧ Active scans (ntopng's vulnerability scan, vs_utils.lua): hosts to scan
// with a scan type, kept in LMDB (db 'scans', keyed as ntopng's hash:
// '<host>-<scan_type>'), scanned by nmap (nmap.ts) from a queue with a bounded
// concurrency, on demand or every day / week. Each result is attached to its
// entry (open ports and their services, host down, hosts discovered) with
// nmap's report; a change between two scans of a host that is up raises
// ntopng's alert_vulnerability_scan, after the changed ports are scanned
// again (ntopng's false-positive check); so does a host found down or a
// host a network scan finds that no scan knew.
//
// Scan types offered are those nmap can run here (vs_utils.list_scan_modules):
// tcp_portscan, udp_portscan (needs raw sockets: root), ipv4_netscan. ntopng's
// cve / vulners / openvas modules need nmap scripts or servers that query the
// internet, which an appliance here does not reach.
import { isIP } from 'node:net';

import type { Database } from 'lmdb';

import { scoreToSeverity } from '../alerts/catalogue.js';
import { SYSTEM_IFID, type AlertInput } from '../alerts/types.js';
import type { ConfigStore } from '../config-store.js';
import { ipv4Network, ipv4ToNumber, numberToIpv4 } from '../cidr.js';
import { StepPoller } from '../step-poller.js';
import { plainTime } from '../notifications/notification.js';
import { secondsToTime } from '../time-format.js';
import { NmapError, nmapPath, runNmap, type NmapResult } from './nmap.js';

export const SCAN_TYPES = ['tcp_portscan', 'udp_portscan', 'ipv4_netscan'] as const;
export type ScanType = (typeof SCAN_TYPES)[number];
/** hosts_stats.page_scan_hosts.scan_type_list */
const SCAN_LABELS: Record<ScanType, string> = { tcp_portscan: 'TCP Portscan', udp_portscan: 'UDP Portscan', ipv4_netscan: 'IPv4 Netscan' };

/** vs_utils.scan_status */
export const SCAN_STATUS = { error: 0, ok: 1, scheduled: 2, not_scanned: 3, scanning: 4, failed: 5 } as const;

export const FREQUENCIES = ['disabled', '1day', '1week'] as const;
const PERIOD_SEC: Record<string, number> = { '1day': 86400, '1week': 7 * 86400 };

/** other_alert_keys.lua: alert_vulnerability_scan (OTHER_BASE_KEY + 88) */
export const ALERT_VULNERABILITY_SCAN = 4184;
/** flowgate's choice (ntopng's check is in its closed pro scripts): warning */
const SCORE = 50;

/** vs_rest_utils.ports_diff_case: scan and passive view agree, the passive view saw more, the scan found more */
export const PORTS_CASE = { no_diff: 2, ntopng_more_t_vs: 3, vs_more_t_ntopng: 4 } as const;

interface FoundPort {
  port: number;
  service: string;
}

interface ScanResult {
  epoch: number;
  duration: number;
  host_name: string;
  is_down: boolean;
  was_down: boolean;
  tcp: FoundPort[];
  udp: FoundPort[];
  /** ipv4_netscan: the hosts it found up that no scan knew (ntopng's discovered_hosts) */
  discovered: string[];
}

export interface ScanEntry {
  /** ntopng's entry id */
  id: number;
  host: string;
  scan_type: ScanType;
  /** comma-separated ports and ranges ('' = nmap's default set) */
  ports: string;
  cidr: string;
  scan_frequency?: '1day' | '1week';
  /** ipv4_netscan: the scan types each host it finds is added with */
  discovered_host_scan_type?: string;
  /** epoch s it was added (a periodic scan is first due a period later, unless scanned before) */
  added: number;
  is_ok_last_scan: number;
  is_periodicity?: boolean;
  is_all?: boolean;
  is_single_scan?: boolean;
  /** the last scan that ran to its end */
  last?: ScanResult;
  /** why the latest scan could not run (status error; cleared by the next that does) */
  last_error?: string;
}

export type ScanParams = Partial<Record<'host' | 'scan_type' | 'scan_ports' | 'scan_frequency' | 'cidr' | 'discovered_host_scan_type', string>>;

/** What the engines know of a host: its name and the ports it served (used_ports.local_server_ports). */
export type HostView = (ip: string) => { name: string; tcp: number[]; udp: number[] } | null;

export interface ScansOptions {
  /** nmap runs at once (ntopng: up to 4 per minute) */
  concurrency?: number;
  /** one nmap run's deadline */
  timeoutMs?: number;
  alerts?: { emit(a: AlertInput): void } | null;
  /** the vulnerability_scan check is on (ntopng: no alert otherwise) */
  alertsEnabled?: () => boolean;
  hosts?: HostView;
  /** nmap's path (default: where ntopng looks) */
  nmap?: string | null;
  log?: (l: string) => void;
}

type Kind = 'single' | 'all' | 'periodic';

export class ScanError extends Error {}

const keyOf = (host: string, type: string) => `${host}-${type}`;

export class Scans {
  private readonly db: Database<ScanEntry, string>;
  private readonly reports: Database<string, string>;
  private readonly meta: Database<number, string>;
  private readonly queue: { key: string; kind: Kind }[] = [];
  private readonly running = new Map<string, AbortController>();
  private readonly idle: (() => void)[] = [];
  private readonly poller = new StepPoller('active_scans_schedule', 60, async (now) => this.scheduleDue(now));
  private readonly nmap: string | null;
  private stopped = false;

  constructor(
    store: ConfigStore,
    private readonly o: ScansOptions = {},
  ) {
    this.db = store.db<ScanEntry>('scans');
    this.reports = store.db<string>('scan_reports');
    this.meta = store.db<number>('scans_meta');
    this.nmap = o.nmap === undefined ? nmapPath() : o.nmap;
  }

  /** vs_utils.list_scan_modules: the types nmap can run here */
  types(): ScanType[] {
    if (!this.nmap) return [];
    return SCAN_TYPES.filter((t) => t !== 'udp_portscan' || process.getuid?.() === 0);
  }

  typeList(): { id: ScanType; label: string }[] {
    return this.types().map((id) => ({ id, label: SCAN_LABELS[id] }));
  }

  all(): ScanEntry[] {
    return [...this.db.getRange()].map((e) => e.value);
  }

  get(host: string, type: string): ScanEntry | undefined {
    return this.db.get(keyOf(host, type));
  }

  /** Restarts what was scheduled or scanning when the service stopped, and scans periodically. */
  start(): this {
    for (const e of this.all()) {
      if (e.is_ok_last_scan === SCAN_STATUS.scheduled || e.is_ok_last_scan === SCAN_STATUS.scanning) {
        this.enqueue(keyOf(e.host, e.scan_type), e.is_periodicity ? 'periodic' : e.is_all ? 'all' : 'single');
      }
    }
    this.poller.start();
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.poller.stop();
    this.queue.length = 0;
    for (const a of this.running.values()) a.abort();
  }

  /** Resolves when no scan is queued or running. */
  settled(): Promise<void> {
    if (!this.queue.length && !this.running.size) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /**
   * add/host/to_scan: the entry added and a scan of it scheduled; with a cidr
   * (a type other than ipv4_netscan), each host of the network found up is
   * added instead. rsp 1 added, 2 it was there (updated and scheduled), 3 no
   * host found up.
   */
  async add(p: ScanParams, edit = false): Promise<1 | 2 | 3> {
    const c = this.check(p);
    if (edit) {
      const old = this.get(c.host, c.scan_type);
      if (!old) return 2;
      await this.put({ ...old, ports: c.ports, scan_frequency: c.scan_frequency, discovered_host_scan_type: c.discovered_host_scan_type ?? old.discovered_host_scan_type });
      return 1;
    }
    if (c.scan_type !== 'ipv4_netscan' && c.cidr && c.cidr !== '32' && c.cidr !== '128') {
      const found = await this.discover(c.host, c.cidr);
      if (!found.length) return 3;
      let rc: 1 | 2 = 1;
      for (const h of found) if ((await this.addOne({ ...c, host: h, cidr: '32' })) === 2) rc = 2;
      return rc;
    }
    return this.addOne(c);
  }

  private async addOne(c: Omit<ScanEntry, 'id' | 'added' | 'is_ok_last_scan'>): Promise<1 | 2> {
    const old = this.get(c.host, c.scan_type);
    const e: ScanEntry = old
      ? { ...old, ports: c.ports, cidr: c.cidr, scan_frequency: c.scan_frequency, discovered_host_scan_type: c.discovered_host_scan_type }
      : { ...c, id: await this.nextId(), added: now(), is_ok_last_scan: SCAN_STATUS.not_scanned };
    await this.put(e);
    await this.schedule(e, 'single');
    return old ? 2 : 1;
  }

  /** exec/host/schedule_active_scan with scan_single_host: one configured entry scanned now. */
  async scheduleOne(host: string | undefined, type: string | undefined, ports?: string): Promise<void> {
    const h = host?.trim() ?? '', t = type?.trim() ?? '';
    if (!h || !t) throw new ScanError('host and scan_type are required');
    const e = this.get(h, t);
    if (!e) throw new ScanError(`no scan of ${h.slice(0, 64)} with type ${t.slice(0, 32)} (add it with add/host/to_scan)`);
    const p = ports?.replace(/\s+/g, '');
    if (p && !p.split(',').every(validPortItem)) throw new ScanError('scan_ports must be ports or ranges (1-65535) separated by commas');
    await this.schedule(p ? { ...e, ports: p } : e, 'single');
  }

  /** exec/host/schedule_active_scan for all: every entry scanned. */
  async scheduleAll(): Promise<number> {
    const all = this.all();
    for (const e of all) await this.schedule(e, 'all');
    return all.length;
  }

  /** delete/host/delete_host_to_scan: one entry (its running scan stopped) or all. */
  async delete(host: string | undefined, type: string | undefined, all: boolean): Promise<void> {
    if (all) return this.reset();
    const h = host?.trim() ?? '', t = type?.trim() ?? '';
    if (!h || !t) throw new ScanError('host and scan_type are required');
    await this.remove(keyOf(h, t));
  }

  private async remove(key: string): Promise<void> {
    const i = this.queue.findIndex((q) => q.key === key);
    if (i >= 0) this.queue.splice(i, 1);
    this.running.get(key)?.abort();
    await this.db.remove(key);
    for (const { key: k } of this.reports.getRange({ start: `${key}|`, end: `${key}|~` })) await this.reports.remove(k);
  }

  /** edit/host/update_va_scan_period: every entry's frequency ('disabled' clears it). */
  async setAllFrequencies(freq: string | undefined): Promise<void> {
    const f = frequency(freq);
    for (const e of this.all()) await this.put({ ...e, scan_frequency: f });
  }

  /** get/host/vulnerability_scan_status */
  status(): { total: number; total_in_progress: number; total_in_success: number } {
    const all = this.all();
    const busy = all.filter((e) => e.is_ok_last_scan === SCAN_STATUS.scheduled || e.is_ok_last_scan === SCAN_STATUS.scanning).length;
    return { total: all.length, total_in_progress: busy, total_in_success: all.length - busy };
  }

  /** get/host/vulnerability_scan_result: nmap's report of the last scan (or of the scan at `epoch`). */
  report(host: string, type: string, epoch?: number): string | null {
    const key = keyOf(host, type);
    if (!this.db.get(key)) return null;
    if (epoch !== undefined) return this.reports.get(`${key}|${pad(epoch)}`) ?? '';
    let last = '';
    for (const { value } of this.reports.getRange({ start: `${key}|`, end: `${key}|~`, reverse: false })) last = value;
    return last;
  }

  // ── scanning ───────────────────────────────────────────────────────────

  private async schedule(e: ScanEntry, kind: Kind): Promise<void> {
    const key = keyOf(e.host, e.scan_type);
    await this.put({
      ...e,
      is_ok_last_scan: SCAN_STATUS.scheduled,
      is_single_scan: kind === 'single' || e.is_single_scan,
      is_all: kind === 'all' || e.is_all,
      is_periodicity: kind === 'periodic' || e.is_periodicity,
    });
    this.enqueue(key, kind);
  }

  private enqueue(key: string, kind: Kind): void {
    if (this.stopped || this.running.has(key) || this.queue.some((q) => q.key === key)) return;
    this.queue.push({ key, kind });
    this.pump();
  }

  private pump(): void {
    const max = Math.max(1, this.o.concurrency ?? 2);
    while (this.running.size < max && this.queue.length) {
      const { key } = this.queue.shift()!;
      const ac = new AbortController();
      this.running.set(key, ac);
      void this.scan(key, ac.signal)
        .catch((e) => this.o.log?.(`flowgate: scan ${key}: ${(e as Error).message}`))
        .finally(() => {
          this.running.delete(key);
          this.pump();
          if (!this.queue.length && !this.running.size) for (const r of this.idle.splice(0)) r();
        });
    }
  }

  private async scan(key: string, signal: AbortSignal): Promise<void> {
    const e = this.db.get(key);
    if (!e) return;
    await this.put({ ...e, is_ok_last_scan: SCAN_STATUS.scanning });
    const prev = e.last;
    const view = this.o.hosts?.(e.host) ?? null;
    const r: ScanResult = { epoch: now(), duration: 0, host_name: view?.name ?? '', is_down: false, was_down: false, tcp: [], udp: [], discovered: [] };
    let status: number = SCAN_STATUS.ok;
    let text = '';
    let error = '';
    try {
      if (e.scan_type === 'ipv4_netscan') {
        const res = await this.nmapRun(['-n', '-sn', netTarget(e.host, e.cidr || '24')], signal);
        Object.assign(r, { epoch: res.begin, duration: res.duration });
        text = res.text;
        r.discovered = await this.configureFound(e, res.hosts.filter((h) => h.up).map((h) => h.addr));
      } else {
        const v6 = isIP(e.host) === 6;
        const probe = await this.nmapRun(['-n', '-sn', ...(v6 ? ['--privileged', '-6'] : []), e.host], signal);
        if (!probe.hosts.some((h) => h.up)) {
          status = SCAN_STATUS.failed;
          Object.assign(r, { epoch: probe.begin, duration: probe.duration, is_down: true });
          text = 'Host down or unreachable.';
        } else {
          const res = await this.portScan(e, e.ports, signal);
          Object.assign(r, { epoch: probe.begin, duration: probe.duration + res.duration });
          text = res.text;
          const open = openPorts(res);
          r.tcp = open.tcp;
          r.udp = open.udp;
        }
      }
    } catch (err) {
      if (signal.aborted || !this.db.get(key)) return;
      status = SCAN_STATUS.error;
      error = err instanceof NmapError ? err.message : String(err);
      text = `Scan failed: ${error}`;
    }
    r.was_down = !!prev?.is_down && status === SCAN_STATUS.ok;
    if (status !== SCAN_STATUS.error) await this.raiseChanges(e, prev, r, status, signal);
    const cur = this.db.get(key);
    if (!cur) return; // deleted meanwhile
    if (error) await this.put({ ...cur, is_ok_last_scan: status, last_error: error });
    else await this.put({ ...cur, is_ok_last_scan: status, last: r, last_error: undefined });
    await this.keepReport(key, r.epoch, text);
  }

  private nmapRun(args: string[], signal: AbortSignal): Promise<NmapResult> {
    if (!this.nmap) throw new NmapError('nmap is not installed');
    return runNmap(args, { timeoutMs: this.o.timeoutMs ?? 30 * 60_000, signal, bin: this.nmap });
  }

  private portScan(e: ScanEntry, ports: string, signal: AbortSignal): Promise<NmapResult> {
    const udp = e.scan_type === 'udp_portscan';
    return this.nmapRun(['-n', ...(udp ? ['--privileged', '-sU'] : []), ...(isIP(e.host) === 6 ? ['-6'] : []), ...(ports ? ['-p', ports] : []), e.host], signal);
  }

  /** ipv4_netscan's modules: each host found up gets the entry's sub-scan types (a host no scan knew raises the alert). */
  private async configureFound(net: ScanEntry, up: string[]): Promise<string[]> {
    const subTypes = (net.discovered_host_scan_type ?? '').split(',').map((s) => s.trim()).filter((s): s is ScanType => (SCAN_TYPES as readonly string[]).includes(s) && s !== 'ipv4_netscan');
    const unknown: string[] = [];
    for (const h of up) {
      for (const t of subTypes) {
        if (this.get(h, t)) continue;
        if (!this.all().some((x) => x.host === h)) {
          if (!unknown.includes(h)) unknown.push(h);
          this.alert(h, { host: h, sub_scan_type: t, is_host_not_configured: true, measurement: 'host_not_configured' });
        }
        const e: ScanEntry = { id: await this.nextId(), host: h, scan_type: t, ports: net.ports, cidr: '32', scan_frequency: net.scan_frequency, added: now(), is_ok_last_scan: SCAN_STATUS.not_scanned };
        await this.put(e);
        await this.schedule(e, net.is_periodicity ? 'periodic' : net.is_all ? 'all' : 'single');
      }
    }
    return unknown;
  }

  /**
   * vs_utils.save_host_to_scan's alerts: the host down; or, both scans up,
   * the ports opened and closed since the last scan, each changed port
   * scanned again first and kept only when the second scan agrees.
   */
  private async raiseChanges(e: ScanEntry, prev: ScanResult | undefined, r: ScanResult, status: number, signal: AbortSignal): Promise<void> {
    if (!(this.o.alertsEnabled?.() ?? true)) return;
    if (status === SCAN_STATUS.failed) {
      this.alert(e.host, { host: e.host, host_name: r.host_name, epoch: r.epoch, is_up_check_case: true, measurement: 'host_down' });
      return;
    }
    if (e.scan_type === 'ipv4_netscan' || !prev || prev.is_down) return;
    const proto = e.scan_type === 'tcp_portscan' ? 'tcp' : 'udp';
    const before = prev[proto].map((p) => p.port), after = r[proto].map((p) => p.port);
    let opened = after.filter((p) => !before.includes(p)), closed = before.filter((p) => !after.includes(p));
    if (!opened.length && !closed.length) return;
    try {
      const again = openPorts(await this.portScan(e, [...opened, ...closed].join(','), signal))[proto].map((p) => p.port);
      const confirmedOpen = opened.filter((p) => again.includes(p)), confirmedClosed = closed.filter((p) => !again.includes(p));
      // ntopng raises nothing when a change is not confirmed (a false positive)
      if (confirmedOpen.length !== opened.length || confirmedClosed.length !== closed.length) return;
    } catch {
      return;
    }
    opened = opened.sort((a, b) => a - b);
    closed = closed.sort((a, b) => a - b);
    const c = opened.length && closed.length ? 'ports_open_and_closed' : opened.length ? 'new_ports' : 'ports_closed';
    this.alert(e.host, {
      host: e.host,
      host_name: r.host_name,
      scan_type: e.scan_type,
      triggered: true,
      [`${proto}_open_ports`]: { num: opened.length, ports: opened.join(',') },
      [`${proto}_closed_ports`]: { num: closed.length, ports: closed.join(',') },
      [`${proto}_ports_case`]: c,
      date: shortTime(r.epoch).replace(/ /g, '_'),
      epoch: r.epoch,
      measurement: 'ports_changes_detected',
    });
  }

  /** alert_vulnerability_scan (an active monitoring host alert), stored at once */
  private alert(host: string, params: Record<string, unknown>): void {
    const t = typeof params.epoch === 'number' ? params.epoch : now();
    this.o.alerts?.emit({
      family: 'am_host',
      ifid: SYSTEM_IFID,
      entityVal: host,
      alertId: ALERT_VULNERABILITY_SCAN,
      subtype: String(params.scan_type ?? params.sub_scan_type ?? ''),
      tstamp: t,
      score: SCORE,
      severity: scoreToSeverity(SCORE),
      fields: { resolved_ip: host, resolved_name: String(params.host_name ?? ''), measurement: String(params.measurement), measure_threshold: 0, measure_value: 0 },
      json: { ...params, threshold: 0, value: 0 },
    });
  }

  private async keepReport(key: string, epoch: number, text: string): Promise<void> {
    await this.reports.put(`${key}|${pad(epoch)}`, text.slice(0, 4 << 20));
    // the newest 8 reports of an entry are kept
    const keys = [...this.reports.getKeys({ start: `${key}|`, end: `${key}|~` })].map(String);
    for (const k of keys.slice(0, Math.max(0, keys.length - 8))) await this.reports.remove(k);
  }

  /** Entries whose period has passed since their last scan (or since they were added) are scheduled. */
  private async scheduleDue(t: number): Promise<void> {
    for (const e of this.all()) {
      const period = e.scan_frequency ? PERIOD_SEC[e.scan_frequency] : 0;
      if (!period) continue;
      const key = keyOf(e.host, e.scan_type);
      if (this.running.has(key) || this.queue.some((q) => q.key === key)) continue;
      if ((e.last?.epoch ?? e.added) + period <= t) await this.schedule(e, 'periodic');
    }
  }

  /** Runs the periodic check now (tests; the poller runs it each minute). */
  checkDue(t = now()): Promise<void> {
    return this.poller.poll(t);
  }

  /** vs_utils.get_active_hosts: the hosts of host/cidr that answer nmap's host discovery */
  private async discover(host: string, cidr: string): Promise<string[]> {
    const ac = new AbortController();
    try {
      const r = await this.nmapRun(['-n', '-sn', netTarget(host, cidr)], ac.signal);
      return r.hosts.filter((h) => h.up).map((h) => h.addr);
    } catch (e) {
      throw new ScanError(`network discovery failed: ${(e as Error).message}`);
    }
  }

  // ── the list (to_scan_list) ───────────────────────────────────────────

  /** vs_rest_utils.format_overview_result: the entries with their last results and the passive view of each host. */
  overview(o: { search?: string; sort?: string; port?: string; wasDown?: boolean; netscanReport?: boolean } = {}): Record<string, unknown>[] {
    let list = this.all();
    if (o.wasDown) list = list.filter((e) => e.last?.was_down);
    if (o.netscanReport) list = list.filter((e) => e.scan_type === 'ipv4_netscan');
    const port = o.port?.trim();
    if (port) list = list.filter((e) => [...(e.last?.tcp ?? []), ...(e.last?.udp ?? [])].some((p) => String(p.port) === port));
    const q = o.search?.trim();
    if (q) list = list.filter((e) => e.host.includes(q) || (e.last?.host_name ?? '').includes(q));
    if (o.sort === 'ip') list.sort((a, b) => ipOrder(a.host, b.host) || (a.last?.epoch ?? 0) - (b.last?.epoch ?? 0));
    return list.map((e) => this.row(e));
  }

  private row(e: ScanEntry): Record<string, unknown> {
    const r = e.last;
    const list = (ps: FoundPort[], proto: string) => ps.map((p) => (p.service ? `${p.port}/${proto} (${p.service})` : `${p.port}/${proto}`)).join(',');
    const out: Record<string, unknown> = {
      id: e.id,
      host: e.host,
      host_name: r?.host_name ?? '',
      scan_type: e.scan_type,
      ports: e.ports,
      cidr: e.cidr,
      ...(e.scan_frequency ? { scan_frequency: e.scan_frequency } : {}),
      ...(e.discovered_host_scan_type ? { discovered_host_scan_type: e.discovered_host_scan_type } : {}),
      is_ok_last_scan: e.is_ok_last_scan,
      num_open_ports: (r?.tcp.length ?? 0) + (r?.udp.length ?? 0),
      // no CVE module runs here (see above)
      num_vulnerabilities_found: 0,
      cve: [],
      max_score_cve: 0,
      is_down: r?.is_down ?? false,
      ...(r?.was_down ? { was_down: true } : {}),
      discovered_hosts: (r?.discovered ?? []).join(','),
      discovered_hosts_num: r?.discovered.length ?? 0,
      tcp_ports: r?.tcp.length ?? 0,
      udp_ports: r?.udp.length ?? 0,
      ...(r?.tcp.length ? { tcp_ports_list: list(r.tcp, 'tcp') } : {}),
      ...(r?.udp.length ? { udp_ports_list: list(r.udp, 'udp') } : {}),
      ...(e.is_periodicity ? { is_periodicity: true } : {}),
      ...(e.is_all ? { is_all: true } : {}),
      ...(e.is_single_scan ? { is_single_scan: true } : {}),
      ...(e.last_error ? { error: e.last_error } : {}),
    };
    if (r) {
      const d = Math.max(1, r.duration);
      out.last_scan = { epoch: r.epoch, time: shortTime(r.epoch), duration: secondsToTime(d), duration_epoch: d };
    }
    if (e.scan_type !== 'ipv4_netscan') Object.assign(out, this.comparePassive(e));
    return out;
  }

  /** vs_rest_utils.compare_scan_info_ntopng_info: the scan's open ports against the ports the host was seen serving. */
  private comparePassive(e: ScanEntry): Record<string, unknown> {
    const proto = e.scan_type === 'tcp_portscan' ? 'tcp' : 'udp';
    const view = this.o.hosts?.(e.host) ?? null;
    const scanned = (e.last?.[proto] ?? []).map((p) => p.port);
    const seen = view?.[proto] ?? [];
    const unused = scanned.filter((p) => !seen.includes(p)).map(String);
    const filtered = seen.filter((p) => !scanned.includes(p)).map(String);
    const c = filtered.length ? PORTS_CASE.ntopng_more_t_vs : unused.length ? PORTS_CASE.vs_more_t_ntopng : PORTS_CASE.no_diff;
    return {
      host_in_mem: !!view,
      ...(unused.length ? { [`${proto}_ports_unused`]: unused } : {}),
      ...(filtered.length ? { [`${proto}_ports_filtered`]: filtered } : {}),
      [`${proto}_ports_case`]: c,
    };
  }

  // ── configuration ─────────────────────────────────────────────────────

  /** add/host/to_scan's checks; a bad value is -8 (bad content), as ntopng answers an empty host or type. */
  private check(p: ScanParams): Omit<ScanEntry, 'id' | 'added' | 'is_ok_last_scan'> {
    const host = p.host?.trim() ?? '', type = p.scan_type?.trim() ?? '';
    if (!host || !type) throw new ScanError('host and scan_type are required');
    if (!(SCAN_TYPES as readonly string[]).includes(type)) throw new ScanError(`scan_type '${type.slice(0, 32)}' is not one of ${SCAN_TYPES.join(', ')}`);
    if (!this.types().includes(type as ScanType)) throw new ScanError(`scan_type ${type} cannot run here (${this.nmap ? 'UDP scans need root' : 'nmap is not installed'})`);
    const v = isIP(host);
    // a name nmap resolves itself; never anything it could take for an option
    if (!v && !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?$/.test(host)) throw new ScanError(`host '${host.slice(0, 64)}' is not an address or a host name`);
    const cidrText = (p.cidr ?? '').trim();
    let cidr = '';
    if (cidrText) {
      const n = /^\d{1,3}$/.test(cidrText) ? Number(cidrText) : NaN;
      const full = v === 6 ? 128 : 32;
      if (!(n <= full) || (n !== full && (v !== 4 || n < 20))) throw new ScanError(`cidr must be 20 to 32 with an IPv4 address (${full} for one host)`);
      cidr = String(n);
    }
    if (type === 'ipv4_netscan') {
      if (v !== 4) throw new ScanError('ipv4_netscan needs an IPv4 network address');
      cidr ||= '24';
    }
    const ports = (p.scan_ports ?? '').replace(/\s+/g, '');
    if (ports && !ports.split(',').every(validPortItem)) throw new ScanError('scan_ports must be ports or ranges (1-65535) separated by commas');
    const sub = p.discovered_host_scan_type?.trim();
    if (sub && !sub.split(',').every((s) => ['tcp_portscan', 'udp_portscan'].includes(s.trim()))) throw new ScanError('discovered_host_scan_type must list tcp_portscan and/or udp_portscan');
    return { host, scan_type: type as ScanType, ports, cidr: cidr || (v === 6 ? '128' : '32'), scan_frequency: frequency(p.scan_frequency), ...(sub ? { discovered_host_scan_type: sub } : {}) };
  }

  private async put(e: ScanEntry): Promise<void> {
    const clean = Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as unknown as ScanEntry;
    await this.db.put(keyOf(e.host, e.scan_type), clean);
  }

  private async nextId(): Promise<number> {
    const id = (this.meta.get('last_id') ?? 0) + 1;
    await this.meta.put('last_id', id);
    return id;
  }

  /** vs_utils.retrieve_hosts_backup: the entries' settings */
  exportConfig(): Record<string, unknown>[] {
    return this.all().map((e) => ({
      host: e.host, scan_type: e.scan_type, ports: e.ports, cidr: e.cidr, id: e.id,
      ...(e.scan_frequency ? { scan_frequency: e.scan_frequency } : {}),
      ...(e.discovered_host_scan_type ? { discovered_host_scan_type: e.discovered_host_scan_type } : {}),
    }));
  }

  /** vs_utils.restore_config_backup: the entries replaced by the backup's (not scanned until asked or due). */
  async importConfig(list: unknown[]): Promise<string[]> {
    const skipped: string[] = [];
    const entries: ScanEntry[] = [];
    for (const x of list) {
      const o = (x ?? {}) as Record<string, unknown>;
      const s = (k: string) => (o[k] === undefined || o[k] === null ? undefined : String(o[k]));
      try {
        const c = this.check({ host: s('host'), scan_type: s('scan_type'), scan_ports: s('ports'), cidr: s('cidr'), scan_frequency: s('scan_frequency'), discovered_host_scan_type: s('discovered_host_scan_type') });
        entries.push({ ...c, id: 0, added: now(), is_ok_last_scan: SCAN_STATUS.not_scanned });
      } catch (e) {
        skipped.push(`host to scan '${String(o.host ?? '').slice(0, 64)}': ${(e as Error).message}`);
      }
    }
    await this.reset();
    for (const e of entries) await this.put({ ...e, id: await this.nextId() });
    return skipped;
  }

  async reset(): Promise<void> {
    this.queue.length = 0;
    for (const a of this.running.values()) a.abort();
    await this.db.clearAsync();
    await this.reports.clearAsync();
  }
}

function openPorts(r: NmapResult): { tcp: FoundPort[]; udp: FoundPort[] } {
  const out = { tcp: [] as FoundPort[], udp: [] as FoundPort[] };
  // "open|filtered" (a UDP port that did not answer) is not counted, as ntopng
  for (const h of r.hosts) for (const p of h.ports) if (p.state === 'open') out[p.proto].push({ port: p.port, service: p.service });
  for (const k of ['tcp', 'udp'] as const) out[k].sort((a, b) => a.port - b.port);
  return out;
}

function validPortItem(s: string): boolean {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(s);
  if (!m) return false;
  const a = Number(m[1]), b = m[2] === undefined ? a : Number(m[2]);
  return a >= 1 && b <= 65535 && a <= b;
}

function frequency(f: string | undefined): '1day' | '1week' | undefined {
  const v = f?.trim() ?? '';
  if (!v || v === 'disabled') return undefined;
  if (v === '1day' || v === '1week') return v;
  throw new ScanError(`scan_frequency must be one of ${FREQUENCIES.join(', ')}`);
}

/** The network of an IPv4 address and prefix, as nmap takes it (a.b.c.d/n); a /32 is the address itself. */
function netTarget(host: string, cidr: string): string {
  const n = Number(cidr);
  if (n >= 32) return host;
  return `${numberToIpv4(ipv4Network(ipv4ToNumber(host), n))}/${n}`;
}

function ipOrder(a: string, b: string): number {
  const hex = (s: string) => (isIP(s) === 4 ? s.split('.').map((x) => Number(x).toString(16).padStart(2, '0')).join('.') : s);
  return hex(a) < hex(b) ? -1 : hex(a) > hex(b) ? 1 : 0;
}

const now = () => Math.floor(Date.now() / 1000);
const pad = (n: number) => String(n).padStart(12, '0');

/** format_utils.formatPastEpochShort: the time of day when it is today, else dd/mm/yyyy hh:mm:ss (UTC) */
function shortTime(t: number): string {
  const full = plainTime(t);
  return full.slice(0, 10) === plainTime(now()).slice(0, 10) ? full.slice(11) : full;
}
