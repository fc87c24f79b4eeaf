// Active scans against real hosts: a network namespace made here holds two
// addresses with listening sockets this test opens and closes (the truth of
// what is open, cross-checked with `ss` inside the namespace); the service
// scans them with Debian's nmap. A port opened and one closed between two
// scans raise ntopng's alert_vulnerability_scan with exactly those ports;
// a host that does not answer is reported down; a network scan finds the
// namespace's addresses and adds the hosts no scan knew. The passive view
// (the ports the engine saw the host serve in a capture built here) is
// compared with the scan as ntopng's scan page does.
//
// Needs root, `ip netns`, python3 and nmap; skipped otherwise, failing under CI.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ConfigStore } from '../ts/services/config-store.js';
import { ScanError, Scans } from '../ts/services/scans/index.js';
import { RecordingSink } from './fixtures/alert-sink.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const HAVE = process.getuid?.() === 0 && ok('ip', ['netns', 'list']) && ok('sh', ['-c', 'command -v nmap && command -v python3']);
const RUN = HAVE || !!process.env.CI;
if (!HAVE) console.warn(`test/scans.test.ts ${RUN ? 'fails' : 'skipped'}: needs root, ip netns, python3 and nmap (Debian's nmap package)`);

const tag = `fgv${process.pid}`;
const NS = tag, IF_ROOT = `${tag}a`, IF_NS = `${tag}b`;
const X = (process.pid % 200) + 20;
const ME = `10.98.${X}.1`, A = `10.98.${X}.2`, B = `10.98.${X}.3`, NOBODY = `10.98.${X}.50`, NET = `10.98.${X}.0`;

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const nsRun = (args: string[]) => run('ip', ['netns', 'exec', NS, ...args]);
function teardown(): void {
  spawnSync('ip', ['netns', 'del', NS], { stdio: 'ignore' });
  spawnSync('ip', ['link', 'del', IF_ROOT], { stdio: 'ignore' });
}

/** A process in the namespace holding sockets open: TCP listeners, and UDP sockets that answer every datagram. */
async function listen(addr: string, tcpPorts: number[], udpPorts: number[] = []): Promise<ChildProcess> {
  const py = [
    'import socket, threading, sys, time',
    `for p in ${JSON.stringify(tcpPorts)}:`,
    '  s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)',
    `  s.bind((${JSON.stringify(addr)}, p)); s.listen(16); globals()["t%d" % p] = s`,
    'def echo(u):',
    '  while True:',
    '    d, a = u.recvfrom(2048); u.sendto(b"ok", a)',
    `for p in ${JSON.stringify(udpPorts)}:`,
    '  u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
    `  u.bind((${JSON.stringify(addr)}, p)); threading.Thread(target=echo, args=(u,), daemon=True).start()`,
    'print("ready", flush=True)',
    'time.sleep(3600)',
  ].join('\n');
  const child = spawn('ip', ['netns', 'exec', NS, 'python3', '-c', py], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`listener exited ${c}`)));
  });
  return child;
}

/** the TCP ports listening on an address inside the namespace, as `ss` lists them */
function ssListening(addr: string): number[] {
  return nsRun(['ss', '-Hltn'])
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[3] ?? '')
    .filter((a) => a.startsWith(`${addr}:`))
    .map((a) => Number(a.split(':')[1]))
    .sort((x, y) => x - y);
}

