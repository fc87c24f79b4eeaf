// Gateway ('edge') mode in network namespaces made here: LAN1, LAN2 and WAN
// around a gateway namespace where `flowgate --edge-lan l1 --edge-lan l2
// --edge-wan w0` runs as an operator starts it, its API on a management veth.
// What the API sets is checked by what the kernel does and says: pings
// between the namespaces (the inter-LAN policy, a WAN down), `ip link` (VLANs,
// WAN state), `nft list` (the ruleset) and pings of the WAN gateway.
//
// Needs root, `ip netns`, nft and ping; skipped otherwise, failing under CI.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { tempDir } from './fixtures/pcap.js';

const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const HAVE = process.getuid?.() === 0 && ok('ip', ['netns', 'list']) && ok('sh', ['-c', 'command -v nft && command -v ping && command -v dnsmasq && command -v udhcpc']);
const RUN = HAVE || !!process.env.CI;
if (!HAVE) console.warn(`test/edge.test.ts ${RUN ? 'fails' : 'skipped'}: needs root, ip netns, nft (Debian's nftables), ping, dnsmasq and udhcpc`);

const ROOT = join(import.meta.dirname, '..');
const tag = `fge${process.pid % 100000}`;
const NS = { gw: `${tag}g`, lan1: `${tag}a`, lan2: `${tag}b`, wan: `${tag}w` };
const MGMT = `${tag}m`;
const X = (process.pid % 200) + 20;
const net = (n: number, h: number) => `10.${X}.${n}.${h}`;
const API_IP = net(9, 2);
const PW = 'Edge-admin-1';

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const inNs = (ns: string, args: string[]) => sh('ip', ['netns', 'exec', ns, ...args]);
const ping = (from: string, to: string) => spawnSync('ip', ['netns', 'exec', from, 'ping', '-n', '-c', '1', '-W', '1', to], { stdio: 'ignore' }).status === 0;
function teardown(): void {
  for (const ns of Object.values(NS)) spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  spawnSync('ip', ['link', 'del', MGMT], { stdio: 'ignore' });
}
/** `ip -j link show` of a link in the gateway namespace (null: no such link) */
function link(name: string): { flags: string[]; linkinfo?: { info_kind?: string; info_data?: { id?: number } }; address: string } | null {
  const r = spawnSync('ip', ['-n', NS.gw, '-d', '-j', 'link', 'show', name], { encoding: 'utf8' });
  return r.status === 0 ? JSON.parse(r.stdout)[0] : null;
}

