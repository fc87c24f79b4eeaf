// nDPI's ndpi_reconcile_protocols, run whenever a flow is named: a generic
// name is refined by the application its addresses belong to (nDPI's IP
// lists, server first). QUIC.Google to a Google Cloud address is
// QUIC.GoogleCloud, TLS.Microsoft to an Outlook / Microsoft 365 / OneDrive /
// Teams address names that service, plain TLS to Telegram's addresses is
// TLS.Telegram — each "DPI (partial)" — and STUN or Azure on UDP 3478–3481
// to Azure is a Teams call (confidence kept). Each with a near miss: the same
// flow to an address of no list, or on another port.
import { describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { quicInitial, tlsClientHello } from './fixtures/apps.js';
import { alternating, replayFrames, tcpSession, udpClassifierAt } from './fixtures/dissect.js';
import { u16, u32 } from './fixtures/bytes.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const udpAt = udpClassifierAt('fg-dpi-reconcile-u-');
const tmp = tempDir('fg-dpi-reconcile-t-');
let n = 0;

/** A TCP flow src → dst (handshake, then the payloads in sequence, alternating): "Master.App (confidence)". */
async function tcpAt(src: string, dst: string, dport: number, payloads: Buffer[]): Promise<string> {
  const frames = tcpSession(src, dst, 41000, dport, alternating(payloads));
  return replayFrames(tmp.file(`t-${n++}.pcap`), frames, (e: Engine) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}

const JUNK = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37 + 11) & 0xff));
/** One UDP datagram src → dst (by default a payload no dissector knows), the flow flushed at the end: its give-up name. */
async function givenUp(src: string, dst: string, sport: number, dport: number, payload: Buffer = JUNK): Promise<string> {
  const frames = [eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, payload)))];
  return replayFrames(tmp.file(`u-${n++}.pcap`), frames, (e: Engine) => {
    const [f] = e.drainExpired(16);
    return `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`;
  }, { flushAtEnd: true });
}

const HOME = '192.168.7.10', OTHER = '198.51.100.20'; // a private client; a documentation address in no list
// addresses inside nDPI's lists (src/lib/inc_generated, ndpi_content_match.c.inc)
const GOOGLE_CLOUD = '8.34.210.10', M365 = '20.20.40.5', OUTLOOK = '40.92.1.1', ONEDRIVE = '13.107.137.5', TEAMS = '52.113.0.9', TELEGRAM = '91.108.4.20', AZURE = '4.150.0.9';
const hello = (sni: string) => tlsClientHello(sni).subarray(5);
// STUN Binding Request and its success answer (RFC 5389 §6)
const stunReq = Buffer.concat([u16(0x0001), u16(0), u32(0x2112a442), Buffer.alloc(12, 0x33)]);
const stunOk = Buffer.concat([u16(0x0101), u16(0), u32(0x2112a442), Buffer.alloc(12, 0x33)]);

