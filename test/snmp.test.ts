// SNMP devices against a real agent: Debian's snmpd, started by this test in
// a network namespace of its own with v1/v2c communities and a v3 authPriv
// user, on two addresses of a veth. What the service stores is checked
// against `snmpget` of the same OIDs (net-snmp's command-line tool), a /24
// discovery finds exactly the agent's addresses, and a SET of ifAdminStatus
// on a veth inside the namespace changes what `ip link` shows.
//
// Needs root, `ip netns` and snmpd; skipped otherwise, failing under CI.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AlertInput, AlertSink } from '../ts/services/alerts/types.js';
import { portAlerts, stepDeltas, type PortAlert, type SnmpInterface } from '../ts/services/snmp/index.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';

const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const isRoot = process.getuid?.() === 0;
const HAVE = isRoot && ok('ip', ['netns', 'list']) && ok('sh', ['-c', 'command -v snmpd && command -v snmpget']);
const RUN = HAVE || !!process.env.CI;
if (!HAVE) console.warn(`test/snmp.test.ts ${RUN ? 'fails' : 'skipped'}: needs root, ip netns, snmpd and snmpget (Debian's snmpd and snmp packages)`);

const tag = `fgs${process.pid}`;
const NS = tag, IF_ROOT = `${tag}a`, IF_NS = `${tag}b`, VETH = `${tag}x`, VETH_PEER = `${tag}y`;
const X = (process.pid % 200) + 20;
const AGENT = `10.97.${X}.2`, AGENT2 = `10.97.${X}.9`, NET = `10.97.${X}.0`;
const V3 = { user: 'fgv3', auth: 'authpass-123', priv: 'privpass-123' };

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const nsRun = (args: string[]) => run('ip', ['netns', 'exec', NS, ...args]);
function teardown(): void {
  spawnSync('ip', ['netns', 'del', NS], { stdio: 'ignore' });
  spawnSync('ip', ['link', 'del', IF_ROOT], { stdio: 'ignore' });
}

/** net-snmp's own reading of an OID (the independent truth) */
const snmpget = (args: string[], oid: string) => run('snmpget', ['-Oqv', '-t', '2', '-r', '1', ...args, oid]).trim().replace(/^"(.*)"$/s, '$1');
const V2C = (host: string, community = 'public') => ['-v2c', '-c', community, host];

/** the index and the UP flag of a link inside the namespace, as `ip link` shows them */
function link(name: string): { index: number; up: boolean } {
  const line = nsRun(['ip', '-o', 'link', 'show', name]);
  const flags = /<([^>]*)>/.exec(line)![1].split(',');
  return { index: Number(line.split(':')[0]), up: flags.includes('UP') };
}

