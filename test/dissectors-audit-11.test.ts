// Audit 11: OpenVPN, WireGuard, SoftEther, KCP and Cloudflare WARP checked
// against nDPI 4.11's own source (src/lib/protocols/<name>.c). One
// hand-built flow per case, its messages built from the protocols' own
// documents: what nDPI accepts is named by DPI, a near miss (one detail
// wrong) is not.
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, ipv6, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { hex, le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-11-');
const tmp = tempDir('fg-dissectors-audit-11r-');
afterAll(() => tmp.cleanup());
const v6 = { v6: true };

/**
 * One flow between chosen addresses (IPv6 when they are): messages [from the
 * client?, payload], over UDP or a TCP session; its "name (confidence)".
 * `ended`: the capture's end ends the flow, as ndpiReader gives up on the
 * flows it could not name (the guess by port).
 */
let nAt = 0;
async function flowAt(l4: 'udp' | 'tcp', cli: string, srv: string, cport: number, sport: number, msgs: [boolean, Buffer][], ended = false): Promise<string> {
  const six = cli.includes(':');
  const frames =
    l4 === 'tcp'
      ? tcpSession(cli, srv, cport, sport, msgs)
      : msgs.map(([c, p]) => {
          const l4data = udp({ sport: c ? cport : sport, dport: c ? sport : cport }, p);
          const [s, d] = c ? [cli, srv] : [srv, cli];
          return six
            ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.UDP }, l4data))
            : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, l4data));
        });
  return replayFrames(
    join(tmp.dir, `at-${nAt++}.pcap`),
    frames,
    (e) => {
      if (ended) {
        const [f] = e.drainExpired(4);
        return `${l7Name(f!.l7_master, f!.l7_app)} (${f!.confidence})`;
      }
      const f = e.flows({ limit: 1 }).rows[0]!;
      return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
    },
    { flushAtEnd: ended },
  );
}
/** The same flow between the fixtures' addresses, ended with the capture. */
const ended = (cport: number, sport: number, msgs: [boolean, Buffer][]) => flowAt('udp', '10.0.0.1', '10.0.0.2', cport, sport, msgs, true);
const dirsOf = (msgs: [boolean, Buffer][]) => msgs.map(([c]) => c);
const payloadsOf = (msgs: [boolean, Buffer][]) => msgs.map(([, p]) => p);
/** classify() of [from the client?, payload] messages. */
const run = (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: [boolean, Buffer][], opts = {}) =>
  classify(l4, cport, sport, payloadsOf(msgs), dirsOf(msgs), opts);

// An address of nDPI's ProtonVPN list (category VPN) and one of TeamViewer's (RemoteAccess).
const PROTONVPN = '2.58.241.66', TEAMVIEWER = '37.252.224.68', HOME = '192.168.1.10';

