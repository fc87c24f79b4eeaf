// Unexpected DNS, DHCP, NTP and SMTP servers end to end: the allowed servers
// set in the network configuration (ntopng's get/set network/config.lua),
// frames built here replayed through the engine and the flow writer, and the
// flow alert list must name exactly the servers at work that are not allowed;
// tshark confirms which addresses answered DNS and NTP and which one sent a
// DHCP offer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { DHCP_MSG, DNS_RESPONSE, dhcp, dhcpOpt, dns, dnsName, ipRdata } from './fixtures/apps.js';
import { eth, ETH, IPPROTO, ipv4, mac, MAC_A, MAC_B, tcp, TCPF, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';

const T0 = 1_700_000_000;
const BCAST = mac('ff:ff:ff:ff:ff:ff');

function frames(): Buffer {
  const pk: { tsNs: bigint; data: Buffer }[] = [];
  let t = T0;
  const at = () => sec((t += 0.01));
  const u = (src: string, dst: string, sport: number, dport: number, payload: Buffer, to = MAC_B) =>
    pk.push({ tsNs: at(), data: eth(to, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, payload))) });
  const q = (name: string) => ({ name: dnsName(name), type: 1 });
  // DNS: to the allowed resolver, to one that is not (both answer), to a silent one
  for (const [srv, sport] of [['10.0.0.53', 41000], ['8.8.8.8', 41001], ['9.9.9.9', 41002]] as const) {
    u('10.0.0.5', srv, sport, 53, dns({ id: sport, flags: 0x0100, questions: [q('a.example')] }));
    if (srv !== '9.9.9.9') u(srv, '10.0.0.5', 53, sport, dns({ id: sport, flags: DNS_RESPONSE, questions: [q('a.example')], answers: [{ name: dnsName('a.example'), type: 1, rdata: ipRdata('192.0.2.1') }] }));
  }
  // NTP to a server outside the list, answered
  const ntp = (mode: number) => Object.assign(Buffer.alloc(48), { 0: (4 << 3) | mode });
  u('10.0.0.5', '129.6.15.28', 42000, 123, ntp(3));
  u('129.6.15.28', '10.0.0.5', 123, 42000, ntp(4));
  // DHCP: a discover to the broadcast address, then offers from the allowed server and a rogue one
  const xid = 0x1234;
  u('0.0.0.0', '255.255.255.255', 68, 67, dhcp({ op: 1, xid, chaddr: MAC_A, options: [dhcpOpt.msgType(DHCP_MSG.DISCOVER)] }), BCAST);
  u('10.0.0.1', '255.255.255.255', 67, 68, dhcp({ op: 2, xid, chaddr: MAC_A, yiaddr: '10.0.0.77', options: [dhcpOpt.msgType(DHCP_MSG.OFFER)] }), BCAST);
  u('10.0.0.66', '255.255.255.255', 67, 68, dhcp({ op: 2, xid, chaddr: MAC_A, yiaddr: '10.0.0.78', options: [dhcpOpt.msgType(DHCP_MSG.OFFER)] }), BCAST);
  // SMTP to the allowed relay: greeting, EHLO
  const seg = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, ack: number, data = Buffer.alloc(0)) =>
    pk.push({ tsNs: at(), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack }, data))) });
  seg('10.0.0.5', '10.0.0.25', 43000, 25, TCPF.SYN, 100, 0);
  seg('10.0.0.25', '10.0.0.5', 25, 43000, TCPF.SYN | TCPF.ACK, 500, 101);
  seg('10.0.0.5', '10.0.0.25', 43000, 25, TCPF.ACK, 101, 501);
  const hello = Buffer.from('220 relay.example ESMTP\r\n'), ehlo = Buffer.from('EHLO client.example\r\n');
  seg('10.0.0.25', '10.0.0.5', 25, 43000, TCPF.PSH | TCPF.ACK, 501, 101, hello);
  seg('10.0.0.5', '10.0.0.25', 43000, 25, TCPF.PSH | TCPF.ACK, 101, 501 + hello.length, ehlo);
  return pcap(pk);
}