describe.skipIf(!RUN)('SNMP devices against snmpd in a network namespace', () => {
  const tmp = tempDir('flowgate-snmp-');
  let agent: ChildProcess | undefined;
  let confFile = '';
  /** snmpd in the namespace (`ip netns exec` execs it: the child is snmpd itself); resolves once it answers */
  async function startAgent(): Promise<void> {
    agent = spawn('ip', ['netns', 'exec', NS, 'snmpd', '-f', '-C', '-c', confFile, '-Lf', join(tmp.dir, 'snmpd.log'), '-p', join(tmp.dir, 'snmpd.pid')], {
      env: { ...process.env, SNMP_PERSISTENT_DIR: tmp.dir, MIBS: '' },
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      if (ok('snmpget', ['-v2c', '-c', 'public', '-t', '0.2', '-r', '0', AGENT, '1.3.6.1.2.1.1.5.0'])) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`snmpd does not answer; its log: ${readFileSync(join(tmp.dir, 'snmpd.log'), 'utf8').split('\n').filter((l) => !l.startsWith('Connection from')).join(' | ').slice(-2000)}`);
  }
  let s: ApiService;
  const pro = (p: string) => `/lua/pro/rest/v2/${p}.lua`;
  const add = (q: Record<string, string>) => s.call(pro('add/snmp/device'), { query: q });

  beforeAll(async () => {
    teardown();
    run('ip', ['netns', 'add', NS]);
    run('ip', ['link', 'add', IF_ROOT, 'type', 'veth', 'peer', 'name', IF_NS]);
    run('ip', ['link', 'set', IF_NS, 'netns', NS]);
    run('ip', ['addr', 'add', `10.97.${X}.1/24`, 'dev', IF_ROOT]);
    run('ip', ['link', 'set', IF_ROOT, 'up']);
    nsRun(['ip', 'addr', 'add', `${AGENT}/24`, 'dev', IF_NS]);
    nsRun(['ip', 'addr', 'add', `${AGENT2}/24`, 'dev', IF_NS]);
    nsRun(['ip', 'link', 'set', IF_NS, 'up']);
    nsRun(['ip', 'link', 'set', 'lo', 'up']);
    // the link whose admin status the SET changes
    nsRun(['ip', 'link', 'add', VETH, 'type', 'veth', 'peer', 'name', VETH_PEER]);
    nsRun(['ip', 'link', 'set', VETH, 'up']);
    nsRun(['ip', 'link', 'set', VETH_PEER, 'up']);
    // no IPv6 on the pair: its counters carry only the frames the test sends
    for (const l of [VETH, VETH_PEER]) nsRun(['sysctl', '-qw', `net.ipv6.conf.${l}.disable_ipv6=1`]);
    const conf = tmp.file(
      'agent.conf', // not snmpd.conf: snmpd writes its persistent data there in SNMP_PERSISTENT_DIR
      [
        `agentAddress udp:${AGENT}:161,udp:${AGENT2}:161`,
        'rocommunity public default',
        'rwcommunity private default',
        `createUser ${V3.user} SHA "${V3.auth}" AES "${V3.priv}"`,
        `rwuser ${V3.user} priv`,
        'sysName fg-snmp-agent',
        'sysLocation rack 42',
        'sysContact ops@example.org',
        '',
      ].join('\n'),
    );
    confFile = conf;
    await startAgent();
    const file = tmp.file('one.pcap', pcap([{ tsNs: sec(1_700_000_000), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1, dport: 2 }))) }]));
    s = await startApi({ files: [file], dataDir: join(tmp.dir, 'data'), timeseries: true, alerts: sink });
    // the tests poll at times of their own (pollAll(now)): the service's poll on the wall
    // clock's 5-minute boundaries would take a step's delta in between (seen in CI once)
    s.api.snmp!.stop();
  }, 60_000);
  const raised: AlertInput[] = [];
  const sink = { engage: () => {}, release: () => {}, emit: (a: AlertInput) => void raised.push(a), engaged: () => [] } as unknown as AlertSink;

  afterAll(async () => {
    await s?.close();
    agent?.kill('SIGTERM');
    teardown();
    tmp.cleanup();
  });

  it('adds a v2c device that answers, storing its system group as snmpget reads it; a second add is -10', async () => {
    const r = await add({ snmp_host: AGENT, snmp_version: '1', snmp_read_community: 'public', snmp_write_community: 'private' });
    expect(r.body.rc, r.text).toBe(0);
    expect(r.body.rsp).toEqual({ added_devices: [{ ip: AGENT }] });
    const sys = (await s.call(pro('get/snmp/device/system'), { query: { host: AGENT } })).body.rsp[0];
    expect(sys.sysName).toBe(snmpget(V2C(AGENT), '1.3.6.1.2.1.1.5.0'));
    expect(sys.sysName).toBe('fg-snmp-agent');
    expect(sys.sysLocation).toBe(snmpget(V2C(AGENT), '1.3.6.1.2.1.1.6.0'));
    expect(sys.sysContact).toBe('ops@example.org');
    expect(sys.sysDescr).toBe(snmpget(V2C(AGENT), '1.3.6.1.2.1.1.1.0'));
    expect(sys.sysObjectID).toBe(snmpget(['-On', ...V2C(AGENT)], '1.3.6.1.2.1.1.2.0').replace(/^\./, ''));
    const list = (await s.call(pro('get/snmp/device/list'))).body.rsp;
    expect(list).toEqual([expect.objectContaining({ ip: AGENT, name: 'fg-snmp-agent', version: 1 })]);
    expect((await add({ snmp_host: AGENT, snmp_version: '1', snmp_read_community: 'public' })).body.rc).toBe(-10);
  });

  it('a community the agent does not know is -11; a name that does not resolve -9; not a host -4; bad arguments -5', async () => {
    expect((await add({ snmp_host: AGENT2, snmp_version: '1', snmp_read_community: 'wrong' })).body.rc).toBe(-11);
    expect((await add({ snmp_host: 'no-such-device.invalid', snmp_version: '1', snmp_read_community: 'public' })).body.rc).toBe(-9);
    expect((await add({ snmp_host: 'bad host; rm -rf /', snmp_version: '1', snmp_read_community: 'public' })).body.rc).toBe(-4);
    const bad: Record<string, string>[] = [
      { snmp_host: AGENT2, snmp_version: '7', snmp_read_community: 'public' },
      { snmp_host: AGENT2, snmp_version: '1' },
      { snmp_host: AGENT2, snmp_version: '1', snmp_read_community: 'public', cidr: '16' },
      { snmp_host: AGENT2, snmp_version: '2', snmp_read_community: V3.user, snmp_level: 'authPriv', snmp_auth_protocol: 'SHA', snmp_auth_passphrase: 'short', snmp_privacy_protocol: 'AES', snmp_privacy_passphrase: V3.priv },
      { snmp_host: AGENT2, snmp_version: '2', snmp_read_community: V3.user, snmp_level: 'authPriv', snmp_auth_protocol: 'SHA512', snmp_auth_passphrase: V3.auth },
      { snmp_host: AGENT2, snmp_version: '2', snmp_read_community: V3.user, snmp_level: 'everything' },
      { snmp_version: '1', snmp_read_community: 'public' },
    ];
    for (const q of bad) expect((await add(q)).body.rc, JSON.stringify(q)).toBe(-5);
    expect((await s.call(pro('get/snmp/device/list'))).body.rsp.map((d: { ip: string }) => d.ip)).toEqual([AGENT]);
  });

  it('discovers the /24: only the agent addresses not added yet; then none left is -12', async () => {
    const r = await add({ snmp_host: `10.97.${X}.77`, cidr: '24', snmp_version: '0', snmp_read_community: 'public' });
    expect(r.body.rc, r.text).toBe(0);
    expect(r.body.rsp).toEqual({ added_devices: [{ ip: AGENT2 }] });
    expect((await add({ snmp_host: NET, cidr: '24', snmp_version: '0', snmp_read_community: 'public' })).body.rc).toBe(-12);
    const list = (await s.call(pro('get/snmp/device/list'))).body.rsp;
    expect(list.map((d: { ip: string; version: number }) => [d.ip, d.version])).toEqual([[AGENT, 1], [AGENT2, 0]]);
  }, 60_000);

  it('edits a device to SNMPv3 authPriv (checked against the agent first); wrong passphrases are -11, unknown devices -22', async () => {
    const v3 = { snmp_host: AGENT2, snmp_version: '2', snmp_read_community: V3.user, snmp_level: 'authPriv', snmp_auth_protocol: 'SHA', snmp_auth_passphrase: V3.auth, snmp_privacy_protocol: 'AES', snmp_privacy_passphrase: V3.priv };
    const r = await s.call('/lua/pro/rest/v1/edit/snmp/device/device.lua', { query: v3 });
    expect(r.body.rc, r.text).toBe(0);
    // net-snmp's snmpget with the same user agrees the agent answers v3 authPriv
    expect(snmpget(['-v3', '-l', 'authPriv', '-u', V3.user, '-a', 'SHA', '-A', V3.auth, '-x', 'AES', '-X', V3.priv, AGENT2], '1.3.6.1.2.1.1.5.0')).toBe('fg-snmp-agent');
    expect((await s.call(pro('get/snmp/device/list'))).body.rsp.find((d: { ip: string }) => d.ip === AGENT2).version).toBe(2);
    expect((await s.call('/lua/pro/rest/v1/edit/snmp/device/device.lua', { query: { ...v3, snmp_privacy_passphrase: 'not-the-one' } })).body.rc).toBe(-11);
    expect((await s.call('/lua/pro/rest/v1/edit/snmp/device/device.lua', { query: { ...v3, snmp_host: `10.97.${X}.200` } })).body.rc).toBe(-22);
  }, 30_000);

  it('sets an interface down and up with the write community: ip link follows; a device without one is -26', async () => {
    const { index } = link(VETH);
    expect(link(VETH).up).toBe(true);
    const status = (host: string, st: string, idx: number | string = index) =>
      s.call(pro('change/snmp/device/interface/status'), { query: { host, snmp_admin_status: st, snmp_port_idx: idx } });
    let r = await status(AGENT, 'down');
    expect(r.body.rc, r.text).toBe(0);
    expect(r.body.rsp).toEqual([]);
    expect(link(VETH).up).toBe(false);
    // the agent's own reading agrees: ifAdminStatus 2 (down)
    expect(snmpget(V2C(AGENT), `1.3.6.1.2.1.2.2.1.7.${index}`)).toMatch(/^(2|down)/);
    r = await status(AGENT, 'up');
    expect(r.body.rc, r.text).toBe(0);
    expect(link(VETH).up).toBe(true);
    // the v3 device (a rwuser) may SET too
    expect((await status(AGENT2, 'down')).body.rc).toBe(0);
    expect(link(VETH).up).toBe(false);
    expect((await status(AGENT2, 'up')).body.rc).toBe(0);
    // a v1 device added without a write community cannot
    await s.call(pro('delete/snmp/device'), { query: { host: AGENT2 } });
    expect((await add({ snmp_host: AGENT2, snmp_version: '0', snmp_read_community: 'public' })).body.rc).toBe(0);
    expect((await status(AGENT2, 'down')).body.rc).toBe(-26);
    expect(link(VETH).up).toBe(true);
    expect((await status(AGENT, 'sideways')).body.rc).toBe(-5);
    expect((await status(AGENT, 'down', 'x')).body.rc).toBe(-5);
    expect((await status(`10.97.${X}.200`, 'down')).body.rc).toBe(-4);
  }, 30_000);

  it('the devices are the members snmp_device pools take (others are refused, -13)', async () => {
    const ok = await s.call('/lua/pro/rest/v2/add/snmp/device/pool.lua', { form: { pool_name: 'Agents', pool_members: `${AGENT},${AGENT2}` } });
    expect(ok.body.rc, ok.text).toBe(0);
    const all = (await s.call('/lua/pro/rest/v2/get/snmp/device/pools.lua')).body.rsp as { pool_id: number; members: string[] }[];
    expect(all.find((p) => p.pool_id === ok.body.rsp.pool_id)!.members.sort()).toEqual([AGENT, AGENT2].sort());
    expect((await s.call('/lua/pro/rest/v2/add/snmp/device/pool.lua', { form: { pool_name: 'Others', pool_members: `10.97.${X}.200` } })).body.rc).toBe(-13);
  });

  it('exports the devices with the configuration, deletes one (-5 for an unknown one), and imports it back', async () => {
    const exp = await s.call('/lua/rest/v2/export/snmp/config.lua');
    expect(exp.body.rc, exp.text).toBe(0);
    const snmp = exp.body.rsp.modules.snmp;
    expect(snmp[AGENT]).toMatchObject({ snmp_host: AGENT, snmp_version: '1', snmp_read_community: 'public', snmp_write_community: 'private' });
    expect((await s.call(pro('delete/snmp/device'), { query: { host: AGENT } })).body.rc).toBe(0);
    expect((await s.call(pro('delete/snmp/device'), { query: { host: AGENT } })).body.rc).toBe(-5);
    expect((await s.call(pro('get/snmp/device/list'))).body.rsp.map((d: { ip: string }) => d.ip)).toEqual([AGENT2]);
    const imp = await s.call('/lua/rest/v2/import/snmp/config.lua', { json: exp.body.rsp });
    expect(imp.body.rc, imp.text).toBe(0);
    expect((await s.call(pro('get/snmp/device/list'))).body.rsp.map((d: { ip: string }) => d.ip)).toEqual([AGENT, AGENT2]);
  });

  it('polls the interface tables: counter deltas as snmp_if series (64-bit and v1 32-bit), a status change as an alert', async () => {
    const { index } = link(VETH), peer = link(VETH_PEER).index;
    const now = Math.floor(Date.now() / 1000);
    await s.api.snmp.pollAll(now);
    const first = (await s.call(pro('get/snmp/device/interfaces'), { query: { host: AGENT } })).body.rsp[0].interfaces.find((x: { index: number }) => x.index === index);
    // frames of known sizes out of the veth (no address on it: nothing else crosses it)
    const frames = Array.from({ length: 12 }, (_, i) => eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '198.51.100.1', dst: '198.51.100.2', proto: IPPROTO.UDP }, udp({ sport: 7000 + i, dport: 9 }, Buffer.alloc(40 + 90 * i, i)))));
    const py = ['import socket, sys', 's = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)', 's.bind((sys.argv[1], 0))', 'for h in sys.argv[2:]:', '    s.send(bytes.fromhex(h))'].join('\n');
    nsRun(['python3', '-c', py, VETH, ...frames.map((f) => f.toString('hex'))]);
    const bytes = frames.reduce((a, f) => a + f.length, 0);
    // snmpd caches its interface table for a few seconds: poll once it shows the frames
    const hcOut = () => Number(snmpget(V2C(AGENT), `1.3.6.1.2.1.31.1.1.1.10.${index}`));
    for (let i = 0; i < 150 && hcOut() < first.out_bytes + bytes; i++) await new Promise((r) => setTimeout(r, 100));
    expect(hcOut()).toBe(first.out_bytes + bytes);
    await s.api.snmp.pollAll(now + 1);
    // the interfaces as polled, against snmpget of the same counters
    const ifs = (await s.call(pro('get/snmp/device/interfaces'), { query: { host: AGENT } })).body.rsp[0];
    const v = ifs.interfaces.find((x: { index: number }) => x.index === index);
    expect(v).toMatchObject({ name: VETH, hc: true, admin_status: 1, oper_status: 1 });
    expect(v.out_bytes).toBe(Number(snmpget(V2C(AGENT), `1.3.6.1.2.1.31.1.1.1.10.${index}`)));
    await s.timeseries!.flush();
    const series = async (device: string, idx: number) => {
      const r = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'snmp_if:traffic', ts_query: `ifid:-1,device:${device},if_index:${idx}`, epoch_begin: now - 600, epoch_end: now + 300 } });
      expect(r.body.rc, r.text).toBe(0);
      const m = Object.fromEntries((r.body.rsp.series as { id: string; data: (number | null)[] }[]).map((x) => [x.id, x.data.filter((d) => d !== null)]));
      // per-second rates over the 300-second step: × 300 is what the step carried
      return { sent: (m.bytes_sent ?? []).map((x) => Math.round(x * 300)), rcvd: (m.bytes_rcvd ?? []).map((x) => Math.round(x * 300)) };
    };
    expect(await series(AGENT, index)).toEqual({ sent: [bytes], rcvd: [0] });
    expect(await series(AGENT, peer)).toEqual({ sent: [0], rcvd: [bytes] });
    // the v1 device: ifTable's 32-bit counters, the same deltas
    expect(await series(AGENT2, index)).toEqual({ sent: [bytes], rcvd: [0] });
    // the peer goes down: the veth's operational status changes, an alert_port_status_change per device;
    // 5 frames sent on it now are dropped (the kernel's tx_dropped, the agent's ifOutDiscards)
    nsRun(['ip', 'link', 'set', VETH_PEER, 'down']);
    raised.length = 0;
    const discards = () => Number(snmpget(V2C(AGENT), `1.3.6.1.2.1.2.2.1.19.${index}`));
    const discardsBefore = discards();
    nsRun(['python3', '-c', py, VETH, ...frames.slice(0, 5).map((f) => f.toString('hex'))]);
    const oper = () => snmpget(['-On', ...V2C(AGENT)], `1.3.6.1.2.1.2.2.1.8.${index}`);
    for (let i = 0; i < 150 && (/^(1|up)/.test(oper()) || discards() < discardsBefore + 5); i++) await new Promise((r) => setTimeout(r, 100));
    expect(discards()).toBe(discardsBefore + 5);
    await s.api.snmp.pollAll(now + 2);
    const alerts = raised.filter((a) => a.alertId === 4096 + 28 && a.entityVal === AGENT && a.subtype === String(index));
    expect(alerts.length).toBe(1);
    // the discards grew on the veth (alert_port_errors); its traffic and its peer's stopped after a step with
    // the frames (alert_snmp_device_traffic_change, curr_traffic 0); the link to the root namespace carried SNMP both steps
    const on = (id: number, idx: number) => raised.filter((a) => a.alertId === id && a.entityVal === AGENT && a.subtype === String(idx)).map((a) => a.json);
    expect(on(4096 + 25, index)).toEqual([{ device: AGENT, device_name: 'fg-snmp-agent', interface: index, interface_name: VETH }]);
    expect(on(4096 + 25, peer)).toEqual([]);
    expect(on(4096 + 81, index)).toEqual([{ device: AGENT, device_name: 'fg-snmp-agent', interface: index, interface_name: VETH, curr_traffic: 0, prev_traffic: bytes }]);
    expect(on(4096 + 81, peer)).toEqual([{ device: AGENT, device_name: 'fg-snmp-agent', interface: peer, interface_name: VETH_PEER, curr_traffic: 0, prev_traffic: bytes }]);
    expect(on(4096 + 81, link(IF_NS).index)).toEqual([]);
    expect(raised.filter((a) => a.alertId === 4096 + 80)).toEqual([]);
    expect(alerts[0].json).toEqual({ device: AGENT, device_name: 'fg-snmp-agent', interface: index, interface_name: VETH, status: Number(snmpget(['-On', ...V2C(AGENT)], `1.3.6.1.2.1.2.2.1.8.${index}`).replace(/\D.*$/, '')) });
    expect(alerts[0].json.status).not.toBe(1);
    nsRun(['ip', 'link', 'set', VETH_PEER, 'up']);
  }, 30_000);

  it('a device that stops answering raises one polling error; one that restarted (sysUpTime back) a device reset', async () => {
    const now = Math.floor(Date.now() / 1000) + 10;
    const of = (id: number) => raised.filter((a) => a.alertId === id).map((a) => [a.entityVal, (a.json as { reason?: string }).reason ?? '']);
    raised.length = 0;
    // the agent's own pid (its pid file), whatever `ip netns exec` did
    const pid = () => Number(readFileSync(join(tmp.dir, 'snmpd.pid'), 'utf8').trim());
    const agentPid = pid();
    process.kill(agentPid, 'SIGSTOP');
    try {
      await s.api.snmp.pollAll(now);
      await s.api.snmp.pollAll(now + 1); // still failing: no second alert
    } finally {
      process.kill(agentPid, 'SIGCONT');
    }
    expect(of(4096 + 95).sort()).toEqual([[AGENT, 'no answer to a GET of the system group'], [AGENT2, 'no answer to a GET of the system group']]);
    const st = (await s.call(pro('get/snmp/device/interfaces'), { query: { host: AGENT } })).body.rsp[0];
    expect(st.error).toBe('no answer to a GET of the system group');
    // answering again, then restarted: its uptime starts over
    await s.api.snmp.pollAll(now + 2);
    const uptime = Number(snmpget(['-Ot', ...V2C(AGENT)], '1.3.6.1.2.1.1.3.0'));
    process.kill(agentPid, 'SIGTERM');
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(agentPid, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await startAgent();
    expect(Number(snmpget(['-Ot', ...V2C(AGENT)], '1.3.6.1.2.1.1.3.0'))).toBeLessThan(uptime);
    raised.length = 0;
    await s.api.snmp.pollAll(now + 3);
    expect(of(4096 + 34).sort()).toEqual([[AGENT, ''], [AGENT2, '']]);
    expect(of(4096 + 95)).toEqual([]);
  }, 60_000);

  it('keeps the devices across a restart (LMDB)', async () => {
    const dataDir = s.dataDir;
    const before = (await s.call(pro('get/snmp/device/list'))).body.rsp;
    await s.close();
    s = await startApi({ files: [tmp.file('one.pcap')], dataDir, timeseries: true });
    expect((await s.call(pro('get/snmp/device/list'))).body.rsp).toEqual(before);
  });
});