// ── OpenVPN control channel (OpenVPN's protocol notes, ssl_pkt.h /
// reliable.c): [TCP: u16 length] opcode << 3 | key id, session id (8);
// with tls-auth the HMAC, packet-id (1 on the first packet) and time; the
// ack array (count, packet-ids) and, when it is not empty, the peer's
// session id; the message's packet-id (not in P_ACK_V1); the TLS bytes.
const OP = { RESET_CLIENT_V1: 1, RESET_SERVER_V1: 2, SOFT_RESET: 3, CONTROL: 4, ACK: 5, DATA_V1: 6, RESET_CLIENT_V2: 7, RESET_SERVER_V2: 8, DATA_V2: 9, RESET_CLIENT_V3: 10, CONTROL_WKC: 11 } as const;
const CSID = hex('1122334455667788'), SSID = hex('99aabbccddeeff01'), OTHER = hex('1122334455667789');
interface OvpnMsg {
  op: number;
  sid: Buffer;
  key?: number;
  hmac?: 0 | 16 | 20;
  acks?: number[];
  remote?: Buffer;
  pid?: number;
  body?: Buffer;
  tcp?: boolean;
  lenDelta?: number;
}
function ovpn(m: OvpnMsg): Buffer {
  const parts = [Buffer.from([(m.op << 3) | (m.key ?? 0)]), m.sid];
  if (m.hmac) parts.push(Buffer.alloc(m.hmac, 0xa7), u32(1), u32(1700000000));
  const acks = m.acks ?? [];
  parts.push(Buffer.from([acks.length]), ...acks.map(u32));
  if (acks.length) parts.push(m.remote ?? CSID);
  if (m.op !== OP.ACK) parts.push(u32(m.pid ?? 0));
  if (m.body) parts.push(m.body);
  const msg = Buffer.concat(parts);
  return m.tcp ? Buffer.concat([u16(msg.length + (m.lenDelta ?? 0)), msg]) : msg;
}
const cReset = (o: Partial<OvpnMsg> = {}) => ovpn({ op: OP.RESET_CLIENT_V2, sid: CSID, ...o });
// the server's reset acknowledging the client's packet 0 (its session id as the peer's)
const sReset = (o: Partial<OvpnMsg> = {}) => ovpn({ op: OP.RESET_SERVER_V2, sid: SSID, acks: [0], ...o });
const sResetNoAck = (o: Partial<OvpnMsg> = {}) => ovpn({ op: OP.RESET_SERVER_V2, sid: SSID, ...o });
const cCtl = (o: Partial<OvpnMsg> = {}) => ovpn({ op: OP.CONTROL, sid: CSID, pid: 1, body: Buffer.alloc(40, 0x16), ...o });
const sCtl = (o: Partial<OvpnMsg> = {}) => ovpn({ op: OP.CONTROL, sid: SSID, acks: [1], pid: 1, body: Buffer.alloc(40, 0x16), ...o });