describe.skipIf(!RUN)('gateway mode in network namespaces', () => {
  const tmp = tempDir('flowgate-edge-');
  let svc: ChildProcess | undefined;
  let base = '';
  const call = async (path: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`admin:${PW}`).toString('base64')}` };
    const init: RequestInit = form ? { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() } : { headers };
    const r = await fetch(`${base}${path}`, init);
    return (await r.json()) as { rc: number; rsp: any; rc_str_detail?: string };
  };
  const pro = (p: string) => `/lua/pro/rest/v2/${p}.lua`;
  const plain = (p: string) => `/lua/rest/v2/${p}.lua`;

  async function start(): Promise<void> {
    const port = 3000 + (process.pid % 2000);
    svc = spawn('ip', ['netns', 'exec', NS.gw, process.execPath, join(ROOT, 'bin', 'flowgate.js'), '--edge-lan', 'l1', '--edge-lan', 'l2', '--edge-wan', 'w0', '--http-port', String(port), '--bind', API_IP, '--egress-port', '0', '--data-dir', join(tmp.dir, 'data'), '--admin-password', PW, '-q'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      svc!.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        if (/monitoring API on/.test(out)) resolve();
      });
      svc!.stderr!.on('data', (b: Buffer) => (out += b.toString()));
      svc!.once('exit', (c) => reject(new Error(`flowgate exited ${c}: ${out}`)));
    });
    base = `http://${API_IP}:${port}`;
  }
  async function stop(): Promise<void> {
    if (!svc) return;
    const done = new Promise((r) => svc!.once('exit', r));
    svc.kill('SIGTERM');
    await done;
    svc = undefined;
  }

  beforeAll(async () => {
    teardown();
    for (const ns of Object.values(NS)) sh('ip', ['netns', 'add', ns]);
    const pair = (a: string, an: string, b: string, bn: string) => {
      sh('ip', ['link', 'add', `${tag}t`, 'netns', a, 'type', 'veth', 'peer', 'name', `${tag}u`, 'netns', b]);
      sh('ip', ['-n', a, 'link', 'set', `${tag}t`, 'name', an]);
      sh('ip', ['-n', b, 'link', 'set', `${tag}u`, 'name', bn]);
    };
    pair(NS.gw, 'l1', NS.lan1, 'eth0');
    pair(NS.gw, 'l2', NS.lan2, 'eth0');
    pair(NS.gw, 'w0', NS.wan, 'eth0');
    // management: the API on the gateway side of a veth from this namespace
    sh('ip', ['link', 'add', MGMT, 'type', 'veth', 'peer', 'name', `${tag}n`, 'netns', NS.gw]);
    sh('ip', ['addr', 'add', `${net(9, 1)}/24`, 'dev', MGMT]);
    sh('ip', ['link', 'set', MGMT, 'up']);
    const gw = (args: string[]) => sh('ip', ['-n', NS.gw, ...args]);
    gw(['link', 'set', `${tag}n`, 'name', 'm0']);
    gw(['addr', 'add', `${API_IP}/24`, 'dev', 'm0']);
    for (const [i, n] of [['l1', 1], ['l2', 2]] as const) gw(['addr', 'add', `${net(n, 1)}/24`, 'dev', i]);
    gw(['addr', 'add', `${net(3, 2)}/24`, 'dev', 'w0']);
    for (const l of ['lo', 'm0', 'l1', 'l2', 'w0']) gw(['link', 'set', l, 'up']);
    gw(['route', 'add', 'default', 'via', net(3, 1), 'dev', 'w0']);
    for (const [ns, n] of [[NS.lan1, 1], [NS.lan2, 2]] as const) {
      sh('ip', ['-n', ns, 'addr', 'add', `${net(n, 2)}/24`, 'dev', 'eth0']);
      sh('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      sh('ip', ['-n', ns, 'route', 'add', 'default', 'via', net(n, 1)]);
    }
    // the WAN side: the ISP's gateway, routing the LANs back (no NAT)
    sh('ip', ['-n', NS.wan, 'addr', 'add', `${net(3, 1)}/24`, 'dev', 'eth0']);
    sh('ip', ['-n', NS.wan, 'link', 'set', 'eth0', 'up']);
    sh('ip', ['-n', NS.wan, 'route', 'add', `10.${X}.0.0/16`, 'via', net(3, 2)]);
    await start();
  }, 60_000);

  afterAll(async () => {
    await stop();
    teardown();
    tmp.cleanup();
  });

  it('lists the interfaces with their roles and the kernel\'s view of them', async () => {
    const r = await call(pro('get/edge/interfaces'));
    expect(r.rc, r.rc_str_detail).toBe(0);
    const by = Object.fromEntries((r.rsp as any[]).map((x) => [x.ifname, x]));
    expect(Object.keys(by)).toEqual(['l1', 'l2', 'w0']);
    expect(by.l1).toMatchObject({ role: 'lan', present: true, up: true, mac: link('l1')!.address });
    expect(by.w0).toMatchObject({ role: 'wan', enabled: true, up: true, mac: link('w0')!.address });
    // forwarding is on (a gateway forwards)
    expect(inNs(NS.gw, ['cat', '/proc/sys/net/ipv4/ip_forward']).trim()).toBe('1');
    // nEdge's spelling of the paths answers alike
    expect((await call(plain('get/nedge/interfaces'))).rsp).toEqual(r.rsp);
  });

  it('enforces the inter-LAN policy: default deny stops LAN to LAN, not LAN to WAN; rules open one way or both', async () => {
    expect(ping(NS.lan1, net(2, 2))).toBe(true);
    expect((await call(pro('set/edge/policy/default'), { default_policy: 'deny' })).rc).toBe(0);
    expect((await call(pro('get/edge/policy/default'))).rsp).toEqual({ default_policy: 'deny' });
    expect(ping(NS.lan1, net(2, 2))).toBe(false);
    expect(ping(NS.lan2, net(1, 2))).toBe(false);
    expect(ping(NS.lan1, net(3, 1))).toBe(true);
    // LAN1's network may reach l2, one way: LAN1 → LAN2 answers (the reply of an accepted connection), LAN2 → LAN1 does not
    const add = await call(pro('add/edge/policy/rule'), { src_type: 'cidr', src_value: `10.${X}.1.0/24`, dst_type: 'interface', dst_value: 'l2', bidirectional: 'false', policy: 'accept' });
    expect(add.rc, add.rc_str_detail).toBe(0);
    const id = String(add.rsp.rule_id);
    expect(ping(NS.lan1, net(2, 2))).toBe(true);
    expect(ping(NS.lan2, net(1, 2))).toBe(false);
    // the kernel's ruleset holds it
    const table = inNs(NS.gw, ['nft', 'list', 'table', 'inet', 'flowgate_edge']);
    expect(table).toContain(`ip saddr 10.${X}.1.0/24 oifname "l2" accept`);
    expect(table).toMatch(/drop comment "default policy"/);
    // both ways now
    const ed = await call(pro('edit/edge/policy/rule'), { rule_id: id, src_type: 'cidr', src_value: `10.${X}.1.0/24`, dst_type: 'interface', dst_value: 'l2', bidirectional: 'true', policy: 'accept' });
    expect(ed.rc, ed.rc_str_detail).toBe(0);
    expect(ping(NS.lan2, net(1, 2))).toBe(true);
    expect((await call(pro('get/edge/policy/rules'))).rsp).toEqual([
      { rule_id: Number(id), source: { type: 'cidr', value: `10.${X}.1.0/24` }, destination: { type: 'interface', value: 'l2' }, bidirectional: true, action: 'accept' },
    ]);
    // a deny placed before it wins
    const deny = await call(pro('add/edge/policy/rule'), { src_type: 'interface', src_value: 'l2', dst_type: 'cidr', dst_value: net(1, 2), bidirectional: 'false', policy: 'deny' });
    expect(deny.rc).toBe(0);
    expect(ping(NS.lan2, net(1, 2))).toBe(true);
    expect((await call(pro('edit/edge/policy/rule'), { rule_id: String(deny.rsp.rule_id), new_rule_id: '1', src_type: 'interface', src_value: 'l2', dst_type: 'cidr', dst_value: net(1, 2), bidirectional: 'false', policy: 'deny' })).rc).toBe(0);
    expect((await call(pro('get/edge/policy/rules'))).rsp.map((r: any) => [r.rule_id, r.action])).toEqual([[1, 'deny'], [2, 'accept']]);
    expect(ping(NS.lan2, net(1, 2))).toBe(false);
    expect(ping(NS.lan1, net(2, 2))).toBe(true);
    // bad values are -5 and change nothing
    for (const f of [
      { src_type: 'host', src_value: 'x', dst_type: 'interface', dst_value: 'l2', bidirectional: 'true', policy: 'accept' },
      { src_type: 'cidr', src_value: '10.1.1.1/40', dst_type: 'interface', dst_value: 'l2', bidirectional: 'true', policy: 'accept' },
      { src_type: 'interface', src_value: 'w0', dst_type: 'interface', dst_value: 'l2', bidirectional: 'true', policy: 'accept' },
      { src_type: 'interface', src_value: 'l1', dst_type: 'interface', dst_value: 'l2"; flush ruleset; "', bidirectional: 'true', policy: 'accept' },
      { src_type: 'interface', src_value: 'l1', dst_type: 'interface', dst_value: 'l2', bidirectional: 'yes', policy: 'accept' },
      { src_type: 'interface', src_value: 'l1', dst_type: 'interface', dst_value: 'l2', bidirectional: 'true', policy: 'allow' },
    ]) expect((await call(pro('add/edge/policy/rule'), f)).rc, JSON.stringify(f)).toBe(-5);
    expect((await call(pro('set/edge/policy/default'), { default_policy: 'maybe' })).rc).toBe(-5);
    expect((await call(plain('delete/edge/policy/rule'), { rule_id: '99' })).rc).toBe(-5);
    expect((await call(pro('get/edge/policy/rules'))).rsp).toHaveLength(2);
    // deleting both, then accept by default again
    for (const r of ['1', '2']) expect((await call(plain('delete/edge/policy/rule'), { rule_id: r })).rc).toBe(0);
    expect(ping(NS.lan1, net(2, 2))).toBe(false);
    expect((await call(pro('set/edge/policy/default'), { default_policy: 'accept' })).rc).toBe(0);
    expect(ping(NS.lan2, net(1, 2))).toBe(true);
  }, 60_000);

  it('adds a VLAN that ip link shows and that carries traffic; removes it', async () => {
    const r = await call(pro('add/edge/vlan/add_vlan'), { interface: 'l1', vlan_id: '100' });
    expect(r.rc, r.rc_str_detail).toBe(0);
    expect(r.rsp).toEqual({ ifname: 'l1.100', vlan_id: 100 });
    const l = link('l1.100')!;
    // the kernel's VLAN device where it has 802.1Q, else the engine's TAP with the parent's MAC
    if (l.linkinfo?.info_kind === 'vlan') expect(l.linkinfo.info_data?.id).toBe(100);
    else expect(l.linkinfo?.info_kind).toBe('tun');
    expect(l.address).toBe(link('l1')!.address);
    expect(l.flags).toContain('UP');
    inNs(NS.gw, ['ip', 'addr', 'add', `${net(100, 1)}/24`, 'dev', 'l1.100']);
    // LAN1 asks, tagged VLAN 100, who has the VLAN's address: the answer comes back tagged 100 from l1's MAC
    // (tcpdump in LAN1 is the reader; the request is built here byte by byte)
    const lanMac = JSON.parse(sh('ip', ['-n', NS.lan1, '-j', 'link', 'show', 'eth0']))[0].address as string;
    const dump = spawn('ip', ['netns', 'exec', NS.lan1, 'tcpdump', '-i', 'eth0', '-nn', '-e', '-l', '-c', '1', 'vlan 100 and arp[6:2] == 2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    dump.stdout!.on('data', (b: Buffer) => (seen += b.toString()));
    await new Promise<void>((res) => dump.stderr!.once('data', () => res()));
    const py = [
      'import socket, sys',
      'mac = bytes.fromhex(sys.argv[1].replace(":", ""))',
      'ip = lambda a: bytes(int(x) for x in a.split("."))',
      'arp = bytes.fromhex("0001080006040001") + mac + ip(sys.argv[2]) + bytes(6) + ip(sys.argv[3])',
      'frame = bytes.fromhex("ffffffffffff") + mac + bytes.fromhex("8100") + (100).to_bytes(2, "big") + bytes.fromhex("0806") + arp',
      's = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("eth0", 0))',
      'for _ in range(3): s.send(frame)',
    ].join('\n');
    const done = new Promise((res) => dump.once('exit', res));
    for (let i = 0; i < 20 && !seen; i++) {
      inNs(NS.lan1, ['python3', '-c', py, lanMac, net(100, 2), net(100, 1)]);
      await Promise.race([done, new Promise((res) => setTimeout(res, 250))]);
    }
    dump.kill();
    expect(seen).toMatch(new RegExp(`^\\S+ ${link('l1')!.address} > ${lanMac}, ethertype 802\\.1Q \\(0x8100\\), length \\d+: vlan 100, .*Reply ${net(100, 1).replace(/\./g, '\\.')} is-at ${link('l1')!.address}`, 'm'));
    const ifs = (await call(pro('get/edge/interfaces'))).rsp as any[];
    expect(ifs.find((x) => x.ifname === 'l1.100')).toMatchObject({ role: 'lan', vlan_id: 100, parent: 'l1', present: true });
    // the VLAN is a LAN interface for the policy
    expect((await call(pro('add/edge/policy/rule'), { src_type: 'interface', src_value: 'l1.100', dst_type: 'interface', dst_value: 'l2', bidirectional: 'true', policy: 'deny' })).rc).toBe(0);
    expect((await call(pro('add/edge/vlan/add_vlan'), { interface: 'w0', vlan_id: '101' })).rc).toBe(-5);
    expect((await call(pro('add/edge/vlan/add_vlan'), { interface: 'l2', vlan_id: '100' })).rc).toBe(-5);
    expect((await call(pro('add/edge/vlan/add_vlan'), { interface: 'l1', vlan_id: '4095' })).rc).toBe(-5);
    expect((await call(plain('delete/edge/vlan/remove_vlan'), { delete_vlan: '100' })).rc).toBe(0);
    expect(link('l1.100')).toBeNull();
    // its rule went with it
    expect((await call(pro('get/edge/policy/rules'))).rsp).toEqual([]);
    expect((await call(plain('delete/edge/vlan/remove_vlan'), { delete_vlan: '100' })).rc).toBe(-5);
  }, 30_000);

  it('sets a WAN down and up: ip link follows and its traffic stops; its gateway is pinged', async () => {
    const st = await call(pro('get/edge/gateways/status'));
    expect(st.rc).toBe(0);
    expect(st.rsp).toEqual([expect.objectContaining({ interface: 'w0', gateway: net(3, 1), status: 'up' })]);
    expect(st.rsp[0].rtt).toBeGreaterThan(0);
    expect((await call(pro('set/edge/interface/state'), { interface: 'w0', enabled: 'false' })).rc).toBe(0);
    expect(link('w0')!.flags).not.toContain('UP');
    expect(ping(NS.lan1, net(3, 1))).toBe(false);
    expect((await call(pro('get/edge/interfaces'))).rsp.find((x: any) => x.ifname === 'w0')).toMatchObject({ enabled: false, up: false });
    expect((await call(pro('set/edge/interface/state'), { interface: 'w0', enabled: 'true' })).rc).toBe(0);
    expect(link('w0')!.flags).toContain('UP');
    // the default route went with the link: put back, as the operator's network setup would
    spawnSync('ip', ['-n', NS.gw, 'route', 'replace', 'default', 'via', net(3, 1), 'dev', 'w0']);
    expect(ping(NS.lan1, net(3, 1))).toBe(true);
    expect((await call(pro('set/edge/interface/state'), { interface: 'l1', enabled: 'false' })).rc).toBe(-5);
    expect((await call(pro('set/edge/interface/state'), { interface: 'w0', enabled: 'maybe' })).rc).toBe(-7);
    // the ISP's side goes away: within a pinger round (5 s) the gateway is down
    inNs(NS.wan, ['ip', 'link', 'set', 'eth0', 'down']);
    let status = '';
    for (let i = 0; i < 40 && status !== 'down'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await call(pro('get/edge/gateways/status'))).rsp[0].status;
    }
    expect(status).toBe('down');
    inNs(NS.wan, ['ip', 'link', 'set', 'eth0', 'up']);
  }, 30_000);

  it('lends a LAN client an address (dnsmasq) that the active leases list', async () => {
    // busybox's udhcpc asks and exits without touching the interface (its script does nothing)
    const r = spawnSync('ip', ['netns', 'exec', NS.lan2, 'udhcpc', '-i', 'eth0', '-n', '-q', '-f', '-s', '/bin/true', '-t', '5', '-T', '1'], { encoding: 'utf8' });
    const got = /lease of ([\d.]+) obtained/.exec(`${r.stdout}${r.stderr}`);
    expect(got, `${r.stdout}${r.stderr}`).not.toBeNull();
    const mac = JSON.parse(sh('ip', ['-n', NS.lan2, '-j', 'link', 'show', 'eth0']))[0].address as string;
    const leases = (await call(pro('get/edge/dhcp_active_leases'))).rsp as any[];
    const l = leases.find((x) => x.mac === mac);
    expect(l).toMatchObject({ ip: got![1], interface: 'l2' });
    // hosts 100-200 of LAN2's /24; 12 hours
    const host = Number(got![1].split('.')[3]);
    expect(got![1].startsWith(`10.${X}.2.`) && host >= 100 && host <= 200).toBe(true);
    expect(l.expires - Date.now() / 1000).toBeGreaterThan(11 * 3600);
  }, 30_000);

  it("reports nEdge's users (host pools) with the LAN devices seen now, their traffic and DHCP leases", async () => {
    const add = await call(plain('add/host/pool'), { pool_name: 'alice', pool_members: `${net(1, 2)}/32@0` });
    expect(add.rc, add.rc_str_detail).toBe(0);
    const id = add.rsp.pool_id as number;
    for (let i = 0; i < 3; i++) ping(NS.lan1, net(1, 1));
    ping(NS.lan2, net(2, 1));
    let users: any[] = [];
    let alice: any;
    for (let i = 0; i < 40 && !(alice?.active_devices > 0); i++) {
      await new Promise((r) => setTimeout(r, 250));
      users = (await call(pro('get/edge/users/status'))).rsp;
      alice = users.find((u) => u.pool_id === id);
    }
    expect(alice).toMatchObject({ name: 'alice', members: 1, active_devices: 1 });
    const dev = alice.devices[0];
    expect(dev.ip).toBe(net(1, 2));
    expect(dev.mac.toLowerCase()).toBe(JSON.parse(sh('ip', ['-n', NS.lan1, '-j', 'link', 'show', 'eth0']))[0].address);
    // the same counters as the host's own data on LAN1's interface (ifid 0), summed into the user
    const host = (await call(`/lua/rest/v2/get/host/data.lua?ifid=0&host=${net(1, 2)}`)).rsp;
    expect(dev.bytes_sent).toBe(host['bytes.sent']);
    expect(dev.bytes_rcvd).toBe(host['bytes.rcvd']);
    expect(dev.bytes_sent).toBeGreaterThan(0);
    expect(alice.bytes_sent).toBe(dev.bytes_sent);
    expect(alice.bytes_rcvd).toBe(dev.bytes_rcvd);
    // LAN2's client is nobody's: the default pool, with the lease dnsmasq gave its MAC
    const none = users.find((u) => u.pool_id === 0);
    const mac2 = JSON.parse(sh('ip', ['-n', NS.lan2, '-j', 'link', 'show', 'eth0']))[0].address;
    const d2 = none.devices.find((d: any) => d.ip === net(2, 2));
    expect(d2.mac.toLowerCase()).toBe(mac2);
    expect(d2.lease_expires).toBe((await call(pro('get/edge/dhcp_active_leases'))).rsp.find((l: any) => l.mac === mac2).expires);
    expect(none.devices.some((d: any) => d.ip === net(1, 2))).toBe(false);
  }, 30_000);

  it('repeats an mDNS query from LAN1 into LAN2 while a forwarder joins them, and no longer once removed', async () => {
    // a query for _services._dns-sd._udp.local, sent by LAN1 as an mDNS client does (TTL 255)
    const py = [
      'import socket',
      'q = bytes.fromhex("000000000001000000000000") + b"\\x09_services\\x07_dns-sd\\x04_udp\\x05local\\x00" + bytes.fromhex("000c0001")',
      's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
      's.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)',
      'for _ in range(3): s.sendto(q, ("224.0.0.251", 5353))',
    ].join('\n');
    /** what tcpdump in LAN2 sees of mDNS while LAN1 asks (empty: nothing within 2 s) */
    const seenInLan2 = async () => {
      const dump = spawn('ip', ['netns', 'exec', NS.lan2, 'timeout', '3', 'tcpdump', '-i', 'eth0', '-nn', '-e', '-l', '-c', '1', 'udp dst port 5353'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      dump.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      await new Promise<void>((res) => dump.stderr!.once('data', () => res()));
      const done = new Promise((res) => dump.once('exit', res));
      inNs(NS.lan1, ['python3', '-c', py]);
      await done;
      return out.trim();
    };
    // link-local multicast is never routed: LAN2 sees nothing
    expect(await seenInLan2()).toBe('');
    const add = await call(pro('add/edge/forwarder'), { repeater_type: 'mdns', interfaces: 'l1,l2', interface_details: 'LAN 1,LAN 2' });
    expect(add.rc, add.rc_str_detail).toBe(0);
    // the query itself, from LAN1's host, with l2's MAC as the sender of the frame
    const seen = await seenInLan2();
    expect(seen).toContain(`${link('l2')!.address} > 01:00:5e:00:00:fb`);
    expect(seen).toMatch(new RegExp(`${net(1, 2).replace(/\./g, '\\.')}\\.\\d+ > 224\\.0\\.0\\.251\\.5353`));
    expect(seen).toMatch(/PTR \(QM\)\? _services\._dns-sd\._udp\.local\./);
    const list = (await call(pro('get/edge/forwarders'))).rsp as any[];
    expect(list).toEqual([expect.objectContaining({ repeater_id: add.rsp.repeater_id, type: 'mdns', ip: '224.0.0.251', port: 5353, interfaces: 'l1,l2', details: 'LAN 1,LAN 2', restricted_interfaces: '' })]);
    expect(list[0].repeated).toBeGreaterThanOrEqual(1);
    const bad: Record<string, string>[] = [
      { repeater_type: 'bonjour', interfaces: 'l1,l2' },
      { repeater_type: 'custom', ip: '10.0.0.1', interfaces: 'l1,l2' },
      { repeater_type: 'custom', ip: '239.255.255.250', port: '70000', interfaces: 'l1,l2' },
      { repeater_type: 'mdns', interfaces: 'l1' },
      { repeater_type: 'mdns', interfaces: 'l1,eth9' },
      { repeater_type: 'mdns', interfaces: 'l1,l1' },
    ];
    for (const f of bad) expect((await call(pro('add/edge/forwarder'), f)).rc, JSON.stringify(f)).toBe(-5);
    expect((await call(plain('delete/edge/forwarder'), { repeater_id: String(add.rsp.repeater_id) })).rc).toBe(0);
    expect(await seenInLan2()).toBe('');
    expect((await call(pro('get/edge/forwarders'))).rsp).toEqual([]);
  }, 30_000);

  it("drops a host's active flows at once (the connection dies), and lets a new one through", async () => {
    // LAN2 counts the bytes each connection brings (a JSON file, 10 times a second); LAN1 sends a byte every 50 ms on each
    const counts = join(tmp.dir, 'counts.json');
    const server = spawn('ip', ['netns', 'exec', NS.lan2, 'python3', '-c', [
      'import socket, threading, json, time, sys',
      'c = {}',
      's = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 7000)); s.listen(8)',
      'def serve(conn, k):',
      '  while True:',
      '    d = conn.recv(100)',
      '    if not d: break',
      '    c[k] = c.get(k, 0) + len(d)',
      'def dump():',
      '  while True:',
      '    open(sys.argv[1] + ".tmp", "w").write(json.dumps(c)); import os; os.replace(sys.argv[1] + ".tmp", sys.argv[1]); time.sleep(0.1)',
      'threading.Thread(target=dump, daemon=True).start()',
      'while True:',
      '  conn, a = s.accept(); threading.Thread(target=serve, args=(conn, str(a[1])), daemon=True).start()',
    ].join('\n'), counts], { stdio: 'ignore' });
    const client = (port: number) => spawn('ip', ['netns', 'exec', NS.lan1, 'python3', '-c', [
      'import socket, time, sys',
      's = socket.socket(); s.bind(("0.0.0.0", int(sys.argv[2]))); s.settimeout(1); s.connect((sys.argv[1], 7000))',
      'while True:',
      '  try: s.send(b"x")',
      '  except Exception: pass',
      '  time.sleep(0.05)',
    ].join('\n'), net(2, 2), String(port)], { stdio: 'ignore' });
    const read = (): Record<string, number> => {
      try {
        return JSON.parse(readFileSync(counts, 'utf8'));
      } catch {
        return {};
      }
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // the server is up once it has written its first count
    for (let i = 0; i < 50 && !existsSync(counts); i++) await sleep(100);
    const first = client(41001);
    try {
      for (let i = 0; i < 50 && !(read()['41001'] > 10); i++) await sleep(100);
      expect(read()['41001']).toBeGreaterThan(10);
      // the engines saw the flow on l1 (the LANs are monitored); once they have, it is dropped
      let dropped = 0;
      for (let i = 0; i < 30 && !dropped; i++) {
        const r = await call(pro('set/edge/interface/drop_host_flows'), { host: net(1, 2) });
        expect(r.rc, r.rc_str_detail).toBe(0);
        dropped = r.rsp.dropped;
        if (!dropped) await sleep(200);
      }
      expect(dropped).toBeGreaterThanOrEqual(1);
      await sleep(300);
      const at = read()['41001'];
      await sleep(1500);
      // nothing more of that connection reaches LAN2 …
      expect(read()['41001']).toBe(at);
      expect(inNs(NS.gw, ['nft', 'list', 'set', 'inet', 'flowgate_edge', 'dropped4'])).toContain(`${net(1, 2)} . ${net(2, 2)} . tcp . 41001 . 7000`);
      // … and a new connection passes
      const second = client(41002);
      try {
        for (let i = 0; i < 50 && !(read()['41002'] > 5); i++) await sleep(100);
        expect(read()['41002']).toBeGreaterThan(5);
      } finally {
        second.kill('SIGKILL');
      }
    } finally {
      first.kill('SIGKILL');
      server.kill('SIGKILL');
    }
    expect((await call(pro('set/edge/interface/drop_host_flows'), { host: 'not-a-host' })).rc).toBe(-5);
  }, 60_000);

  it('keeps the settings across a restart and applies them again', async () => {
    expect((await call(pro('set/edge/policy/default'), { default_policy: 'deny' })).rc).toBe(0);
    expect((await call(pro('add/edge/vlan/add_vlan'), { interface: 'l2', vlan_id: '200' })).rc).toBe(0);
    await stop();
    // what the kernel had is taken away; the restart puts it back
    inNs(NS.gw, ['nft', 'delete', 'table', 'inet', 'flowgate_edge']);
    // a kernel VLAN stays when the process ends (take it away); the engine's TAP goes with it
    spawnSync('ip', ['-n', NS.gw, 'link', 'del', 'l2.200'], { stdio: 'ignore' });
    expect(link('l2.200')).toBeNull();
    await start();
    expect((await call(pro('get/edge/policy/default'))).rsp).toEqual({ default_policy: 'deny' });
    expect(ping(NS.lan1, net(2, 2))).toBe(false);
    expect(link('l2.200')!.flags).toContain('UP');
  }, 60_000);

  it('needs an administrator', async () => {
    const r = await fetch(`${base}${pro('get/edge/interfaces')}`);
    expect(((await r.json()) as { rc: number }).rc).toBe(-3);
  });
});