describe('nDPI reconciles a generic name with the addresses’ application', () => {
  it('the addresses are in their lists (an unknown payload is named by IP at give-up)', async () => {
    expect(await givenUp(HOME, GOOGLE_CLOUD, 40000, 40001)).toBe('GoogleCloud (Match by IP)');
    expect(await givenUp(HOME, TELEGRAM, 40000, 40001)).toBe('Telegram (Match by IP)');
    expect(await givenUp(HOME, M365, 40000, 40001)).toBe('Microsoft365 (Match by IP)');
  });

  it('QUIC.Google to a Google Cloud address is QUIC.GoogleCloud', async () => {
    const q = quicInitial(hello('www.google.com'));
    expect(await udpAt(HOME, GOOGLE_CLOUD, 50500, 443, [q])).toBe('QUIC.GoogleCloud (DPI (partial))');
    expect(await udpAt(HOME, OTHER, 50501, 443, [q])).toBe('QUIC.Google (DPI)');
  });

  it('TLS.Microsoft to Microsoft 365, Outlook, OneDrive or Teams addresses names that service', async () => {
    const h = tlsClientHello('aka.ms');
    expect(await tcpAt(HOME, M365, 443, [h])).toBe('TLS.Microsoft365 (DPI (partial))');
    expect(await tcpAt(HOME, OUTLOOK, 443, [h])).toBe('TLS.Outlook (DPI (partial))');
    expect(await tcpAt(HOME, ONEDRIVE, 443, [h])).toBe('TLS.MS_OneDrive (DPI (partial))');
    expect(await tcpAt(HOME, TEAMS, 443, [h])).toBe('TLS.Skype_Teams (DPI (partial))');
    expect(await tcpAt(HOME, OTHER, 443, [h])).toBe('TLS.Microsoft (DPI)');
    // an Azure address is not among them
    expect(await tcpAt(HOME, AZURE, 443, [h])).toBe('TLS.Microsoft (DPI)');
  });

  it('plain TLS to Telegram’s addresses is TLS.Telegram; a name nDPI knows keeps its own', async () => {
    expect(await tcpAt(HOME, TELEGRAM, 443, [tlsClientHello('example.org')])).toBe('TLS.Telegram (DPI (partial))');
    expect(await tcpAt(HOME, OTHER, 443, [tlsClientHello('example.org')])).toBe('TLS (DPI)');
    expect(await tcpAt(HOME, TELEGRAM, 443, [tlsClientHello('aka.ms')])).toBe('TLS.Microsoft (DPI)');
  });

  it('TCP to Telegram’s addresses that no dissector names before is Telegram by IP at once (MTProto has no pattern)', async () => {
    const mtproto = Buffer.concat([Buffer.from([0xef]), JUNK]); // an abridged MTProto opening, then ciphertext
    expect(await tcpAt(HOME, TELEGRAM, 443, [mtproto])).toBe('Telegram (Match by IP)');
    expect(await tcpAt(HOME, TELEGRAM, 5222, [mtproto])).toBe('Telegram (Match by IP)');
    expect(await tcpAt(HOME, OTHER, 443, [mtproto])).toBe('Unknown (Unknown)');
  });

  it('STUN to Azure on UDP 3478–3481 is a Teams call; another port or address is plain STUN', async () => {
    expect(await udpAt(HOME, AZURE, 50510, 3478, [stunReq, stunOk])).toBe('STUN.Skype_TeamsCall (DPI)');
    expect(await udpAt(HOME, AZURE, 50511, 3481, [stunReq, stunOk])).toBe('STUN.Skype_TeamsCall (DPI)');
    expect(await udpAt(HOME, AZURE, 50512, 3482, [stunReq, stunOk])).toBe('STUN (DPI)');
    expect(await udpAt(HOME, OTHER, 50513, 3478, [stunReq, stunOk])).toBe('STUN (DPI)');
  });

  it('Azure named by its address on UDP 3479 is a Teams call, named so by IP', async () => {
    expect(await givenUp(HOME, AZURE, 40003, 40002)).toBe('Azure (Match by IP)');
    expect(await givenUp(HOME, AZURE, 40004, 3481)).toBe('Skype_TeamsCall (Match by IP)');
  });
});

describe('the give-up’s port guess', () => {
  it('over UDP, SNMP and NetFlow are not guessed by port once their dissector ruled the flow out (nDPI is_udp_not_guessable_protocol)', async () => {
    expect(await givenUp(HOME, OTHER, 40010, 161)).toBe('Unknown (Unknown)');
    expect(await givenUp(HOME, OTHER, 40011, 2055)).toBe('Unknown (Unknown)');
    // an empty datagram is dissected by no one: the port's guess stands
    expect(await givenUp(HOME, OTHER, 40012, 161, Buffer.alloc(0))).toBe('SNMP (Match by port)');
    expect(await givenUp(HOME, OTHER, 40013, 2055, Buffer.alloc(0))).toBe('NetFlow (Match by port)');
    // other protocols keep their guess after a payload their dissector refused (DNS on 53)
    expect(await givenUp(HOME, OTHER, 40014, 53)).toBe('DNS (Match by port)');
  });
});
