// Audit 12: SSH, WebSocket, Mining, HTTP/2, Memcached and RX checked
// against nDPI 4.11's own source (src/lib/protocols/ssh.c, websocket.c,
// mining.c, http2.c, memcached.c, rx.c). Frames are built from the
// protocols' documents (RFC 4253, RFC 6455, RFC 9113, Stratum's JSON-RPC,
// memcached's protocol.txt, the RX spec): what nDPI accepts is named by DPI,
// a near miss (one detail wrong) is not.
import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { txt, u16, u32 } from './fixtures/bytes.js';
import { CLI, CLI6, SRV, SRV6, classifier, flowRunner, replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-audit-12-');
const runFlow = flowRunner('fg-dissectors-audit-12f-');
const tmp = tempDir('fg-dissectors-audit-12r-');
const bytes = (...v: number[]) => Buffer.from(v);
const md5 = (s: string) => createHash('md5').update(Buffer.from(s, 'latin1')).digest('hex');
const v6 = { v6: true };

const CLI_OBS = 'SSH Obsolete Cli Vers/Cipher';
const SRV_OBS = 'SSH Obsolete Ser Vers/Cipher';

// ---------------------------------------------------------------- SSH
// RFC 4253 §7.1 SSH_MSG_KEXINIT in a §6 binary packet (padding to 8 bytes).
interface Kex {
  kex?: string;
  hostkey?: string;
  encCS?: string;
  encSC?: string;
  macCS?: string;
  macSC?: string;
  compCS?: string;
  compSC?: string;
}
const KEX: Required<Kex> = {
  kex: 'curve25519-sha256,diffie-hellman-group14-sha256',
  hostkey: 'ssh-ed25519,rsa-sha2-256',
  encCS: 'aes128-ctr,aes256-gcm@openssh.com',
  encSC: 'aes128-ctr,aes256-gcm@openssh.com',
  macCS: 'hmac-sha2-256',
  macSC: 'hmac-sha2-256',
  compCS: 'none,zlib@openssh.com',
  compSC: 'none',
};
const nameList = (s: string) => Buffer.concat([u32(s.length), txt(s)]);
function kexinit(k: Kex = {}): Buffer {
  const l = { ...KEX, ...k };
  const payload = Buffer.concat([
    bytes(20),
    Buffer.alloc(16, 0x5a), // cookie
    ...[l.kex, l.hostkey, l.encCS, l.encSC, l.macCS, l.macSC, l.compCS, l.compSC, '', ''].map(nameList),
    bytes(0), // first_kex_packet_follows
    u32(0),
  ]);
  let pad = 8 - ((5 + payload.length) % 8);
  if (pad < 4) pad += 8;
  return Buffer.concat([u32(1 + payload.length + pad), bytes(pad), payload, Buffer.alloc(pad)]);
}
const hasshC = (k: Kex = {}) => {
  const l = { ...KEX, ...k };
  return md5(`${l.kex};${l.encCS};${l.macCS};${l.compCS}`);
};
const hasshS = (k: Kex = {}) => {
  const l = { ...KEX, ...k };
  return md5(`${l.kex};${l.encSC};${l.macSC};${l.compSC}`);
};
const NEW = txt('SSH-2.0-OpenSSH_9.6\r\n');
const OLD = txt('SSH-2.0-OpenSSH_6.6.1p1 Ubuntu-2ubuntu2\r\n');

describe('SSH (ssh.c): naming', () => {
  it('the first payload packet, from either side, over 7 bytes opening "SSH-" is SSH (IPv4 and IPv6)', async () => {
    expect(await classify('tcp', 50100, 22, [NEW], [false])).toBe('SSH (DPI)');
    expect(await classify('tcp', 50101, 2222, [NEW], [true])).toBe('SSH (DPI)');
    expect(await classify('tcp', 50102, 2222, [NEW], [false], v6)).toBe('SSH (DPI)');
    expect(await classify('tcp', 50103, 2222, [txt('SSH-2.0\n')], [false])).toBe('SSH (DPI)');
  });
  it('7 bytes, another opening, or a banner after another first packet is not SSH', async () => {
    expect(await classify('tcp', 50104, 2222, [txt('SSH-2.0'), NEW], [false, true])).not.toBe('SSH (DPI)');
    expect(await classify('tcp', 50105, 2222, [txt('SSH_2.0-OpenSSH_9.6\r\n')], [false])).not.toBe('SSH (DPI)');
    expect(await classify('tcp', 50106, 2222, [txt('ssh-2.0-OpenSSH_9.6\r\n')], [false])).not.toBe('SSH (DPI)');
    // a banner split after "SS": the first segment rules SSH out
    expect(await classify('tcp', 50107, 2222, [txt('SS'), txt('H-2.0-OpenSSH_9.6\r\n')], [false, false], v6)).not.toBe('SSH (DPI)');
    expect(await classify('tcp', 50108, 2222, [txt('0123456789abcdef\r\n'), NEW], [true, false])).not.toBe('SSH (DPI)');
    // UDP is not looked at
    expect(await classify('udp', 50109, 2222, [NEW])).not.toBe('SSH (DPI)');
  });
});

describe('SSH (ssh.c): banners and software versions', () => {
  it("the first banner is nDPI's client signature, whoever sent it; its version is judged as the client's", async () => {
    const { flow } = await runFlow('tcp', 50110, 22, [OLD, NEW], [false, true]);
    expect(flow.ssh?.client_banner).toBe('SSH-2.0-OpenSSH_6.6.1p1 Ubuntu-2ubuntu2');
    expect(flow.ssh?.server_banner).toBe('SSH-2.0-OpenSSH_9.6');
    expect(flow.risks).toContain(CLI_OBS);
    expect(flow.risks).not.toContain(SRV_OBS);
    const rev = await runFlow('tcp', 50111, 22, [NEW, OLD], [false, true], undefined, v6);
    expect(rev.flow.risks).toContain(SRV_OBS);
    expect(rev.flow.risks).not.toContain(CLI_OBS);
  });
  // banner → judged obsolete, on each side of nDPI's floors
  const FLOORS: [string, boolean][] = [
    ['SSH-2.0-OpenSSH_6.9', true],
    ['SSH-2.0-OpenSSH_7.0', false],
    ['SSH-1.99-OpenSSH_6.6.1', true],
    ['SSH-2.0-OpenSSH_6', false], // one number only: not judged
    ['SSH-2.0-openssh_6.0', false],
    ['SSH-2.0-APACHE-SSHD-2.5.0', true],
    ['SSH-2.0-APACHE-SSHD-2.5.1', false],
    ['SSH-2.0-FileZilla_3.39.9', true],
    ['SSH-2.0-FileZilla_3.40.0', false],
    ['SSH-2.0-paramiko_2.3.1', true],
    ['SSH-2.0-paramiko_2.4.0', false],
    ['SSH-2.0-dropbear_2019.78', true],
    ['SSH-2.0-dropbear_2020.81', false],
  ];
  it("nDPI's floors: OpenSSH 7.0.0, Apache SSHD 2.5.1, FileZilla 3.40.0, paramiko 2.4.0, dropbear 2020.0", async () => {
    let port = 50120;
    for (const [banner, old] of FLOORS) {
      const { flow } = await runFlow('tcp', port++, 22, [txt(`${banner}\r\n`)], [false]);
      expect([banner, flow.risks.includes(CLI_OBS)]).toEqual([banner, old]);
    }
  });
  it('verdicts stay right when banners recur across flows (a worker remembers its last eight)', async () => {
    // fifteen builds, old and new mixed, each on three flows of one capture,
    // in an order that brings a build back after up to fourteen others
    const builds: [string, boolean][] = [...FLOORS, ['SSH-2.0-OpenSSH_6.6.1p1 Ubuntu-2ubuntu2', true], ['SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13', false]];
    const order = [...builds.keys(), ...builds.keys(), ...[...builds.keys()].reverse()];
    const frames = order.flatMap((b, i) => tcpSession(CLI, SRV, 51000 + i, 22, [[true, txt(`${builds[b]![0]}\r\n`)]]));
    const risks = await replayFrames(
      tmp.file('banners.pcap'),
      frames,
      (e: Engine) => Object.fromEntries(e.drainExpired(256).map((f) => [f.cli_port, f.risks.includes(CLI_OBS)])),
      { flushAtEnd: true, workers: 1 },
    );
    expect(order.map((b, i) => [builds[b]![0], risks[51000 + i]])).toEqual(order.map((b) => builds[b]));
  });
  it('the other banner counts from 8 to 499 bytes', async () => {
    const pad = (n: number) => Buffer.concat([txt('SSH-2.0-OpenSSH_5.3 '), Buffer.alloc(n - 22, 0x61), txt('\r\n')]);
    expect((await runFlow('tcp', 50140, 22, [NEW, pad(499)], [false, true])).flow.risks).toContain(SRV_OBS);
    expect((await runFlow('tcp', 50141, 22, [NEW, pad(500)], [false, true])).flow.risks).not.toContain(SRV_OBS);
  });
  it('a signature is the first 47 bytes, cut at a NUL, trailing line ends dropped', async () => {
    const long = 'SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5 with a long comment';
    const a = await runFlow('tcp', 50142, 22, [txt(`${long}\r\n`)], [false]);
    expect(a.flow.ssh?.client_banner).toBe(long.slice(0, 47));
    // banner and KEXINIT in one segment: the copy stops at the KEXINIT's first NUL, the CRLF stays
    const b = await runFlow('tcp', 50143, 22, [Buffer.concat([NEW, kexinit()])], [false]);
    expect(b.flow.ssh?.client_banner).toBe('SSH-2.0-OpenSSH_9.6\r\n');
    expect(b.flow.ssh?.hassh_server).toBeUndefined(); // that KEXINIT is not read
  });
});

describe('SSH (ssh.c): KEXINIT', () => {
  it("HASSH by nDPI's direction: the lower-port side's lists are the server's", async () => {
    const { flow } = await runFlow('tcp', 50150, 22, [NEW, NEW, kexinit(), kexinit({ encSC: 'aes256-ctr' })], [false, true, true, false]);
    expect(flow.ssh?.hassh_client).toBe(hasshC());
    expect(flow.ssh?.hassh_server).toBe(hasshS({ encSC: 'aes256-ctr' }));
    expect(flow.ssh?.hassh_client).not.toBe(hasshS());
  });
  it('an obsolete cipher in the side\'s own encryption list raises its risk; arcfour256 never counts', async () => {
    const cli = await runFlow('tcp', 50151, 22, [NEW, NEW, kexinit({ encCS: 'aes128-ctr,3des-cbc' })], [false, true, true]);
    expect(cli.flow.risks).toContain(CLI_OBS);
    // the other direction's list is not judged
    const other = await runFlow('tcp', 50152, 22, [NEW, NEW, kexinit({ encSC: '3des-cbc' })], [false, true, true]);
    expect(other.flow.risks).not.toContain(CLI_OBS);
    const a256 = await runFlow('tcp', 50153, 22, [NEW, NEW, kexinit({ encCS: 'arcfour256,aes128-ctr' })], [false, true, true]);
    expect(a256.flow.risks).not.toContain(CLI_OBS);
    const srv = await runFlow('tcp', 50154, 22, [NEW, NEW, kexinit({ encSC: 'aes128-ctr,,blowfish-cbc' })], [false, true, false], undefined, v6);
    expect(srv.flow.risks).toContain(SRV_OBS);
    // a name that only starts like one is not it
    const near = await runFlow('tcp', 50155, 22, [NEW, NEW, kexinit({ encSC: 'blowfish-cbc-x,arcfour1' })], [false, true, false]);
    expect(near.flow.risks).not.toContain(SRV_OBS);
  });
  it('a client on a lower port than the server is direction 1: its KEXINIT is read as the server\'s', async () => {
    const { flow } = await runFlow('tcp', 800, 2222, [NEW, NEW, kexinit({ encSC: '3des-cbc' })], [false, true, true]);
    expect(flow.risks).toContain(SRV_OBS);
    expect(flow.ssh?.hassh_server).toBe(hasshS({ encSC: '3des-cbc' }));
  });
  it("the side that has not sent its banner yet is not read; the first banner's side is", async () => {
    const before = await runFlow('tcp', 50156, 22, [NEW, kexinit({ encCS: '3des-cbc' })], [false, true]);
    expect(before.flow.risks).not.toContain(CLI_OBS);
    expect(before.flow.ssh?.hassh_client).toBeUndefined();
    const first = await runFlow('tcp', 50157, 22, [NEW, kexinit({ encSC: 'cast128-cbc' })], [false, false]);
    expect(first.flow.risks).toContain(SRV_OBS);
  });
  it('lists reaching past the segment leave the HASSH of nothing', async () => {
    const k = kexinit();
    const { flow } = await runFlow('tcp', 50158, 22, [NEW, NEW, k.subarray(0, 60)], [false, true, true]);
    expect(flow.ssh?.hassh_client).toBe(md5(''));
  });
  it('only the 12 packets after the match are read', async () => {
    const filler = txt('filler-data');
    const flow = (n: number) =>
      runFlow('tcp', 50160 + n, 22, [NEW, NEW, ...Array<Buffer>(n).fill(filler), kexinit({ encSC: 'arcfour' })], [false, true, ...Array<boolean>(n).fill(false), false]);
    expect((await flow(10)).flow.risks).toContain(SRV_OBS); // the KEXINIT is the 12th
    expect((await flow(11)).flow.risks).not.toContain(SRV_OBS); // the 13th
  });
});

describe('SSH probing attempt (ndpi_main.c, ndpi_check_probing_attempt)', () => {
  const PROBING = 'Probing Attempt';
  /** Handshake, then segments [from the client?, payload or none, flags]; the flow's risks. */
  async function risks(segs: [boolean, Buffer | null, number][], o: { v6?: boolean; sport?: number; dport?: number } = {}): Promise<string[]> {
    const sport = o.sport ?? 50180, dport = o.dport ?? 22;
    const next = [1000, 5000];
    const frame = (c: boolean, flags: number, seq: number, data?: Buffer) => {
      const l4 = tcp({ sport: c ? sport : dport, dport: c ? dport : sport, flags, seq, ack: 1 }, data);
      return o.v6
        ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: c ? CLI6 : SRV6, dst: c ? SRV6 : CLI6, next: IPPROTO.TCP }, l4))
        : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? CLI : SRV, dst: c ? SRV : CLI, proto: IPPROTO.TCP }, l4));
    };
    const frames = [frame(true, TCPF.SYN, 999), frame(false, TCPF.SYN | TCPF.ACK, 4999), frame(true, TCPF.ACK, 1000)];
    for (const [c, data, flags] of segs) {
      frames.push(frame(c, flags, next[c ? 0 : 1]!, data ?? undefined));
      next[c ? 0 : 1]! += data?.length ?? 0;
    }
    return replayFrames(tmp.file(`probe-${Math.random().toString(36).slice(2)}.pcap`), frames, (e: Engine) => e.flows({ limit: 1 }).rows[0]!.risks);
  }
  const PA = TCPF.PSH | TCPF.ACK;
  it('PSH both ways, payload one way, no server HASSH: the server banner answered by an empty PSH', async () => {
    expect(await risks([[false, NEW, PA], [true, null, PA | TCPF.FIN]])).toContain(PROBING);
    expect(await risks([[false, NEW, PA], [true, null, PA | TCPF.FIN]], { v6: true })).toContain(PROBING);
  });
  it('not when both sides sent payload, the other side sent no PSH, or the server KEXINIT was read', async () => {
    expect(await risks([[false, NEW, PA], [true, NEW, PA]])).not.toContain(PROBING);
    expect(await risks([[false, NEW, PA], [true, null, TCPF.ACK | TCPF.FIN]])).not.toContain(PROBING);
    expect(await risks([[false, NEW, PA], [false, kexinit(), PA], [true, null, PA | TCPF.FIN]])).not.toContain(PROBING);
  });
  it("the server's HASSH is nDPI's direction 1: a client KEXINIT from the higher port does not count", async () => {
    // client banner first, then its KEXINIT (direction 0), the server sends only an empty PSH
    expect(await risks([[true, NEW, PA], [true, kexinit(), PA], [false, null, PA]])).toContain(PROBING);
    // the client on the lower port: its KEXINIT is direction 1's
    expect(await risks([[true, NEW, PA], [true, kexinit(), PA], [false, null, PA]], { sport: 900, dport: 2222 })).not.toContain(PROBING);
  });
  it('over IPv6 with equal ports every packet is direction 1: never judged', async () => {
    expect(await risks([[false, NEW, PA], [true, null, PA | TCPF.FIN]], { v6: true, sport: 2222, dport: 2222 })).not.toContain(PROBING);
    expect(await risks([[false, NEW, PA], [true, null, PA | TCPF.FIN]], { sport: 2222, dport: 2222 })).toContain(PROBING);
  });
});