describe.skipIf(!RUN)('active scans with nmap against a network namespace', () => {
  const tmp = tempDir('flowgate-scans-');
  const sink = new RecordingSink();
  const listeners: ChildProcess[] = [];
  let s: ApiService;
  const add = (form: Record<string, string>) => s.call(v2('add/host/to_scan'), { form });
  const list = async (q: Record<string, string> = {}) => {
    const r = await s.call(v2('get/host/to_scan_list'), { query: q });
    expect(r.body.rc, r.text).toBe(0);
    return r.body.rsp as Record<string, any>[];
  };
  const entry = async (host: string, type: string) => (await list()).find((e) => e.host === host && e.scan_type === type);
  /** waits until nothing is scheduled or scanning (as the status endpoint tells) */
  const settle = async () => {
    for (let i = 0; i < 600; i++) {
      const st = (await s.call(v2('get/host/vulnerability_scan_status'))).body.rsp.rsp; // ntopng's inner rsp
      if (st.total_in_progress === 0) return st;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('scans did not end');
  };
  const scanAlerts = () => sink.emitted().filter((a) => a.alertId === 4184);

  beforeAll(async () => {
    teardown();
    run('ip', ['netns', 'add', NS]);
    run('ip', ['link', 'add', IF_ROOT, 'type', 'veth', 'peer', 'name', IF_NS]);
    run('ip', ['link', 'set', IF_NS, 'netns', NS]);
    run('ip', ['addr', 'add', `${ME}/24`, 'dev', IF_ROOT]);
    run('ip', ['link', 'set', IF_ROOT, 'up']);
    nsRun(['ip', 'addr', 'add', `${A}/24`, 'dev', IF_NS]);
    nsRun(['ip', 'addr', 'add', `${B}/24`, 'dev', IF_NS]);
    nsRun(['ip', 'link', 'set', IF_NS, 'up']);
    nsRun(['ip', 'link', 'set', 'lo', 'up']);
    // closed UDP ports answer with ICMP at once (Linux limits those replies by default)
    nsRun(['sysctl', '-qw', 'net.ipv4.icmp_ratelimit=0']);
    listeners.push(await listen(A, [22, 8080], [5353]));
    // the capture: a client fetched from A:8080 (the engine sees A serve tcp:8080) and from A:3306
    const p: Packet[] = [];
    let t = 0;
    const push = (src: string, dst: string, l4: Buffer) => p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, l4)) });
    for (const port of [8080, 3306]) {
      push(ME, A, tcp({ sport: 40000 + port, dport: port, flags: TCPF.SYN, seq: 100 }));
      push(A, ME, tcp({ sport: port, dport: 40000 + port, flags: TCPF.SYN | TCPF.ACK, seq: 500, ack: 101 }));
      push(ME, A, tcp({ sport: 40000 + port, dport: port, flags: TCPF.ACK, seq: 101, ack: 501 }));
      push(A, ME, tcp({ sport: port, dport: 40000 + port, flags: TCPF.PSH | TCPF.ACK, seq: 501, ack: 101 }, Buffer.from('hello')));
    }
    s = await startApi({ files: [tmp.file('seen.pcap', pcap(p))], dataDir: join(tmp.dir, 'data'), alerts: sink, history: true });
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    for (const l of listeners) l.kill('SIGKILL');
    teardown();
    tmp.cleanup();
  });

  it('lists the scan types nmap can run here', async () => {
    const r = await s.call(v2('get/host/vulnerability_scan_type_list'));
    expect(r.body.rsp.rsp).toEqual([
      { id: 'tcp_portscan', label: 'TCP Portscan' },
      { id: 'udp_portscan', label: 'UDP Portscan' },
      { id: 'ipv4_netscan', label: 'IPv4 Netscan' },
    ]);
  });

  it('refuses missing and bad values with -8 and adds nothing', async () => {
    const bad: Record<string, string>[] = [
      { scan_type: 'tcp_portscan' },
      { host: A },
      { host: A, scan_type: 'cve' },
      { host: '-oN /tmp/x', scan_type: 'tcp_portscan' },
      { host: `${A};reboot`, scan_type: 'tcp_portscan' },
      { host: A, scan_type: 'tcp_portscan', scan_ports: '22,1-70000' },
      { host: A, scan_type: 'tcp_portscan', scan_ports: '22 -sV' },
      { host: A, scan_type: 'tcp_portscan', scan_frequency: '1hour' },
      { host: A, scan_type: 'tcp_portscan', cidr: '8' },
      { host: 'fe80::1', scan_type: 'ipv4_netscan' },
      { host: NET, scan_type: 'ipv4_netscan', discovered_host_scan_type: 'cve' },
    ];
    for (const f of bad) expect((await add(f)).body.rc, JSON.stringify(f)).toBe(-8);
    expect(await list()).toEqual([]);
  });

  it('a TCP port scan finds the ports listening; its report is nmap\'s; the passive view is compared', async () => {
    expect(ssListening(A)).toEqual([22, 8080]);
    const r = await add({ host: A, scan_type: 'tcp_portscan', scan_ports: '22,80,3306,8080,9090' });
    expect(r.body.rc, r.text).toBe(0);
    expect(r.body.rsp).toEqual({ rsp: 1 }); // ntopng answers {rsp = 1} inside the envelope
    await settle();
    const e = await entry(A, 'tcp_portscan');
    expect(e).toMatchObject({ host: A, scan_type: 'tcp_portscan', ports: '22,80,3306,8080,9090', is_ok_last_scan: 1, is_down: false, num_open_ports: 2, tcp_ports: 2, udp_ports: 0, is_single_scan: true });
    expect(e!.tcp_ports_list.split(',').map((x: string) => x.split('/')[0])).toEqual(['22', '8080']);
    expect(e!.tcp_ports_list).toMatch(/^22\/tcp \(ssh\),8080\/tcp \(/);
    expect(e!.last_scan.epoch).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(e!.last_scan.duration_epoch).toBeGreaterThanOrEqual(1);
    // the capture showed A serving 8080 and 3306: the scan found 22 the engine never saw, and 3306 is no longer open
    expect(e).toMatchObject({ host_in_mem: true, tcp_ports_unused: ['22'], tcp_ports_filtered: ['3306'], tcp_ports_case: 3 });
    const rep = await s.call(v2('get/host/vulnerability_scan_result'), { query: { host: A, scan_type: 'tcp_portscan', scan_return_result: 'true' } });
    expect(rep.body.rsp.rsp).toMatch(/^22\/tcp\s+open/m);
    expect(rep.body.rsp.rsp).toMatch(/^8080\/tcp\s+open/m);
    expect(rep.body.rsp.rsp).toMatch(/^80\/tcp\s+closed/m);
    expect(rep.body.rsp.rsp).not.toMatch(/Starting Nmap|Nmap done/);
    const file = await s.call(v2('get/host/vulnerability_scan_result'), { query: { host: A, scan_type: 'tcp_portscan' } });
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(file.headers.get('content-disposition')).toMatch(new RegExp(`^attachment;filename="scan_result_export_\\d+_${A.replace(/\./g, '\\.')}_tcp_portscan\\.txt"$`));
    expect(file.text).toBe(rep.body.rsp.rsp);
    expect((await s.call(v2('get/host/vulnerability_scan_result'), { query: { host: A } })).body.rc).toBe(-5);
    expect((await s.call(v2('get/host/vulnerability_scan_result'), { query: { host: B, scan_type: 'tcp_portscan' } })).body.rc).toBe(-5);
    // a second add of the same entry: rsp 2, scanned again, nothing changed, no alert
    expect((await add({ host: A, scan_type: 'tcp_portscan', scan_ports: '22,80,3306,8080,9090' })).body.rsp.rsp).toBe(2);
    await settle();
    expect(scanAlerts()).toEqual([]);
  }, 60_000);

  it('a port opened and one closed between two scans raise alert_vulnerability_scan with exactly those ports', async () => {
    listeners.shift()!.kill('SIGKILL');
    listeners.push(await listen(A, [8080, 9090], [5353]));
    expect(ssListening(A)).toEqual([8080, 9090]);
    const r = await s.call(v2('exec/host/schedule_active_scan'), { form: { host: A, scan_type: 'tcp_portscan', scan_single_host: 'true' } });
    expect(r.body.rc, r.text).toBe(0);
    await settle();
    expect((await entry(A, 'tcp_portscan'))!.tcp_ports_list.split(',').map((x: string) => x.split('/')[0])).toEqual(['8080', '9090']);
    const [a, ...more] = scanAlerts();
    expect(more).toEqual([]);
    expect(a).toMatchObject({ family: 'am_host', ifid: -1, entityVal: A, score: 50, fields: { resolved_ip: A, measurement: 'ports_changes_detected' } });
    expect(a!.json).toMatchObject({
      host: A, scan_type: 'tcp_portscan', measurement: 'ports_changes_detected',
      tcp_open_ports: { num: 1, ports: '9090' }, tcp_closed_ports: { num: 1, ports: '22' }, tcp_ports_case: 'ports_open_and_closed',
    });
    // the stored alert, as the alert API lists active monitoring alerts
    await s.checking.alerts.flush();
    const now = Math.floor(Date.now() / 1000);
    const stored = await s.call(v2('get/am_host/alert/list'), { query: { ifid: 0, status: 'historical', epoch_begin: now - 600, epoch_end: now + 600, length: 100 } });
    expect(stored.body.rc, stored.text).toBe(0);
    const rec = (stored.body.rsp.records ?? stored.body.rsp.data ?? stored.body.rsp) as any[];
    expect(rec.map((x) => [x.alert_id.value, x.resolved_ip, x.measurement])).toEqual([['4184', A, 'ports_changes_detected']]);
    // an entry that is not configured cannot be scheduled; the current name of the path works too
    expect((await s.call(v2('exec/host/schedule_vulnerability_scan'), { form: { host: B, scan_type: 'tcp_portscan', scan_single_host: 'true' } })).body.rc).toBe(-8);
  }, 60_000);

  it('a UDP port scan counts the ports that answer, not the silent ones', async () => {
    expect((await add({ host: A, scan_type: 'udp_portscan', scan_ports: '53,161,5353' })).body.rsp.rsp).toBe(1);
    await settle();
    const e = await entry(A, 'udp_portscan');
    expect(e).toMatchObject({ is_ok_last_scan: 1, udp_ports: 1, num_open_ports: 1 });
    expect(e!.udp_ports_list).toMatch(/^5353\/udp/);
    // the engine saw A serve no UDP port: the scan found more
    expect(e).toMatchObject({ host_in_mem: true, udp_ports_unused: ['5353'], udp_ports_case: 4 });
  }, 60_000);

  it('a host that does not answer is reported down, with an alert', async () => {
    expect((await add({ host: NOBODY, scan_type: 'tcp_portscan', scan_ports: '22' })).body.rsp.rsp).toBe(1);
    await settle();
    expect(await entry(NOBODY, 'tcp_portscan')).toMatchObject({ is_ok_last_scan: 5, is_down: true, num_open_ports: 0, host_in_mem: false });
    const down = scanAlerts().filter((a) => a.entityVal === NOBODY);
    expect(down.map((a) => a.json)).toEqual([expect.objectContaining({ host: NOBODY, is_up_check_case: true })]);
    const rep = await s.call(v2('get/host/vulnerability_scan_result'), { query: { host: NOBODY, scan_type: 'tcp_portscan', scan_return_result: 'true' } });
    expect(rep.body.rsp.rsp).toBe('Host down or unreachable.');
  }, 60_000);

  it('a network scan finds the hosts up and adds those no scan knew with its sub-scan type', async () => {
    const before = scanAlerts().length;
    const r = await add({ host: NET, scan_type: 'ipv4_netscan', vs_cidr: '29', discovered_host_scan_type: 'tcp_portscan', scan_ports: '22,8080' });
    expect(r.body.rsp.rsp).toBe(1);
    await settle();
    const net = await entry(NET, 'ipv4_netscan');
    // A already had a tcp_portscan entry; this side of the veth and B are new
    expect(net).toMatchObject({ is_ok_last_scan: 1, cidr: '29', discovered_hosts_num: 2 });
    expect(net!.discovered_hosts.split(',').sort()).toEqual([ME, B].sort());
    const fresh = scanAlerts().slice(before).filter((a) => (a.json as { is_host_not_configured?: boolean }).is_host_not_configured);
    expect(fresh.map((a) => a.entityVal).sort()).toEqual([ME, B].sort());
    // the hosts added were scanned with the network's ports: B listens on nothing
    expect(await entry(B, 'tcp_portscan')).toMatchObject({ is_ok_last_scan: 1, ports: '22,8080', tcp_ports: 0 });
    expect((await list({ netscan_report: 'true' })).map((e) => e.host)).toEqual([NET]);
  }, 60_000);

  it('adds every host of a network found up when a port scan is given a cidr; none up is rsp 3', async () => {
    expect((await add({ host: `10.98.${X}.0`, scan_type: 'udp_portscan', scan_ports: '5353', vs_cidr: '30' })).body.rsp.rsp).toBe(2);
    await settle();
    const udp = (await list()).filter((e) => e.scan_type === 'udp_portscan').map((e) => e.host).sort();
    // nmap's 10.98.X.0/30 is .0 to .3: .1, .2 and .3 are up; A's entry was there already
    expect(udp).toEqual([ME, A, B].sort());
    expect((await add({ host: `10.98.${X}.64`, scan_type: 'tcp_portscan', vs_cidr: '29' })).body.rsp.rsp).toBe(3);
  }, 60_000);

  it('filters the list (search, port, sort) and reports the status', async () => {
    expect((await list({ port: '9090' })).map((e) => `${e.host} ${e.scan_type}`)).toEqual([`${A} tcp_portscan`]);
    expect((await list({ map_search: `.${X}.3` })).map((e) => `${e.host} ${e.scan_type}`).sort()).toEqual([`${B} tcp_portscan`, `${B} udp_portscan`]);
    const sorted = (await list({ sort: 'ip' })).map((e) => e.host);
    expect(sorted.indexOf(NET)).toBeLessThan(sorted.indexOf(ME));
    expect(sorted.indexOf(B)).toBeLessThan(sorted.indexOf(NOBODY));
    const st = (await s.call(v2('get/host/vulnerability_scan_status'))).body.rsp.rsp; // ntopng's inner rsp
    expect(st).toEqual({ total: (await list()).length, total_in_progress: 0, total_in_success: (await list()).length });
  });

  it('scans periodic entries once their period has passed since their last scan', async () => {
    expect((await s.call(v2('edit/host/update_va_scan_period'), { form: { scan_frequency: '1week' } })).body.rsp).toBe(true);
    expect((await s.call(v2('edit/host/update_va_scan_period'), { form: { scan_frequency: 'hourly' } })).body.rc).toBe(-8);
    const e = (await entry(B, 'tcp_portscan'))!;
    expect(e.scan_frequency).toBe('1week');
    // a day later nothing is due; a week later every entry is
    await s.api.scans.checkDue(e.last_scan.epoch + 86400);
    expect((await s.call(v2('get/host/vulnerability_scan_status'))).body.rsp.rsp.total_in_progress).toBe(0);
    await s.api.scans.checkDue(e.last_scan.epoch + 7 * 86400 + 1);
    await settle();
    const after = (await entry(B, 'tcp_portscan'))!;
    expect(after.is_periodicity).toBe(true);
    expect(after.last_scan.epoch).toBeGreaterThanOrEqual(e.last_scan.epoch);
  }, 120_000);

  it('exports the entries with active monitoring (vs_config), and imports them back', async () => {
    const ex = (await s.call(v2('export/active_monitoring/config'))).body.rsp.modules.active_monitoring;
    const hosts = (ex.vs_config as { host: string; scan_type: string }[]).map((v) => `${v.host} ${v.scan_type}`).sort();
    expect(hosts).toEqual((await list()).map((e) => `${e.host} ${e.scan_type}`).sort());
    expect((await s.call(v2('delete/host/delete_host_to_scan'), { form: { host: A, scan_type: 'udp_portscan' } })).body.rc).toBe(0);
    expect(await entry(A, 'udp_portscan')).toBeUndefined();
    expect((await s.call(v2('delete/host/delete_host_to_scan'), { form: { host: A } })).body.rc).toBe(-8);
    expect((await s.call(v2('delete/host/delete_host_to_scan'), { form: { delete_all_scan_hosts: 'true' } })).body.rc).toBe(0);
    expect(await list()).toEqual([]);
    const imp = await s.call(v2('import/active_monitoring/config'), { json: { version: '1.0', modules: { active_monitoring: ex } } });
    expect(imp.body.rc, imp.text).toBe(0);
    const back = await list();
    expect(back.map((e) => `${e.host} ${e.scan_type}`).sort()).toEqual(hosts);
    // imported entries wait for a scan
    expect(new Set(back.map((e) => e.is_ok_last_scan))).toEqual(new Set([3]));
  }, 30_000);

  it('a scan past its deadline is an error (no alert, the previous result kept); without nmap no type is offered', async () => {
    const store = new ConfigStore(join(tmp.dir, 'own'));
    const own = new RecordingSink();
    try {
      const quick = new Scans(store, { alerts: own });
      await quick.add({ host: A, scan_type: 'tcp_portscan', scan_ports: '8080' });
      await quick.settled();
      expect(quick.get(A, 'tcp_portscan')!.last!.tcp.map((p) => p.port)).toEqual([8080]);
      // the same entries, scanned by a service whose nmap runs may last 1 ms
      const slow = new Scans(store, { alerts: own, timeoutMs: 1 });
      await slow.scheduleOne(A, 'tcp_portscan');
      await slow.settled();
      const e = slow.get(A, 'tcp_portscan')!;
      expect(e.is_ok_last_scan).toBe(0);
      expect(e.last_error).toMatch(/did not finish/);
      expect(e.last!.tcp.map((p) => p.port)).toEqual([8080]);
      expect(slow.report(A, 'tcp_portscan')).toMatch(/^Scan failed: nmap did not finish/);
      expect(own.emitted()).toEqual([]);
      const none = new Scans(store, { nmap: null });
      expect(none.typeList()).toEqual([]);
      await expect(none.add({ host: B, scan_type: 'tcp_portscan' })).rejects.toBeInstanceOf(ScanError);
    } finally {
      await store.close();
    }
  }, 30_000);
});
