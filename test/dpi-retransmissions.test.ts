// Retransmissions before the match, as nDPI sees them (ndpi_main.c,
// ndpi_connection_tracking): a payload segment starting outside its side's
// next 64 KiB, after a segment with payload, is one; no dissector reads it,
// but nDPI's packet_counter counts it. Dissectors that keep their own stage
// (PostgreSQL's postgres_stage, VNC's vnc_stage, Telnet's telnet_stage,
// tinc's tinc_state) step once per packet they read, so a retransmission
// in between changes nothing for them. nDPI knows a side's next byte once
// that side spoke or once a packet with ACK other than the flow's first
// carried it as its acknowledgement number: in a flow seen from its middle
// with one side silent, the talking side's repeats are retransmissions
// already. Every case's pcap was also run through ndpiReader 4.11, which
// gave the names expected here (FLOWGATE_TEST_PCAPS=dir keeps them there).
import { describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { type TcpMsg as Msg, sessionReplayer } from './fixtures/dissect.js';

const replay = sessionReplayer('retrans');
async function classify(ports: [number, number], msgs: Msg[], handshake = true): Promise<string> {
  const f = await replay(['10.0.0.1', '10.0.0.2'], ports, msgs, { handshake, acks: true });
  return l7Name(f.l7_master, f.l7_app);
}

const b = (s: string) => Buffer.from(s, 'latin1');
const hex = (s: string) => Buffer.from(s.replace(/ /g, ''), 'hex');
/** The message again: a retransmission. */
const again = (m: Msg): Msg => [m[0], m[1], 'again'];

describe('a retransmission before the match leaves dissectors that count their own steps in step', () => {
  it('PostgreSQL: the SSLRequest, its retransmission, then the answer', async () => {
    const req: Msg = [true, hex('00000008 04d2162f')]; // SSLRequest: length 8, code 80877103
    const no: Msg = [false, b('N')];
    expect(await classify([40100, 35432], [req, again(req), no])).toBe('PostgreSQL');
    expect(await classify([40101, 35432], [req, no])).toBe('PostgreSQL');
    // a second request read in between is another step: not PostgreSQL
    expect(await classify([40102, 35432], [req, req, no])).toBe('Unknown');
  });

  it("VNC: the server's banner, its retransmission, the client's banner", async () => {
    const srv: Msg = [false, b('RFB 003.008\n')];
    const cli: Msg = [true, b('RFB 003.008\n')];
    expect(await classify([40110, 45900], [srv, again(srv), cli])).toBe('VNC');
    expect(await classify([40111, 45900], [srv, cli])).toBe('VNC');
  });

  it('Telnet: named on the third IAC packet read, not on the third packet', async () => {
    const iac = (c: boolean): Msg => [c, hex('fffd22 fffd20 fffb05')];
    const text: Msg = [false, b('\r\nUser Access Verification\r\n\r\nUsername: ')];
    // two IAC packets read (the repeat is not) and text: not Telnet
    expect(await classify([40120, 47023], [iac(false), again(iac(false)), iac(true), text])).toBe('Unknown');
    expect(await classify([40121, 47023], [iac(false), iac(true), iac(false), text])).toBe('Telnet');
  });

  it('tinc: a repeated ID line does not take a step of the handshake', async () => {
    const id = (c: boolean, name: string): Msg => [c, b(`0 ${name} 17\n`)];
    const key = (c: boolean, k: string): Msg => [c, b(`1 94 64 0 0 ${k}\n`)];
    const hello: Msg[] = [id(true, 'alice'), id(false, 'bob'), key(true, '7A2B9C04D1E8F3A6'), key(false, '00FF11EE22DD33CC')];
    expect(await classify([40130, 41655], [hello[0]!, again(hello[0]!), ...hello.slice(1)])).toBe('TINC');
    expect(await classify([40131, 41655], hello)).toBe('TINC');
  });
});

describe('a flow seen from its middle', () => {
  // Warcraft III's client: the game selector byte, then a BNCS message (0xff, id, length 8);
  // nDPI names it on the flow's third payload packet that keeps the shape
  const selector: Msg = [true, hex('01')];
  const msg: Msg = [true, hex('ff50 0800 00000000')];
  it("the talking side's repeat is a retransmission once an ACK gave nDPI the other side's next byte", async () => {
    // the repeat is nDPI's third payload packet but read by no dissector; the server's answer
    // (not of the shape) then rules Warcraft III out
    const reply: Msg = [false, b('hello there')];
    expect(await classify([40140, 46112], [selector, msg, again(msg), reply], false)).toBe('Unknown');
    // a new message instead is read: Warcraft III
    expect(await classify([40141, 46112], [selector, msg, msg, reply], false)).toBe('Warcraft3');
  });
});