// ---------------------------------------------------------------- WebSocket
describe('WebSocket (websocket.c)', () => {
  // RFC 6455 §5.7: an unmasked "Hello" text frame, pings and pongs, close
  const hello = Buffer.concat([bytes(0x81, 0x05), txt('Hello')]);
  it('a frame whose opcode byte is a data or control frame and whose 7-bit length is the rest of the packet', async () => {
    expect(await classify('tcp', 50200, 40080, [hello], [false])).toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50201, 40080, [Buffer.concat([bytes(0x02, 0x03), bytes(1, 2, 3)])], [true])).toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50202, 40080, [bytes(0x89, 0x00)], [true], v6)).toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50203, 40080, [bytes(0x8a, 0x00)], [false])).toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50204, 40080, [bytes(0x88, 0x02, 0x03, 0xe8)], [false])).toBe('WebSocket (DPI)');
  });
  it('the mask bit is ignored: a masked frame counts its 4 key bytes in the length or fails', async () => {
    // RFC 6455 §5.7 masked "Hello": 2 + 4 + 5 bytes, the length says 5
    const masked = bytes(0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58);
    expect(await classify('tcp', 50205, 40080, [masked], [true])).not.toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50206, 40080, [bytes(0x81, 0x89, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58)], [true])).toBe('WebSocket (DPI)');
  });
  it('continuation frames, reserved bits, a wrong length, a later packet or UDP are not WebSocket', async () => {
    expect(await classify('tcp', 50207, 40080, [Buffer.concat([bytes(0x80, 0x05), txt('Hello')])], [false])).not.toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50208, 40080, [Buffer.concat([bytes(0xc1, 0x05), txt('Hello')])], [false])).not.toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50209, 40080, [Buffer.concat([bytes(0x81, 0x06), txt('Hello')])], [false], v6)).not.toBe('WebSocket (DPI)');
    expect(await classify('tcp', 50210, 40080, [txt('GET / HTTP/1.1 x'), hello], [true, false])).not.toBe('WebSocket (DPI)');
    expect(await classify('udp', 50211, 40080, [hello])).not.toBe('WebSocket (DPI)');
  });
});

