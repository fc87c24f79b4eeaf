// device_protocol_not_allowed (ntopng's DeviceProtocolNotAllowed flow check
// and its device protocol presets) on a capture built here: a printer (its
// mDNS announcement of _pdl-datastream makes it device type 1) uses SSH as a
// client and serves SSH; it also asks DNS and serves HTTP, and a client's SSH
// to it gets no answer. By ntopng's printer preset (client: the basic
// protocols; server: those plus HTTP, TLS, SNMP; DNS and DHCP always allowed;
// a server only counts once it answered) exactly the two SSH flows with an
// answer are alerted. The operator's change (edit_device_protocols.lua)
// lets the printer's SSH as a client through from the next replay on.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { alertRoles } from '../ts/services/alerts/catalogue.js';
import { DeviceProtocols } from '../ts/services/checks/device-protocols.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { BIT_DEVICE_PROTOCOL, deviceProtocolPeer, recordCheckBits, setFlowCheckParams, NO_PARAMS, type RecordFacts } from '../ts/services/checks/flow-record-checks.js';
import { addUser, startApi, v2, type ApiService } from './fixtures/api.js';
import { dns, dnsName } from './fixtures/apps.js';
import { ETH, IPPROTO, TCPF, eth, ipv4, mac, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const id = (name: string) => (Engine.info().dpi.protocols as { id: number; name: string }[]).find((p) => p.name === name)!.id;
const SSH = id('SSH'), HTTP = id('HTTP'), DNS = id('DNS'), TLS = id('TLS'), GOOGLE = id('Google'), NTP = id('NTP'), SNMP = id('SNMP');
const PRINTER = 1, IOT = 12, WORKSTATION = 3;

describe('the device protocol policies (presets, changes, the check on a record)', () => {
  const tmp = tempDir('flowgate-devproto-');
  let store: ConfigStore;
  let dp: DeviceProtocols;
  const ids = (Engine.info().dpi.protocols as { id: number }[]).map((p) => p.id);
  const facts = (o: Partial<RecordFacts>): RecordFacts =>
    ({ master: 0, app: HTTP, devtypes: 0, cliMacOk: true, srvMacOk: true, srvPkts: 1, proto: 6, l7: HTTP, category: 0, cliLocation: 1, srvLocation: 0, cliFlags: 0, srvFlags: 0, srvBroadcast: false, vlan: 0, bidirectional: true, packets: 2, retr: 0, ooo: 0, lost: 0, tcpState: 1, goodputPct: 90, blacklisted: 0, end: true, cliBroadcast: false, lower: HTTP, cliPort: 40000, srvPort: 80, cliPkts: 1, cliCountry: 0, srvCountry: 0, buf: new Uint8Array(32), cliIpAt: 0, srvIpAt: 16, ...o }) as RecordFacts;
  const apply = () => setFlowCheckParams({ ...NO_PARAMS, devices: dp.table(ids) });

  beforeAll(() => {
    store = new ConfigStore(tmp.dir);
    dp = DeviceProtocols.open(store);
    apply();
  });
  afterAll(async () => {
    setFlowCheckParams(NO_PARAMS);
    await store.close();
    tmp.cleanup();
  });

  it("follows ntopng's presets: a printer's and an IoT device's protocols, DNS always, types without a preset allow everything", () => {
    const dev = (cli: number, srv: number) => (cli << 4) | srv;
    // printer as client: NTP (basic) yes, SSH no, DNS always
    expect(deviceProtocolPeer(facts({ app: NTP, devtypes: dev(PRINTER, 0) }))).toBe(0);
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: dev(PRINTER, 0) }))).toBe(1);
    expect(deviceProtocolPeer(facts({ app: DNS, devtypes: dev(PRINTER, 0) }))).toBe(0);
    // printer as server: HTTP and SNMP yes, SSH no — once it answered
    expect(deviceProtocolPeer(facts({ app: SNMP, devtypes: dev(0, PRINTER) }))).toBe(0);
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: dev(0, PRINTER) }))).toBe(2);
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: dev(0, PRINTER), srvPkts: 0 }))).toBe(0);
    // IoT: TLS allowed, but TLS.Google is not (the application is checked after the master)
    expect(deviceProtocolPeer(facts({ master: TLS, app: TLS, devtypes: dev(IOT, 0) }))).toBe(0);
    expect(deviceProtocolPeer(facts({ master: TLS, app: GOOGLE, devtypes: dev(IOT, 0) }))).toBe(1);
    // Unknown is allowed; a zero / group MAC is never checked; a workstation has no preset
    expect(deviceProtocolPeer(facts({ app: 0, devtypes: dev(PRINTER, 0) }))).toBe(0);
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: dev(PRINTER, 0), cliMacOk: false }))).toBe(0);
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: dev(WORKSTATION, WORKSTATION) }))).toBe(0);
    expect(recordCheckBits(facts({ app: SSH, l7: SSH, devtypes: dev(PRINTER, 0) })) & BIT_DEVICE_PROTOCOL).toBe(BIT_DEVICE_PROTOCOL);
    // the attacker is the end not allowed
    expect(alertRoles(5, 0, 0, 1)).toBe(1);
    expect(alertRoles(5, 0, 0, 2)).toBe(4);
  });

  it("keeps the operator's changes on top of the preset (a change equal to the preset is not kept) and resets to it", async () => {
    expect(await dp.update(PRINTER, [{ role: 'client', protoId: SSH, action: '1' }, { role: 'client', protoId: NTP, action: '1' }])).toBe(1);
    apply();
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: PRINTER << 4 }))).toBe(0);
    // a type without a preset denies what the operator denies, and only that
    await dp.update(WORKSTATION, [{ role: 'server', protoId: HTTP, action: '0' }]);
    apply();
    expect(deviceProtocolPeer(facts({ app: HTTP, devtypes: WORKSTATION }))).toBe(2);
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: WORKSTATION }))).toBe(0);
    expect(dp.policies(WORKSTATION, [HTTP]).get(HTTP)).toEqual({ client: '1', server: '0' });
    await dp.reset(PRINTER);
    await dp.reset(WORKSTATION);
    apply();
    expect(deviceProtocolPeer(facts({ app: SSH, devtypes: PRINTER << 4 }))).toBe(1);
    expect(deviceProtocolPeer(facts({ app: HTTP, devtypes: WORKSTATION }))).toBe(0);
    await expect(dp.update(PRINTER, [{ role: 'client', protoId: SSH, action: '2' }])).rejects.toThrow(/action/);
  });
});