describe('unexpected servers from packets', () => {
  const tmp = tempDir('flowgate-unexp-');
  let s: ApiService;
  let file: string;
  beforeAll(async () => {
    file = tmp.file('servers.pcap', frames());
    s = await startApi({
      files: [file],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: true,
      configure: async (c, checking) => {
        for (const k of ['unexpected_dns', 'unexpected_dhcp', 'unexpected_ntp', 'unexpected_smtp']) await c.setEnabled('flow', k, true);
        await checking.network.set({ dns_list: '10.0.0.53', dhcp_list: '10.0.0.1', smtp_list: '10.0.0.0/24' });
      },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('the frames are what the test says (tshark)', async () => {
    const answered = await tsharkFields(file, ['ip.src'], 'dns.flags.response == 1 || ntp.flags.mode == 4');
    expect(answered.map((l) => l[0])).toEqual(['10.0.0.53', '8.8.8.8', '129.6.15.28']);
    const offers = await tsharkFields(file, ['ip.src'], 'dhcp.option.dhcp == 2');
    expect(offers.map((l) => l[0])).toEqual(['10.0.0.1', '10.0.0.66']);
  });

  it('alerts the servers at work that the network configuration does not allow', async () => {
    const r = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, length: 100 } });
    expect(r.body.rc, r.text).toBe(0);
    const got = (r.body.rsp.records as any[]).map((x) => [Number(x.alert_id.value), x.cli_ip.value, x.srv_ip.value, Number(x.score.value)]).sort();
    expect(got).toEqual(
      [
        // unexpected DNS server (33), score 100: 8.8.8.8 answered; 9.9.9.9 never did; 10.0.0.53 is allowed
        [33, '10.0.0.5', '8.8.8.8', 100],
        // (the query 9.9.9.9 never answered carries nDPI's unidirectional-traffic risk, 26, score 10)
        [26, '10.0.0.5', '9.9.9.9', 10],
        // unexpected NTP server (35): the list is empty, the server answered
        [35, '10.0.0.5', '129.6.15.28', 100],
        // unexpected DHCP server (32): the rogue offer (its flow's client is the server, port 67)
        [32, '10.0.0.66', '255.255.255.255', 100],
        // the allowed relay raises nothing of these; its short SMTP exchange is low goodput (12, score 10):
        // handshake, 5 packets, 46 payload bytes of 316 (14 %)
        [12, '10.0.0.5', '10.0.0.25', 10],
      ].sort(),
    );
  });

  it('get/set network/config: ntopng’s keys and answer, lists checked, -5 for a bad one', async () => {
    const get = async () => (await s.call(v2('get/network/config'), { query: { ifid: 0 } })).body;
    const before = await get();
    expect(before.rc).toBe(0);
    expect(before.rsp).toEqual([
      { key: 'dns_list', value_description: '10.0.0.53' },
      { key: 'ntp_list', value_description: '' },
      { key: 'dhcp_list', value_description: '10.0.0.1' },
      { key: 'smtp_list', value_description: '10.0.0.0/24' },
      { key: 'gateway_list', value_description: '' },
    ]);
    expect((await s.call(v2('get/network/config'), { query: {} })).body.rc).toBe(-2);
    const set = (payload: unknown) => s.call(v2('set/network/config'), { method: 'POST', form: { payload: JSON.stringify(payload) } });
    const ok = await set({ config: [{ key: 'ntp_list', value: '129.6.15.28, 2001:db8::/32@4' }] });
    expect(ok.body.rc, ok.text).toBe(0);
    expect((await get()).rsp[1]).toEqual({ key: 'ntp_list', value_description: '129.6.15.28, 2001:db8::/32@4' });
    // a bad entry, an unknown key, a prototype key, not JSON: -5, nothing changed
    for (const bad of [{ config: [{ key: 'dns_list', value: '10.0.0.53,resolver.example' }] }, { config: [{ key: 'dns_server', value: '' }] }, { config: [{ key: '__proto__', value: '' }] }, { nope: 1 }]) {
      const r = await set(bad);
      expect(r.status).toBe(400);
      expect(r.body.rc, JSON.stringify(bad)).toBe(-5);
    }
    const raw = await s.call(v2('set/network/config'), { method: 'POST', form: { payload: '{not json' } });
    expect(raw.body.rc).toBe(-5);
    expect((await get()).rsp[0]).toEqual({ key: 'dns_list', value_description: '10.0.0.53' });
    // a JSON body works as the payload itself
    const j = await s.call(v2('set/network/config'), { method: 'POST', json: { config: [{ key: 'gateway_list', value: '10.0.0.1' }] } });
    expect(j.body.rc, j.text).toBe(0);
    expect((await get()).rsp[4]).toEqual({ key: 'gateway_list', value_description: '10.0.0.1' });
  });
});