// ---------------------------------------------------------------- Mining
describe('Mining (mining.c)', () => {
  const subscribe = txt('{"id": 1, "method": "mining.subscribe", "params": ["cgminer/4.10.0"]}\n');
  const configure = txt('{"id": 1, "method": "mining.configure", "params": [["version-rolling"], {"version-rolling.mask": "1fffe000"}]}\n');
  const xmr = txt('{"method":"login","params":{"login":"wallet","pass":"x","agent":"xmr-stak-cpu/1.3.0-1.5.0"},"id":1}\n');
  const eth = txt('{"id": 2, "method": "eth_submitLogin", "jsonrpc": "2.0", "params": ["0x0fcc"]}\n');
  it('Stratum subscribe / configure, the xmr-stak-cpu agent and the Ethereum pool login', async () => {
    expect(await classify('tcp', 50300, 3333, [subscribe])).toBe('Mining (DPI)');
    expect(await classify('tcp', 50301, 40333, [configure], undefined, v6)).toBe('Mining (DPI)');
    expect(await classify('tcp', 50302, 40333, [xmr])).toBe('Mining (DPI)');
    expect(await classify('tcp', 50303, 40333, [eth])).toBe('Mining (DPI)');
    // a Zcash pool's subscribe is Mining as well
    expect(await classify('tcp', 50304, 40333, [txt('{"id":1,"method":"mining.subscribe","params":["eu1-zcash.flypool.org",3357]}\n')])).toBe('Mining (DPI)');
  });
  it('not before "{", not after a NUL, not unquoted, not without the space, not on a later packet, not UDP', async () => {
    expect(await classify('tcp', 50305, 40333, [Buffer.concat([txt(' '), subscribe])])).not.toBe('Mining (DPI)');
    expect(await classify('tcp', 50306, 40333, [txt('{"id": 1,\x00"method": "mining.subscribe"}\n')])).not.toBe('Mining (DPI)');
    expect(await classify('tcp', 50307, 40333, [txt('{"id": 1, "method": mining.subscribe}\n')])).not.toBe('Mining (DPI)');
    expect(await classify('tcp', 50308, 40333, [txt('{"id":2,"method":"eth_submitLogin","params":[]}\n')])).not.toBe('Mining (DPI)');
    expect(await classify('tcp', 50309, 40333, [txt('{"id": 0}\n'), subscribe], [true, true])).not.toBe('Mining (DPI)');
    expect(await classify('udp', 50310, 40333, [subscribe])).not.toBe('Mining (DPI)');
  });

  it("nDPI's mining cache: a later flow from the same client to the same server that ends unnamed", async () => {
    const A = '10.0.12.1', B = '10.0.12.2', C = '10.0.12.3';
    const junk = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 53 + 7) & 0xff));
    const levin = Buffer.concat([bytes(0x01, 0x21, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01), Buffer.alloc(25, 0)]);
    const frames = [
      ...tcpSession(A, B, 41000, 3333, [[true, subscribe]]),
      ...tcpSession(A, B, 41001, 443, [[true, junk]]), // A → B is known: Mining, before the port guess
      ...tcpSession(B, A, 41002, 443, [[true, junk]]), // the reverse pair is not
      ...tcpSession(A, C, 41003, 443, [[true, junk]]),
      ...tcpSession(C, B, 41004, 18080, [[true, levin]]), // Monero fills the same cache
      ...tcpSession(C, B, 41005, 40000, [[true, junk]]),
      ...tcpSession('2001:db8:12::1', '2001:db8:12::2', 41006, 3333, [[true, eth]]),
      ...tcpSession('2001:db8:12::1', '2001:db8:12::2', 41007, 40000, [[true, junk]]),
    ];
    const got = await replayFrames(
      tmp.file('mining-cache.pcap'),
      frames,
      (e: Engine) => Object.fromEntries(e.drainExpired(64).map((f) => [f.cli_port, `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`])),
      { flushAtEnd: true },
    );
    expect(got[41000]).toBe('Mining (DPI)');
    expect(got[41001]).toBe('Mining (DPI (partial cache))');
    expect(got[41002]).toBe('TLS (Match by port)');
    expect(got[41003]).toBe('TLS (Match by port)');
    expect(got[41004]).toBe('Monero (DPI)');
    expect(got[41005]).toBe('Monero (DPI (partial cache))');
    expect(got[41007]).toBe('Mining (DPI (partial cache))');
  });
});

