// One hand-built flow per case, replayed through the engine: each dissector
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI (a guess by port may still name it).

import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-4b-');


describe('dissectors 4b', () => {
  it('Spotify: LAN discovery between ports 57621, not from another port; TCP hello, not with a wrong byte', async () => {
    const disc = Buffer.concat([txt('SpotUdp0'), Buffer.alloc(40, 1)]);
    expect(await classify('udp', 57621, 57621, [disc])).toBe('Spotify (DPI)');
    expect(await classify('udp', 57622, 57621, [disc])).not.toMatch(/^Spotify/);
    const hello = Buffer.from([0x00, 0x04, 0x00, 0x00, 0x01, 0x2c, 0x52, 0x0e, 0x50, 0x02, 0xa0, 0x01, 0x01]);
    expect(await classify('tcp', 50100, 4070, [hello])).toBe('Spotify (DPI)');
    const bad = Buffer.from(hello);
    bad[8] = 0x51;
    expect(await classify('tcp', 50101, 4070, [bad])).not.toMatch(/^Spotify/);
  });

  it('PPTP: start-control-connection request, not with a wrong magic cookie', async () => {
    const req = Buffer.alloc(156);
    req.writeUInt16BE(156, 0);
    req.writeUInt16BE(1, 2);
    req.writeUInt32BE(0x1a2b3c4d, 4);
    req.writeUInt16BE(1, 8);
    expect(await classify('tcp', 50110, 1723, [req])).toBe('PPTP (DPI)');
    const bad = Buffer.from(req);
    bad[7] = 0x4e;
    expect(await classify('tcp', 50111, 1723, [bad])).not.toMatch(/^PPTP/);
  });

  it('WhatsApp: Noise prologue, split or whole, not with a wrong version byte', async () => {
    const rest = Buffer.concat([Buffer.from([0, 0, 4, 8]), Buffer.alloc(60, 3)]);
    expect(await classify('tcp', 50120, 5222, [txt('ED\x00\x01'), rest], [true, true])).toBe('WhatsApp (DPI)');
    expect(await classify('tcp', 50121, 443, [Buffer.concat([txt('ED\x00\x01'), rest])])).toBe('WhatsApp (DPI)');
    expect(await classify('tcp', 50122, 5222, [Buffer.concat([txt('ED\x00\x02'), rest])])).not.toMatch(/^WhatsApp/);
  });

  it('SMPP: bind_transmitter and its answer, not with a non-zero status in the request', async () => {
    const body = txt('abhik\0password\0SMPP\0\x34\x00\x00\0');
    const bind = (status: number) => {
      const h = Buffer.alloc(16);
      h.writeUInt32BE(16 + body.length, 0);
      h.writeUInt32BE(2, 4);
      h.writeUInt32BE(status, 8);
      h.writeUInt32BE(1, 12);
      return Buffer.concat([h, body]);
    };
    const resp = Buffer.concat([Buffer.from([0, 0, 0, 21, 0x80, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]), txt('SMSC\0')]);
    expect(await classify('tcp', 50130, 9000, [bind(0), resp])).toBe('SMPP (DPI)');
    expect(await classify('tcp', 50131, 9000, [bind(5)])).not.toMatch(/^SMPP/);
  });

  // nDPI's z3950.c reads simple tag-length elements from offset 2 (the outer
  // length is not checked) and names the flow on its fourth payload packet
  // with six of them, once both directions sent payload: one initRequest
  // alone is not enough.
  it('Z39.50: four PDUs of six elements each way, not one alone, not with an element overrunning the packet', async () => {
    const init = Buffer.from('b41c830200e0840300e9a2850404000000860404000000' + '87020000' + '9f6e023831' + '00', 'hex');
    init[1] = init.length - 2;
    const four = [init, init, init, init];
    expect(await classify('tcp', 50140, 9991, four, [true, false, true, false])).toBe('Z3950 (DPI)');
    expect(await classify('tcp', 50142, 9991, [init])).not.toMatch(/^Z3950/);
    const bad = Buffer.from(init);
    bad[3] = 0x40; // the first element's length runs past the packet
    expect(await classify('tcp', 50141, 9991, [bad, bad, bad, bad], [true, false, true, false])).not.toMatch(/^Z3950/);
  });

  // nDPI's rsh.c reads the stderr port and the users as the flow's first two
  // payload packets, with no port condition; port and users in one packet
  // are not RSH to it (a first packet over 6 bytes excludes).
  it('RSH: stderr port, then users and command, any ports; not both in one packet', async () => {
    const port = txt('1022\0');
    const cmd = txt('alice\0root\0mkdir x\0');
    expect(await classify('tcp', 1022, 514, [port, cmd], [true, true])).toBe('RSH (DPI)');
    expect(await classify('tcp', 1022, 514, [Buffer.concat([port, cmd])])).not.toMatch(/^RSH/);
    expect(await classify('tcp', 50150, 514, [port, cmd], [true, true])).toBe('RSH (DPI)');
  });
});
