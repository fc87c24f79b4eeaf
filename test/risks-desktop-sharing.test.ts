// nDPI's "Desktop/File Sharing" risk (NDPI_DESKTOP_OR_FILE_SHARING_SESSION)
// rides on the remote-desktop dissectors that raise it in nDPI: VNC,
// TeamViewer over UDP, NoMachine and Radmin (RDP and AnyDesk get it
// at classification); other protocols do not carry it.
import { describe, expect, it } from 'vitest';

import { flowRunner } from './fixtures/dissect.js';
import { le32, txt, u16 } from './fixtures/bytes.js';

const run = flowRunner('fg-risk-desktop-');
const RISK = 'Desktop/File Sharing';

describe('desktop sharing risk', () => {
  it('VNC: the RFB version banners both ways (RFC 6143 §7.1.1)', async () => {
    const { flow } = await run('tcp', 50100, 5900, [txt('RFB 003.008\n'), txt('RFB 003.008\n')], [false, true]);
    expect(flow.risks).toContain(RISK);
  });

  it('NoMachine: the NX server greeting', async () => {
    const { flow } = await run('tcp', 50101, 4000, [txt('NXSH-8.10.1\n'), txt('NXD-8.10.1\n')]);
    expect(flow.risks).toContain(RISK);
  });

  it('TeamViewer: over UDP only, as nDPI flags it', async () => {
    // UDP: byte 0 zero, bytes 11-12 0x17 0x24; on port 5938 the first one names it
    const udpPkt = Buffer.concat([Buffer.alloc(11, 0), Buffer.from([0x17, 0x24]), Buffer.alloc(20, 2)]);
    const udp = await run('udp', 50110, 5938, [udpPkt]);
    expect(udp.flow.risks).toContain(RISK);
    // TCP: four packets opening 0x17 0x24 / 0x11 0x30 name it, without the risk
    const hello = Buffer.concat([Buffer.from([0x17, 0x24, 0x0a, 0x20]), Buffer.alloc(30, 0)]);
    const data = Buffer.concat([Buffer.from([0x11, 0x30, 0x36, 0x00]), Buffer.alloc(40, 1)]);
    const tcp = await run('tcp', 8787, 32177, [hello, hello, hello, data], [true, true, true, false]);
    expect(tcp.flow.l7_app || tcp.flow.l7_master).toBeGreaterThan(0);
    expect(tcp.flow.risks).not.toContain(RISK);
  });

  it('not on other protocols: Zabbix, an unanswered banner', async () => {
    const zbx = Buffer.concat([txt('ZBXD'), Buffer.from([1]), le32(2), le32(0), txt('{}')]);
    expect((await run('tcp', 50102, 10051, [zbx, zbx])).flow.risks).not.toContain(RISK);
    // one RFB banner only: not VNC yet, no risk
    expect((await run('tcp', 50103, 5900, [txt('RFB 003.008\n')], [false])).flow.risks).not.toContain(RISK);
    expect((await run('tcp', 50104, 5900, [Buffer.concat([u16(1), txt('hello')])])).flow.risks).not.toContain(RISK);
  });
});