describe('OpenVPN (openvpn.c)', () => {
  it("(1) the server's hard reset carrying the client's session id names the flow; another session id rules it out", async () => {
    expect(await run('udp', 41100, 1194, [[true, cReset()], [false, sReset()]])).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41101, 41194, [[true, cReset()], [false, sReset()]])).toBe('OpenVPN (DPI)');
    // V1 resets, and the V3 client reset answered by a V2 server reset
    expect(await run('udp', 41102, 41194, [[true, cReset({ op: OP.RESET_CLIENT_V1 })], [false, sReset({ op: OP.RESET_SERVER_V1 })]])).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41103, 41194, [[true, cReset({ op: OP.RESET_CLIENT_V3 })], [false, sReset()]])).toBe('OpenVPN (DPI)');
    // a mismatch rules OpenVPN out: not even the later control messages name it
    const wrong: [boolean, Buffer][] = [[true, cReset()], [false, sReset({ remote: OTHER })], [true, cCtl()], [false, sCtl()]];
    expect(await run('udp', 41104, 41194, wrong)).not.toBe('OpenVPN (DPI)');
    // the ack array running past the end rules it out too
    expect(await run('udp', 41105, 41194, [[true, cReset()], [false, sReset({ acks: [0, 1, 2, 3, 4] }).subarray(0, 30)], [true, cCtl()], [false, sCtl()]])).not.toBe('OpenVPN (DPI)');
  });

  it('(1) with tls-auth: the HMAC size is guessed from a packet-id of 1 after 20 or 16 bytes', async () => {
    expect(await run('udp', 41110, 41194, [[true, cReset({ hmac: 20, pid: 0 })], [false, sReset({ hmac: 20 })]])).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41111, 41194, [[true, cReset({ hmac: 16 })], [false, sReset({ hmac: 16 })]])).toBe('OpenVPN (DPI)');
    // the session id where no HMAC size reads it: the reset says nothing (a second exchange would name it)
    const shifted = Buffer.concat([sReset({ hmac: 20 }).subarray(0, 29), u32(2), sReset({ hmac: 20 }).subarray(33)]);
    expect(await run('udp', 41112, 41194, [[true, cReset()], [false, shifted]])).not.toBe('OpenVPN (DPI)');
  });

  it("an empty ack array says nothing; (2) a second packet each way with the same session ids names the flow", async () => {
    expect(await run('udp', 41120, 41194, [[true, cReset()], [false, sResetNoAck()]])).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41121, 41194, [[true, cReset()], [false, sResetNoAck()], [true, cCtl()], [false, sCtl()]])).toBe('OpenVPN (DPI)');
    // ACK_V1 and CONTROL_WKC_V1 count as later messages
    expect(await run('udp', 41122, 41194, [[true, cReset({ op: OP.RESET_CLIENT_V3 })], [false, sResetNoAck()], [true, cCtl({ op: OP.CONTROL_WKC })], [false, ovpn({ op: OP.ACK, sid: SSID, acks: [1] })]])).toBe(
      'OpenVPN (DPI)',
    );
    // a direction changing its session id rules it out
    expect(await run('udp', 41123, 41194, [[true, cReset()], [false, sResetNoAck()], [true, cCtl({ sid: OTHER })], [false, sCtl()]])).not.toBe('OpenVPN (DPI)');
  });

  it('(3) four packets one way with one session id and none back name the flow; three do not', async () => {
    const four: [boolean, Buffer][] = [[true, cReset()], [true, cReset()], [true, cReset()], [true, cReset()]];
    expect(await run('udp', 41130, 41194, four)).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41131, 41194, four.slice(0, 3))).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41132, 41194, [...four.slice(0, 3), [true, cReset({ sid: OTHER })]])).not.toBe('OpenVPN (DPI)');
  });

  it("each direction's first packet must be a hard reset; a reset of 1200 bytes or more is not one", async () => {
    expect(await run('udp', 41140, 41194, [[true, cCtl()], [false, sReset()]])).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41141, 41194, [[true, cReset()], [false, sCtl()], [true, cCtl()], [false, sCtl()]])).not.toBe('OpenVPN (DPI)');
    // the whole payload counts: 1199 bytes is still a reset
    expect(await run('udp', 41142, 41194, [[true, cReset({ body: Buffer.alloc(1199 - 14, 0x2e) })], [false, sReset()]])).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41143, 41194, [[true, cReset({ body: Buffer.alloc(1200 - 14, 0x2e) })], [false, sReset()]])).not.toBe('OpenVPN (DPI)');
  });

  it('key id 0, a known opcode, 14 bytes and no STUN cookie on every packet', async () => {
    const then = (third: Buffer): [boolean, Buffer][] => [[true, cReset()], [false, sResetNoAck()], [true, third], [false, sCtl()]];
    expect(await run('udp', 41150, 41194, then(cCtl({ key: 1 })))).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41151, 41194, [[true, cReset({ key: 1 })], [false, sReset()]])).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41152, 41194, then(cCtl({ op: OP.SOFT_RESET })))).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41153, 41194, then(cCtl({ op: OP.DATA_V2 })))).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41154, 41194, then(cCtl({ op: OP.DATA_V1 })))).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41155, 41194, then(cCtl().subarray(0, 13)))).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41156, 41194, then(cCtl().subarray(0, 14)))).toBe('OpenVPN (DPI)');
    // the STUN magic cookie at offset 4 (here inside the session id)
    const stunLike = hex('0000002112a44200');
    expect(await run('udp', 41157, 41194, [[true, cReset({ sid: stunLike })], [false, sReset({ remote: stunLike })]])).not.toBe('OpenVPN (DPI)');
    const near = hex('0000002112a44300');
    expect(await run('udp', 41158, 41194, [[true, cReset({ sid: near })], [false, sReset({ remote: near })]])).toBe('OpenVPN (DPI)');
  });

  it('not named by the sixth payload packet, it is ruled out', async () => {
    const start: [boolean, Buffer][] = [[true, cReset()], [false, sResetNoAck()], [true, cCtl()], [true, cCtl()]];
    expect(await run('udp', 41160, 41194, [...start, [false, sCtl()]])).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41161, 41194, [...start, [true, cCtl()], [false, sCtl()]])).toBe('OpenVPN (DPI)');
    expect(await run('udp', 41162, 41194, [...start, [true, cCtl()], [true, cCtl()], [false, sCtl()]])).not.toBe('OpenVPN (DPI)');
  });

  it("over TCP: a length first, checked on each direction's first packet only; IPv6 as IPv4", async () => {
    const t = { tcp: true };
    expect(await run('tcp', 41170, 1194, [[true, cReset(t)], [false, sReset(t)]])).toBe('OpenVPN (DPI)');
    expect(await run('tcp', 41171, 41194, [[true, cReset(t)], [false, sReset(t)]], v6)).toBe('OpenVPN (DPI)');
    expect(await run('tcp', 41172, 41194, [[true, cReset({ ...t, lenDelta: 1 })], [false, sReset(t)]])).not.toBe('OpenVPN (DPI)');
    expect(await run('tcp', 41173, 41194, [[true, cReset(t)], [false, sReset({ ...t, lenDelta: -1 })]])).not.toBe('OpenVPN (DPI)');
    // a later message's length is not read
    expect(await run('tcp', 41174, 41194, [[true, cReset(t)], [false, sResetNoAck(t)], [true, cCtl({ ...t, lenDelta: 7 })], [false, sCtl(t)]])).toBe('OpenVPN (DPI)');
    // without its length the message is read from the wrong byte
    expect(await run('tcp', 41175, 41194, [[true, cReset()], [false, sReset()]])).not.toBe('OpenVPN (DPI)');
    expect(await run('udp', 41176, 41194, [[true, cReset()], [false, sReset()]], v6)).toBe('OpenVPN (DPI)');
  });

  it("a flow to an address nDPI files under a VPN application is OpenVPN.<it> (subclassification by IP, on by default)", async () => {
    expect(await flowAt('udp', HOME, PROTONVPN, 41180, 1194, [[true, cReset()], [false, sReset()]])).toBe('OpenVPN.ProtonVPN (DPI)');
    expect(await flowAt('tcp', HOME, PROTONVPN, 41181, 443, [[true, cReset({ tcp: true })], [false, sReset({ tcp: true })]])).toBe('OpenVPN.ProtonVPN (DPI)');
    // an application of another category leaves it OpenVPN
    expect(await flowAt('udp', HOME, TEAMVIEWER, 41182, 1194, [[true, cReset()], [false, sReset()]])).toBe('OpenVPN (DPI)');
  });
});