// ntopng's SNMP behavioural checks on counters worked out by hand
describe('SNMP interface checks between two polls', () => {
  const base: SnmpInterface = {
    index: 3, name: 'eth0', descr: 'eth0', alias: '', type: 6, speed: 1e9, admin_status: 1, oper_status: 1,
    in_bytes: 1000, out_bytes: 2000, in_ucast: 10, out_ucast: 20, in_nucast: 0, out_nucast: 0, in_discards: 0, out_discards: 0, in_errors: 0, out_errors: 0, hc: false,
  };
  const ids = (a: PortAlert[]) => a.map((x) => x.alertId);
  it('errors over 5 % of the packets (errored packets counted in the total) raise both error alerts; 5 % exactly only the first', () => {
    // 94 good packets + 6 errors: 6 %
    const six = stepDeltas(base, { ...base, in_ucast: 10 + 94, in_errors: 6, in_bytes: 1100 });
    expect(six).toEqual({ bytes: 100, packets: 94, errors: 6, discards: 0 });
    expect(portAlerts(six, 50)).toEqual([{ alertId: 4096 + 25 }, { alertId: 4096 + 80, errors: 6 }]);
    const five = stepDeltas(base, { ...base, in_ucast: 10 + 95, out_errors: 5, in_bytes: 1100 });
    expect(ids(portAlerts(five, 50))).toEqual([4096 + 25]);
    // discards alone
    expect(ids(portAlerts(stepDeltas(base, { ...base, out_discards: 1, in_bytes: 1001 }), 1))).toEqual([4096 + 25]);
  });
  it('a 32-bit counter wraps; a 64-bit one going back is a reset and raises nothing', () => {
    const wrap = stepDeltas({ ...base, in_bytes: 2 ** 32 - 10 }, { ...base, in_bytes: 5 });
    expect(wrap.bytes).toBe(15);
    const reset = stepDeltas({ ...base, hc: true, in_bytes: 5000 }, { ...base, hc: true, in_bytes: 10 });
    expect(reset.bytes).toBeNull();
    expect(portAlerts(reset, 0)).toEqual([]);
  });
  it('traffic started or stopped against the step before; nothing without one', () => {
    const none = stepDeltas(base, base), some = stepDeltas(base, { ...base, out_bytes: 2600 });
    expect(portAlerts(some, 0)).toEqual([{ alertId: 4096 + 81, curr_traffic: 600, prev_traffic: 0 }]);
    expect(portAlerts(none, 600)).toEqual([{ alertId: 4096 + 81, curr_traffic: 0, prev_traffic: 600 }]);
    expect(portAlerts(some, 10)).toEqual([]);
    expect(portAlerts(none, 0)).toEqual([]);
    expect(portAlerts(some, undefined)).toEqual([]);
  });
});