// ---------------------------------------------------------------- HTTP/2
describe('HTTP2 (http2.c)', () => {
  // RFC 9113 §3.4: the client connection preface, then a SETTINGS frame
  const preface = txt('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  const settings = bytes(0, 0, 0, 4, 0, 0, 0, 0, 0);
  it("the preface's 24 bytes open the first payload packet (IPv4 and IPv6)", async () => {
    expect(await classify('tcp', 50400, 40800, [Buffer.concat([preface, settings])])).toBe('HTTP2 (DPI)');
    expect(await classify('tcp', 50401, 40800, [preface], undefined, v6)).toBe('HTTP2 (DPI)');
  });
  it('23 bytes of it, one byte changed, or the preface on a later packet are not HTTP2', async () => {
    expect(await classify('tcp', 50402, 40800, [preface.subarray(0, 23)])).not.toBe('HTTP2 (DPI)');
    expect(await classify('tcp', 50403, 40800, [Buffer.concat([txt('PRI * HTTP/2.1\r\n\r\nSM\r\n\r\n'), settings])])).not.toBe('HTTP2 (DPI)');
    expect(await classify('tcp', 50404, 40800, [settings, preface], [true, true], v6)).not.toBe('HTTP2 (DPI)');
  });
});

// ---------------------------------------------------------------- Memcached
describe('Memcached (memcached.c)', () => {
  // protocol.txt: UDP frame header = request id, sequence number, datagram count, reserved
  const frame = (count: number, reserved: number, body: string) => Buffer.concat([u16(7), u16(0), u16(count), u16(reserved), txt(body)]);
  it('two commands or replies, either side, TCP or UDP', async () => {
    expect(await classify('tcp', 50500, 41211, [txt('set k 0 0 1\r\nx\r\n'), txt('STORED\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('udp', 50501, 41211, [frame(1, 0, 'get k\r\n'), frame(1, 0, 'END\r\n')], undefined, v6)).toBe('Memcached (DPI)');
  });
  it('a VALUE line, a zero datagram count, a reserved field, upper-case commands do not count', async () => {
    expect(await classify('tcp', 50502, 41211, [txt('get k\r\n'), txt('VALUE k 0 1\r\nx\r\nEND\r\n')])).not.toBe('Memcached (DPI)');
    expect(await classify('udp', 50503, 41211, [frame(0, 0, 'get k\r\n'), frame(1, 0, 'END\r\n')])).not.toBe('Memcached (DPI)');
    expect(await classify('udp', 50504, 41211, [frame(1, 1, 'get k\r\n'), frame(1, 0, 'END\r\n')])).not.toBe('Memcached (DPI)');
    expect(await classify('tcp', 50505, 41211, [txt('GET k\r\n'), txt('END\r\n')])).not.toBe('Memcached (DPI)');
  });
  it('the second match must come by the sixth payload packet', async () => {
    const other = txt('xxxxx\r\n');
    const flow = (n: number) => [txt('get k\r\n'), ...Array<Buffer>(n).fill(other), txt('END\r\n')];
    expect(await classify('tcp', 50506, 41211, flow(4))).toBe('Memcached (DPI)');
    expect(await classify('tcp', 50507, 41211, flow(5))).not.toBe('Memcached (DPI)');
  });
});

// ---------------------------------------------------------------- RX
describe('RX (rx.c)', () => {
  // RX spec: epoch, connection id, call, sequence, serial, type, flags, user status, security index, checksum, service id
  const rx = (cid: number, type: number, flags: number, security = 0, status = 0) =>
    Buffer.concat([u32(0x5f000001), u32(cid), u32(1), u32(1), u32(1), bytes(type, flags, status, security), u16(0), u16(1)]);
  it('a reply from the other direction repeating epoch and connection id', async () => {
    expect(await classify('udp', 7001, 7000, [rx(0x100, 1, 1), rx(0x100, 2, 0)])).toBe('RX (DPI)');
    expect(await classify('udp', 7001, 7000, [rx(0x100, 1, 1), rx(0x100, 2, 0)], undefined, v6)).toBe('RX (DPI)');
    expect(await classify('udp', 7001, 7000, [rx(0x100, 1, 1), rx(0x101, 2, 0)])).not.toBe('RX (DPI)');
  });
  it('unknown types (12, 14), flags or security index are not RX', async () => {
    expect(await classify('udp', 7001, 7000, [rx(0x100, 12, 0), rx(0x100, 2, 0)])).not.toBe('RX (DPI)');
    expect(await classify('udp', 7001, 7000, [rx(0x100, 14, 0), rx(0x100, 2, 0)])).not.toBe('RX (DPI)');
    expect(await classify('udp', 7001, 7000, [rx(0x100, 1, 7), rx(0x100, 2, 0)])).not.toBe('RX (DPI)');
    expect(await classify('udp', 7001, 7000, [rx(0x100, 1, 1, 4), rx(0x100, 2, 0)])).not.toBe('RX (DPI)');
    // the security index is byte 23; byte 22 (user status) is not checked
    expect(await classify('udp', 7001, 7000, [rx(0x100, 1, 1, 3, 9), rx(0x100, 2, 0, 0, 200)])).toBe('RX (DPI)');
  });
  it("with equal ports nDPI's direction comes from the addresses: IPv4 finds the reply, IPv6 never does", async () => {
    expect(await classify('udp', 7000, 7000, [rx(0x100, 1, 1), rx(0x100, 2, 0)])).toBe('RX (DPI)');
    expect(await classify('udp', 7000, 7000, [rx(0x100, 1, 1), rx(0x100, 2, 0)], undefined, v6)).not.toBe('RX (DPI)');
  });
});