// ── WireGuard (wireguard.com/protocol): type, 3 reserved zero bytes, then
// initiation (148): sender, ephemeral, static, timestamp, mac1, mac2;
// response (92): sender, receiver, ephemeral, empty, mac1, mac2; cookie
// reply (64): receiver, nonce, cookie; transport data: receiver, counter
// (8), the encrypted packet (16 bytes of tag at least).
const I = 0x11223344, R = 0x55667788;
const wg = (type: number, fields: Buffer[], size: number) => {
  const head = Buffer.concat([Buffer.from([type, 0, 0, 0]), ...fields]);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 0x5c)]);
};
const wgInit = (sender = I, size = 148) => wg(1, [le32(sender)], size);
const wgResp = (receiver = I, size = 92, sender = R) => wg(2, [le32(sender), le32(receiver)], size);
const wgCookie = (receiver = I) => wg(3, [le32(receiver)], 64);
const wgData = (receiver: number, counter = 0, size = 32) => wg(4, [le32(receiver), le32(counter), le32(0)], size);

describe('WireGuard (wireguard.c)', () => {
  it("the response or cookie reply to an initiation names the flow when its receiver index is the initiation's sender", async () => {
    expect(await run('udp', 41200, 51820, [[true, wgInit()], [false, wgResp()]])).toBe('WireGuard (DPI)');
    expect(await run('udp', 41201, 41820, [[true, wgInit()], [false, wgResp()]])).toBe('WireGuard (DPI)');
    expect(await run('udp', 41202, 41820, [[true, wgInit()], [false, wgCookie()]])).toBe('WireGuard (DPI)');
    // another receiver index rules it out
    expect(await run('udp', 41203, 41820, [[true, wgInit()], [false, wgResp(I + 1)]])).not.toBe('WireGuard (DPI)');
    expect(await run('udp', 41204, 41820, [[true, wgInit()], [false, wgCookie(I ^ 0x10000)]])).not.toBe('WireGuard (DPI)');
    // from the initiator's own direction it says nothing
    expect(await run('udp', 41205, 41820, [[true, wgInit()], [true, wgResp()]])).not.toBe('WireGuard (DPI)');
    // the server may initiate too
    expect(await run('udp', 41206, 41820, [[false, wgInit()], [true, wgResp()]])).toBe('WireGuard (DPI)');
  });

  it('TunnelBear: the 100-byte response names WireGuard.TunnelBear, whatever the initiation', async () => {
    expect(await run('udp', 41210, 41820, [[true, wgInit(I, 204)], [false, wgResp(I, 100)]])).toBe('WireGuard.TunnelBear (DPI)');
    expect(await run('udp', 41211, 41820, [[true, wgInit(I, 148)], [false, wgResp(I, 100)]])).toBe('WireGuard.TunnelBear (DPI)');
    expect(await run('udp', 41212, 41820, [[true, wgInit(I, 204)], [false, wgResp(I, 92)]])).toBe('WireGuard (DPI)');
    expect(await run('udp', 41213, 41820, [[true, wgInit(I, 204)], [false, wgResp(I, 101)]])).not.toMatch(/^WireGuard/);
  });

  it("an initiation that is not the flow's first packet (a retry) names it at once", async () => {
    expect(await run('udp', 41220, 41820, [[true, wgInit()]])).not.toBe('WireGuard (DPI)');
    expect(await run('udp', 41221, 41820, [[true, wgInit()], [true, wgInit()]])).toBe('WireGuard (DPI)');
    // a retried TunnelBear initiation is plain WireGuard
    expect(await run('udp', 41222, 41820, [[true, wgInit(I, 204)], [true, wgInit(I, 204)]])).toBe('WireGuard (DPI)');
    // any packet before it counts, an empty datagram too
    expect(await run('udp', 41223, 41820, [[true, Buffer.alloc(0)], [true, wgInit()]])).toBe('WireGuard (DPI)');
    expect(await run('udp', 41224, 41820, [[false, wgData(R)], [true, wgInit()]])).toBe('WireGuard (DPI)');
  });

  it("transport data: each direction's receiver index noted, then repeated; it makes WireGuard the flow's guess", async () => {
    expect(await run('udp', 41230, 41820, [[true, wgData(R, 0)], [false, wgData(I, 0)], [true, wgData(R, 1, 80)]])).toBe('WireGuard (DPI)');
    expect(await run('udp', 41231, 41820, [[true, wgData(R, 0)], [false, wgData(I, 0)], [false, wgData(I, 1, 48)]])).toBe('WireGuard (DPI)');
    // another index rules it out, yet the give-up still guesses WireGuard (no port says so)
    expect(await ended(41232, 41820, [[true, wgData(R, 0)], [false, wgData(I, 0)], [true, wgData(I, 1)]])).toBe('WireGuard (Match by port)');
    // one direction only: no decision, the same guess; without transport data, none
    expect(await ended(41235, 41820, [[true, wgInit()], [true, wgResp()]])).toBe('Unknown (Unknown)');
    expect(await ended(41233, 41820, [[true, wgData(R, 0)], [true, wgData(R, 1)], [true, wgData(R, 2)]])).toBe('WireGuard (Match by port)');
    // after an initiation, transport data does not advance the stages
    expect(await ended(41234, 41820, [[true, wgInit()], [true, wgData(R, 0)], [false, wgData(I, 0)], [true, wgData(R, 1)]])).toBe('WireGuard (Match by port)');
  });

  it('under 32 bytes, a reserved byte set, another type or a handshake of another size rule it out', async () => {
    expect(await run('udp', 41240, 41820, [[true, wgData(R, 0, 31)], [false, wgData(I, 0)], [true, wgData(R, 1)]])).not.toMatch(/^WireGuard/);
    const reserved = wgInit();
    reserved[2] = 1;
    expect(await run('udp', 41241, 41820, [[true, reserved], [false, wgResp()]])).not.toMatch(/^WireGuard/);
    expect(await run('udp', 41242, 41820, [[true, wg(5, [le32(I)], 148)], [false, wgResp()]])).not.toMatch(/^WireGuard/);
    expect(await run('udp', 41243, 41820, [[true, wgInit(I, 149)], [false, wgResp()]])).not.toMatch(/^WireGuard/);
    expect(await run('udp', 41244, 41820, [[true, wgInit()], [false, wgResp(I, 93)]])).not.toMatch(/^WireGuard/);
    expect(await run('udp', 41245, 41820, [[true, wgInit()], [false, wg(3, [le32(I)], 65)]])).not.toMatch(/^WireGuard/);
  });

  it('IPv6 as IPv4; an address nDPI files under a VPN application names WireGuard.<it>, before TunnelBear', async () => {
    expect(await run('udp', 41250, 41820, [[true, wgInit()], [false, wgResp()]], v6)).toBe('WireGuard (DPI)');
    expect(await run('udp', 41251, 41820, [[true, wgData(R, 0)], [false, wgData(I, 0)], [true, wgData(R, 1)]], v6)).toBe('WireGuard (DPI)');
    expect(await flowAt('udp', HOME, PROTONVPN, 41252, 51820, [[true, wgInit()], [false, wgResp()]])).toBe('WireGuard.ProtonVPN (DPI)');
    expect(await flowAt('udp', HOME, PROTONVPN, 41253, 51820, [[true, wgInit(I, 204)], [false, wgResp(I, 100)]])).toBe('WireGuard.ProtonVPN (DPI)');
    expect(await flowAt('udp', HOME, TEAMVIEWER, 41254, 51820, [[true, wgInit()], [false, wgResp()]])).toBe('WireGuard (DPI)');
  });
});