// ── on a capture, through the service ────────────────────────────────────

const PRN = mac('02:00:00:00:0d:02'), CLI = mac('02:00:00:00:0c:01'), GW = mac('02:00:00:00:0a:01');
const PRN_IP = '192.168.7.61', CLI_IP = '192.168.7.10', DNS_IP = '192.168.7.1', REMOTE = '198.51.100.9';
// two hours ago: inside the store's retention, so the first replay's rows are still there after the restart
const T0 = Math.floor(Date.now() / 1000) - 7200;

function capture(): Buffer {
  const p: Packet[] = [];
  let n = 0;
  const at = (t: number) => sec(t) + BigInt(n++) * 1000n;
  const frame = (t: number, dst: Buffer, src: Buffer, sip: string, dip: string, l4: Buffer, proto: number = IPPROTO.TCP) =>
    p.push({ tsNs: at(t), data: eth(dst, src, ETH.IPV4, ipv4({ src: sip, dst: dip, proto }, l4)) });
  // a TCP conversation: handshake, the client's payload, the server's (none: the server never answers)
  const session = (t: number, c: [Buffer, string, number], s: [Buffer, string, number], cdata: string, sdata: string | null) => {
    const [cm, cip, cp] = c, [sm, sip, sp] = s;
    frame(t, sm, cm, cip, sip, tcp({ sport: cp, dport: sp, seq: 100, flags: TCPF.SYN }));
    if (sdata === null) {
      frame(t, sm, cm, cip, sip, tcp({ sport: cp, dport: sp, seq: 101, flags: TCPF.PSH | TCPF.ACK }, Buffer.from(cdata)));
      return;
    }
    frame(t, cm, sm, sip, cip, tcp({ sport: sp, dport: cp, seq: 500, ack: 101, flags: TCPF.SYN | TCPF.ACK }));
    frame(t, sm, cm, cip, sip, tcp({ sport: cp, dport: sp, seq: 101, ack: 501, flags: TCPF.ACK }));
    frame(t, sm, cm, cip, sip, tcp({ sport: cp, dport: sp, seq: 101, ack: 501, flags: TCPF.PSH | TCPF.ACK }, Buffer.from(cdata)));
    frame(t, cm, sm, sip, cip, tcp({ sport: sp, dport: cp, seq: 501, ack: 101 + cdata.length, flags: TCPF.PSH | TCPF.ACK }, Buffer.from(sdata)));
  };
  // the printer says what it is (a response: device type 1)
  p.push({
    tsNs: at(T0),
    data: eth(mac('01:00:5e:00:00:fb'), PRN, ETH.IPV4, ipv4({ src: PRN_IP, dst: '224.0.0.251', proto: IPPROTO.UDP }, udp({ sport: 5353, dport: 5353 }, dns({ id: 0, flags: 0x8400, answers: [{ name: dnsName('Office._pdl-datastream._tcp.local'), type: 16, rdata: Buffer.from([0]) }] })))),
  });
  const sshC = 'SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n', sshS = 'SSH-2.0-OpenSSH_8.9\r\n';
  // 1. the printer uses SSH as a client (remote server, through the router): not allowed
  session(T0 + 1, [PRN, PRN_IP, 41000], [GW, REMOTE, 22], sshC, sshS);
  // 2. the printer asks DNS: always allowed
  const q = dns({ id: 7, flags: 0x0100, questions: [{ name: dnsName('example.com'), type: 1 }] });
  const a = dns({ id: 7, flags: 0x8180, questions: [{ name: dnsName('example.com'), type: 1 }], answers: [{ name: dnsName('example.com'), type: 1, rdata: Buffer.from([93, 184, 216, 34]) }] });
  frame(T0 + 2, GW, PRN, PRN_IP, DNS_IP, udp({ sport: 41001, dport: 53 }, q), IPPROTO.UDP);
  frame(T0 + 2, PRN, GW, DNS_IP, PRN_IP, udp({ sport: 53, dport: 41001 }, a), IPPROTO.UDP);
  // 3. a client reaches the printer's web page: allowed to a printer as server
  session(T0 + 3, [CLI, CLI_IP, 42000], [PRN, PRN_IP, 80], 'GET / HTTP/1.1\r\nHost: printer\r\nUser-Agent: curl/8.0\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
  // 4. the client's SSH to the printer, answered: not allowed (the printer is the attacker)
  session(T0 + 4, [CLI, CLI_IP, 42001], [PRN, PRN_IP, 22], sshC, sshS);
  // 5. the same to another port the printer never answers: a server that did not answer is not checked
  session(T0 + 5, [CLI, CLI_IP, 42002], [PRN, PRN_IP, 2222], sshC, null);
  return pcap(p);
}

describe('device_protocol_not_allowed on a capture', () => {
  const tmp = tempDir('flowgate-devproto-cap-');
  const file = tmp.file('devproto.pcap', capture());
  let s: ApiService;
  const start = () => startApi({ files: [file], history: true, dataDir: join(tmp.dir, 'data'), engine: { flushAtEnd: true } });
  const alerted = async () => {
    const r = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 600, alert_id: '5;eq', length: 100 } });
    expect(r.body.rc, r.text).toBe(0);
    return (r.body.rsp.records as any[]).map((x) => `${x.cli_ip.value}:${x.cli_port.value}>${x.srv_ip.value}:${x.srv_port.value}`).sort();
  };
  beforeAll(async () => {
    s = await start();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('alerts the two answered SSH flows of the printer (client and server), nothing else', async () => {
    const host = (await s.call(v2('get/host/data'), { query: { ifid: 0, host: PRN_IP } })).body.rsp;
    expect(host.devtype).toBe(PRINTER);
    expect(await alerted()).toEqual([`${CLI_IP}:42001>${PRN_IP}:22`, `${PRN_IP}:41000>${REMOTE}:22`]);
    // flows flushed at the end within their idle timeout are no purge the engine missed (not_purged, 14)
    const np = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 600, alert_id: '14;eq' } });
    expect(np.body.recordsTotal).toBe(0);
  });

  it("answers ntopng's device protocols pages: the printer's SSH denied both ways, HTTP allowed as server", async () => {
    const r = await s.call('/lua/admin/get_device_protocols.lua', { query: { device_type: PRINTER, l7proto: SSH } });
    expect(r.body.data).toEqual([expect.objectContaining({ column_ndpi_application_id: String(SSH), column_ndpi_application: 'SSH', column_client_policy: '0', column_server_policy: '0' })]);
    const h = await s.call('/lua/admin/get_device_protocols.lua', { query: { device_type: PRINTER, l7proto: HTTP } });
    expect(h.body.data[0]).toMatchObject({ column_client_policy: '0', column_server_policy: '1' });
    // a page of allowed protocols holds only ones allowed in a role
    const allowed = await s.call('/lua/admin/get_device_protocols.lua', { query: { device_type: PRINTER, policy_filter: '1', perPage: 100 } });
    expect(allowed.body.totalRows).toBeGreaterThan(5);
    for (const row of allowed.body.data) expect([row.column_client_policy, row.column_server_policy]).toContain('1');
    // bad input: -5 as a bare JSON page answer (400)
    expect((await s.call('/lua/admin/get_device_protocols.lua', { query: { device_type: 99 } })).status).toBe(400);
    expect((await s.call('/lua/admin/edit_device_protocols.lua', { form: { device_type: PRINTER, edit_device_policy: '', [`client_policy_${SSH}`]: 'yes' } })).status).toBe(400);
    // only administrators
    await addUser(s, { username: 'viewer', password: 'Viewer-pw-1' });
    expect((await s.call('/lua/admin/get_device_protocols.lua', { user: 'viewer', pw: 'Viewer-pw-1', query: { device_type: PRINTER } })).status).toBe(401);
  });

  it("lets the printer's SSH as a client through once allowed, from the next replay on (kept across the restart)", async () => {
    const r = await s.call('/lua/admin/edit_device_protocols.lua', { form: { device_type: PRINTER, edit_device_policy: '', [`client_policy_${SSH}`]: '1', [`server_policy_${SSH}`]: '0' } });
    expect(r.body, r.text).toMatchObject({ success: true, device_type: PRINTER, changed: 1 });
    await s.close();
    s = await start();
    const flows = await alerted();
    // the first replay's two alerts are stored; the second adds only the printer-as-server one
    expect(flows.filter((x) => x.startsWith(PRN_IP))).toHaveLength(1);
    expect(flows.filter((x) => x.startsWith(CLI_IP))).toHaveLength(2);
    // reset: back to the preset
    const reset = await s.call('/lua/admin/edit_device_protocols.lua', { form: { device_type: PRINTER, action: 'reset' } });
    expect(reset.body).toMatchObject({ success: true });
    const back = await s.call('/lua/admin/get_device_protocols.lua', { query: { device_type: PRINTER, l7proto: SSH } });
    expect(back.body.data[0].column_client_policy).toBe('0');
  }, 60_000);
});
