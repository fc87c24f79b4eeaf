// Host data fields ntopng's Host::lua_get_min_info always sends, on a capture
// built here: crawlerBotScannerHost (a client one of whose flows nDPI flags
// as a crawler or bot: Flow.cpp's setCrawlerBotScannerHost) and
// host_services_bitmap (1 << HOST_IS_*_SERVER of ntop_defines.h for each
// service the host was seen serving: DHCP 1, DNS 2, NTP 3, SMTP 4, IMAP 5, POP 6).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { DNS_RESPONSE, dns, dnsName, ipRdata } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const BOT = '192.168.7.10', HUMAN = '192.168.7.11', WEB = '192.168.7.80', SERVER = '192.168.7.53';
const T0 = 1_700_000_000;

function httpFlow(t: number, cli: string, sport: number, ua: string): Packet[] {
  const at = (d: number) => sec(T0 + t + d);
  const f = (src: string, dst: string, sp: number, dp: number, flags: number, seq: number, ack: number, payload?: Buffer) =>
    eth(src === cli ? MAC_B : MAC_A, src === cli ? MAC_A : MAC_B, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP, df: true }, tcp({ sport: sp, dport: dp, flags, seq, ack }, payload)));
  const get = Buffer.from(`GET / HTTP/1.1\r\nHost: www.example.org\r\nUser-Agent: ${ua}\r\n\r\n`);
  const ok = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
  return [
    { tsNs: at(0), data: f(cli, WEB, sport, 80, TCPF.SYN, 100, 0) },
    { tsNs: at(0.01), data: f(WEB, cli, 80, sport, TCPF.SYN | TCPF.ACK, 500, 101) },
    { tsNs: at(0.02), data: f(cli, WEB, sport, 80, TCPF.ACK, 101, 501) },
    { tsNs: at(0.03), data: f(cli, WEB, sport, 80, TCPF.PSH | TCPF.ACK, 101, 501, get) },
    { tsNs: at(0.04), data: f(WEB, cli, 80, sport, TCPF.PSH | TCPF.ACK, 501, 101 + get.length, ok) },
  ];
}

function udpPair(t: number, cli: string, sport: number, dport: number, q: Buffer, a: Buffer): Packet[] {
  return [
    { tsNs: sec(T0 + t), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: cli, dst: SERVER, proto: IPPROTO.UDP }, udp({ sport, dport }, q))) },
    { tsNs: sec(T0 + t + 0.01), data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: SERVER, dst: cli, proto: IPPROTO.UDP }, udp({ sport: dport, dport: sport }, a))) },
  ];
}

// NTP v4: client (mode 3) and server (mode 4) packets of 48 bytes
const ntp = (mode: number) => Buffer.concat([Buffer.from([(4 << 3) | mode, mode === 4 ? 2 : 0, 6, 0xec]), Buffer.alloc(44, mode === 4 ? 1 : 0)]);

beforeAll(async () => {
  const q = { name: dnsName('www.example.org'), type: 1 };
  const p: Packet[] = [
    ...httpFlow(0, BOT, 40001, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
    ...httpFlow(1, HUMAN, 40002, 'Mozilla/5.0 (X11; Linux x86_64)'),
    ...udpPair(2, HUMAN, 50001, 53, dns({ id: 7, flags: 0x0100, questions: [q] }), dns({ id: 7, flags: DNS_RESPONSE, questions: [q], answers: [{ name: q.name, type: 1, rdata: ipRdata('192.0.2.7') }] })),
    ...udpPair(3, HUMAN, 50002, 123, ntp(3), ntp(4)),
  ];
  s = await startApi({ files: [tmp.file('flags.pcap', pcap(p))] });
});

const data = async (ip: string) => {
  const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host: ip } });
  expect(r.body.rc, r.text).toBe(0);
  return r.body.rsp;
};

describe('host flags of Host::lua_get_min_info', () => {
  it('crawlerBotScannerHost: the client whose HTTP request nDPI flags Crawler/Bot, not the other client nor the server', async () => {
    expect((await data(BOT)).crawlerBotScannerHost).toBe(true);
    expect((await data(HUMAN)).crawlerBotScannerHost).toBe(false);
    expect((await data(WEB)).crawlerBotScannerHost).toBe(false);
  });

  it('host_services_bitmap: ntopng’s bit numbers for the services a host served (DNS 2, NTP 3)', async () => {
    const d = await data(SERVER);
    expect(d.services).toEqual({ dns: true, ntp: true });
    expect(d.host_services_bitmap).toBe((1 << 2) | (1 << 3));
    expect((await data(HUMAN)).host_services_bitmap).toBe(0);
    expect(await data(WEB)).toMatchObject({ host_services_bitmap: 0, host_pool_match: 'ip', serialize_by_mac: false });
  });
});