// ── SoftEther (its NAT-traversal address report and Mayaqua PACK; see
// dissectors-9f for the PACK builder's cases).
describe('SoftEther (softether.c)', () => {
  it('"IP=" then ",PORT=" before any NUL, 10 to 29 bytes', async () => {
    expect(await classify('udp', 41300, 5004, [txt('IP=,PORT=1')])).toBe('Softether (DPI)');
    expect(await classify('udp', 41301, 5004, [txt('IP=,PORT=')])).not.toBe('Softether (DPI)');
    expect(await classify('udp', 41302, 5004, [txt('IP=203.0.113.5\x00,PORT=5555')])).not.toBe('Softether (DPI)');
    const at29 = txt('IP=203.0.113.250,PORT=5555555');
    expect(at29.length).toBe(29);
    expect(await classify('udp', 41303, 5004, [at29])).toBe('Softether (DPI)');
    expect(await classify('udp', 41304, 5004, [Buffer.concat([at29, txt('5')])])).not.toBe('Softether (DPI)');
  });

  it('keep-alives (0x41) in the first two payload packets only; a PACK with a type word over 4 is not one', async () => {
    expect(await classify('udp', 41310, 5004, [hex('41'), txt('IP=1.2.3.4,PORT=5')], [true, true])).toBe('Softether (DPI)');
    expect(await classify('udp', 41311, 5004, [hex('41'), hex('41'), hex('41')], [true, true, true])).not.toBe('Softether (DPI)');
    // one element: name "a" (its length + 1), type 2 (str), count 1, an 80-byte string
    const pack = (type: number) => Buffer.concat([u32(1), u32(2), txt('a'), u32(type), u32(1), u32(80), Buffer.alloc(80, 0x61)]);
    expect(pack(2).length).toBeGreaterThanOrEqual(99);
    expect(await classify('udp', 41312, 5004, [pack(2)])).toBe('Softether (DPI)');
    expect(await classify('udp', 41313, 5004, [pack(5)])).not.toBe('Softether (DPI)');
    expect(await classify('udp', 41314, 5004, [pack(2)], undefined, v6)).toBe('Softether (DPI)');
  });
});