// the agent's answers are not needed to check what an unprivileged user may do
describe('SNMP endpoints need an administrator to change devices', () => {
  let s: ApiService;
  const tmp = tempDir('flowgate-snmp-perm-');
  beforeAll(async () => {
    const file = tmp.file('one.pcap', pcap([{ tsNs: sec(1_700_000_000), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1, dport: 2 }))) }]));
    s = await startApi({ files: [file] });
    const r = await s.call('/lua/rest/v2/add/ntopng/user.lua', { form: { username: 'viewer', full_name: 'V', password: 'pw-viewer-1', confirm_password: 'pw-viewer-1', user_role: 'unprivileged' } });
    expect(r.body.rc).toBe(0);
  });
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });
  it('add, edit, delete and status are -3 for an unprivileged user; the (empty) list is served', async () => {
    const as = { user: 'viewer', pw: 'pw-viewer-1' };
    for (const p of ['add/snmp/device', 'delete/snmp/device', 'change/snmp/device/interface/status']) {
      expect((await s.call(`/lua/pro/rest/v2/${p}.lua`, { ...as, query: { snmp_host: '10.0.0.1', host: '10.0.0.1' } })).body.rc, p).toBe(-3);
    }
    expect((await s.call('/lua/pro/rest/v1/edit/snmp/device/device.lua', { ...as, query: { snmp_host: '10.0.0.1' } })).body.rc).toBe(-3);
    const l = await s.call('/lua/pro/rest/v2/get/snmp/device/list.lua', as);
    expect([l.body.rc, l.body.rsp]).toEqual([0, []]);
  });
});
