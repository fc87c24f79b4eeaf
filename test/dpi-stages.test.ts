// Dissector stages nDPI keeps per flow, kept here in bits of a shared
// scratch byte (dpi.h kScratchUsenet): Telnet's telnet_stage counts the IAC
// packets it read (the third names the flow, whatever came between), VNC's
// vnc_stage the side of the first banner (the second must come from the
// other); and Telnet's reading after the match (search_telnet_again) for
// clear-text credentials. Every case's pcap was also run through ndpiReader
// 4.11, which gave the names and risks expected here (FLOWGATE_TEST_PCAPS=dir
// keeps them there).
import { describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { type TcpMsg as Msg, sessionReplayer } from './fixtures/dissect.js';

const replay = sessionReplayer('stages');
async function run(ports: [number, number], msgs: Msg[]): Promise<{ name: string; risks: string[] }> {
  const f = await replay(['10.0.0.1', '10.0.0.2'], ports, msgs, { acks: true });
  return { name: l7Name(f.l7_master, f.l7_app), risks: f.risks };
}
const txt = (s: string) => Buffer.from(s, 'latin1');
const hex = (s: string) => Buffer.from(s.replace(/ /g, ''), 'hex');
const CREDS = 'Clear-Text Credentials';

describe("Telnet's stage: its third IAC packet read", () => {
  const iac = (c: boolean): Msg => [c, hex('fffd18 fffd20')];
  const banner: Msg = [false, txt('Welcome to the lab\r\n')];
  it('text between the IAC packets does not count', async () => {
    expect((await run([40300, 47023], [iac(false), banner, iac(true)])).name).toBe('Unknown');
    expect((await run([40301, 47023], [iac(false), banner, iac(true), iac(false)])).name).toBe('Telnet');
  });
});

describe("Telnet's reading for credentials after the match", () => {
  const nego: Msg[] = [[false, hex('fffd18 fffd20')], [true, hex('fffb18 fffb20')], [false, hex('fffa1801 fff0')]]; // named on the third
  it('the line ending the user name after the login prompt', async () => {
    const login: Msg[] = [[false, txt('login: ')], [true, txt('r')], [true, txt('oot')], [true, txt('\r\n')]];
    expect(await run([40310, 47023], [...nego, ...login])).toEqual({ name: 'Telnet', risks: expect.arrayContaining([CREDS]) });
    expect((await run([40311, 47023], [...nego, ...login.slice(0, 3)])).risks).not.toContain(CREDS);
  });
  it('before the prompt, only a short packet opening with CR ends a name; a longer one passes by', async () => {
    expect((await run([40320, 47023], [...nego, [false, txt('\r\nUser Access Verification\r\n')]])).risks).not.toContain(CREDS);
    expect((await run([40321, 47023], [...nego, [true, txt('\r\n')]])).risks).toContain(CREDS);
    expect((await run([40322, 47023], [...nego, [true, txt('\n')]])).risks).not.toContain(CREDS); // CR only
  });
});

describe("VNC's stage: the second banner from the other side", () => {
  const banner = (c: boolean): Msg => [c, txt('RFB 003.008\n')];
  it("the server's banner, then the client's: VNC; twice the server's: not", async () => {
    expect((await run([40330, 45900], [banner(false), banner(true)])).name).toBe('VNC');
    expect((await run([40331, 45900], [banner(false), banner(false)])).name).toBe('Unknown');
  });
});