// ── KCP (skywind3000/kcp, ikcp.c): conv (4), cmd, frg, wnd (2), ts, sn,
// una, len (4 each, little-endian), then len bytes of data.
const kcp = (cmd: number, data = 16, lenDelta = 0) =>
  Buffer.concat([le32(0x0badcafe), Buffer.from([cmd, 0]), Buffer.from([0x80, 0]), le32(1700), le32(0), le32(0), le32(data + lenDelta), Buffer.alloc(data, 0x42)]);

describe('KCP (kcp.c)', () => {
  it('PUSH, ACK, WASK, WINS with a length that covers the rest, on the first packet, UDP or TCP', async () => {
    for (const [i, cmd] of [81, 82, 83, 84].entries()) expect(await classify('udp', 41400 + i, 4000, [kcp(cmd)])).toBe('KCP (DPI)');
    expect(await classify('udp', 41404, 4000, [kcp(82, 0)])).toBe('KCP (DPI)');
    expect(await classify('tcp', 41405, 4000, [kcp(81)])).toBe('KCP (DPI)');
    expect(await classify('udp', 41406, 4000, [kcp(81)], undefined, v6)).toBe('KCP (DPI)');
  });
  it('another command, a length one off, under 24 bytes, or not the first packet is not KCP', async () => {
    expect(await classify('udp', 41410, 4000, [kcp(80)])).not.toBe('KCP (DPI)');
    expect(await classify('udp', 41411, 4000, [kcp(81, 16, 1)])).not.toBe('KCP (DPI)');
    expect(await classify('udp', 41412, 4000, [kcp(81, 16, -1)])).not.toBe('KCP (DPI)');
    expect(await classify('udp', 41413, 4000, [kcp(81, 0).subarray(0, 23)])).not.toBe('KCP (DPI)');
    expect(await classify('udp', 41414, 4000, [Buffer.alloc(30, 0x33), kcp(81)])).not.toBe('KCP (DPI)');
  });
});

// ── Cloudflare WARP: decided by nDPI's address list and the WARP ports alone.
describe('Cloudflare WARP (cloudflare_warp.c)', () => {
  const WARP = '162.159.192.1';
  it('UDP to a WARP address on a WARP port; not over TCP, not on another port', async () => {
    expect(await flowAt('udp', HOME, WARP, 41500, 2408, [[true, Buffer.alloc(60, 0xc1)]])).toBe('CloudflareWarp (DPI)');
    expect(await flowAt('udp', HOME, WARP, 41501, 8443, [[true, Buffer.alloc(60, 0xc1)]])).toBe('CloudflareWarp (DPI)');
    expect(await flowAt('udp', HOME, WARP, 41502, 2407, [[true, Buffer.alloc(60, 0xc1)]])).not.toBe('CloudflareWarp (DPI)');
    expect(await flowAt('tcp', HOME, WARP, 41503, 2408, [[true, Buffer.alloc(60, 0xc1)]])).not.toBe('CloudflareWarp (DPI)');
  });
});
