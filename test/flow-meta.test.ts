// Per-flow metadata from hand-built handshakes, checked against values an
// independent tool computes (tshark's JA3/JA3S/HASSH and HTTP fields,
// openssl's certificate fields) or, for JA4 (not in tshark 4.0), against
// FoxIO's definition implemented here from the lists the test wrote.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { flowRunner } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { u16, u24, vec8, vec16 } from './fixtures/bytes.js';
import { dns, dnsName } from './fixtures/apps.js';

const run = flowRunner('fg-flow-meta-');
const tshark = (file: string, ...fields: string[]) =>
  execFileSync('tshark', ['-n', '-r', file, ...(file.endsWith('ssh.pcap') ? ['-d', 'tcp.port==8000,ssh'] : []), '-T', 'fields', ...fields.flatMap((f) => ['-e', f])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .filter((l) => l.replace(/\t/g, '').trim());

const list16 = (v: number[]) => Buffer.concat(v.map(u16));
const ext = (type: number, body: Buffer) => Buffer.concat([u16(type), vec16(body)]);
const record = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 3, 3]), vec16(body)]);
const handshake = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const alpnExt = (names: string[]) => ext(0x10, vec16(Buffer.concat(names.map((n) => vec8(Buffer.from(n))))));

// The ClientHello the tests send: GREASE in ciphers, extensions, groups and versions.
const CIPHERS = [0x0a0a, 0x1301, 0x1302, 0xc02b, 0xc02f, 0x009c];
const GROUPS = [0x2a2a, 0x001d, 0x0017];
const SIGS = [0x0403, 0x0804, 0x0401];
function clientHello(sni: string | null, versions = [0x3a3a, 0x0304, 0x0303]) {
  const exts: [number, Buffer][] = [
    [0x1a1a, Buffer.alloc(0)],
    ...(sni ? [[0x0000, vec16(Buffer.concat([Buffer.from([0]), vec16(Buffer.from(sni))]))] as [number, Buffer]] : []),
    [0x0017, Buffer.alloc(0)],
    [0x000a, vec16(list16(GROUPS))],
    [0x000b, vec8(Buffer.from([0]))],
    [0x000d, vec16(list16(SIGS))],
    [0x0010, alpnExt(['h2', 'http/1.1']).subarray(4)],
    [0x002b, vec8(list16(versions))],
  ];
  const body = Buffer.concat([
    u16(0x0303), Buffer.alloc(32, 7), vec8(Buffer.alloc(32, 9)), vec16(list16(CIPHERS)), vec8(Buffer.from([0])),
    vec16(Buffer.concat(exts.map(([t, b]) => ext(t, b)))),
  ]);
  return { bytes: record(22, handshake(1, body)), exts: exts.map(([t]) => t) };
}

const grease = (v: number) => (v & 0x0f0f) === 0x0a0a && v >> 8 === (v & 255);
const hex4 = (v: number) => v.toString(16).padStart(4, '0');
const sha12 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);

/** FoxIO JA4 of a TCP ClientHello from its lists (https://github.com/FoxIO-LLC/ja4, JA4 technical details). */
function ja4(ciphers: number[], exts: number[], sigs: number[], version: string, sni: boolean, alpn: string) {
  const c = ciphers.filter((x) => !grease(x));
  const e = exts.filter((x) => !grease(x));
  const a = `t${version}${sni ? 'd' : 'i'}${String(c.length).padStart(2, '0')}${String(e.length).padStart(2, '0')}${alpn[0]}${alpn.at(-1)}`;
  const b = sha12(c.sort((x, y) => x - y).map(hex4).join(','));
  const cc = sha12(`${e.filter((x) => x !== 0 && x !== 0x10).sort((x, y) => x - y).map(hex4).join(',')}_${sigs.map(hex4).join(',')}`);
  return `${a}_${b}_${cc}`;
}

function serverHello(cipher: number) {
  const exts = Buffer.concat([ext(0xff01, vec8(Buffer.alloc(0))), alpnExt(['h2']), ext(0x000b, vec8(Buffer.from([0])))]);
  return handshake(2, Buffer.concat([u16(0x0303), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(cipher), Buffer.from([0]), vec16(exts)]));
}

describe('TLS metadata', () => {
  it('JA3 and JA3S as tshark computes them, JA4 as FoxIO defines it, versions, cipher and ALPN', async () => {
    const ch = clientHello('meta.example.com');
    const sh = record(22, serverHello(0xc02f));
    const { flow, file } = await run('tcp', 40001, 443, [ch.bytes, sh]);
    const [ja3] = tshark(file, 'tls.handshake.ja3').filter((l) => l.trim());
    const [ja3s] = tshark(file, 'tls.handshake.ja3s').filter((l) => l.trim());
    expect(ja3).toMatch(/^[0-9a-f]{32}$/);
    expect(flow.tls).toMatchObject({
      ja3: ja3!.trim(),
      ja3s: ja3s!.trim(),
      ja4: ja4(CIPHERS, ch.exts, SIGS, '13', true, 'h2'),
      client_version: 0x0304,
      version: 0x0303,
      version_name: 'TLSv1.2',
      cipher: 0xc02f,
      cipher_name: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
      alpn_client: 'h2',
      alpn_server: 'h2',
      quic: false,
    });
    expect(flow.tls!.ja4).toMatch(/^t13d0507h2_[0-9a-f]{12}_[0-9a-f]{12}$/);
    expect(flow.host_name).toBe('meta.example.com');
    expect(flow.risks).not.toContain('Missing SNI TLS Extn');
  });

  it('a ClientHello without SNI: JA4 says so, nDPI\'s missing-SNI and ALPN/SNI mismatch risks', async () => {
    const ch = clientHello(null);
    const { flow, file } = await run('tcp', 40002, 443, [ch.bytes]);
    const [ja3] = tshark(file, 'tls.handshake.ja3').filter((l) => l.trim());
    expect(flow.tls?.ja3).toBe(ja3!.trim());
    expect(flow.tls?.ja4).toBe(ja4(CIPHERS, ch.exts, SIGS, '13', false, 'h2'));
    expect(flow.risks).toEqual(expect.arrayContaining(['Missing SNI TLS Extn', 'ALPN/SNI Mismatch']));
    expect(flow.risk_ids).toEqual(expect.arrayContaining([24, 52]));
  });

  it('a TLS 1.0 client is obsolete; a numeric SNI is flagged', async () => {
    const { flow } = await run('tcp', 40003, 443, [clientHello('10.1.2.3', [0x0301]).bytes]);
    expect(flow.tls?.client_version).toBe(0x0301);
    expect(flow.tls?.ja4?.slice(0, 4)).toBe('t10d');
    // nDPI (tls.c) judges the hello's own version field, here 0x0303: a
    // supported_versions of TLS 1.0 alone is not obsolete
    expect(flow.risks).toContain('HTTP/TLS/QUIC Numeric Hostname/SNI');
    expect(flow.risks).not.toContain('Obsolete TLS (v1.1 or older)');
  });

  describe('the certificate in clear (TLS 1.2), against openssl', () => {
    const tmp = tempDir('fg-cert-');
    const key = join(tmp.dir, 'k.pem'), pem = join(tmp.dir, 'c.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', pem, '-days', '400', '-subj', '/C=US/O=Flowgate Test/CN=cert.example'], { stdio: 'ignore' });
    const der = execFileSync('openssl', ['x509', '-in', pem, '-outform', 'DER']);
    const info = execFileSync('openssl', ['x509', '-in', pem, '-noout', '-startdate', '-enddate', '-issuer', '-subject', '-nameopt', 'compat'], { encoding: 'utf8' });
    const field = (k: string) => info.split('\n').find((l) => l.startsWith(`${k}=`))!.slice(k.length + 1).trim();
    const notBefore = Date.parse(field('notBefore')) / 1000, notAfter = Date.parse(field('notAfter')) / 1000;
    const dn = (s: string) => s.split('/').filter(Boolean).join(', ');
    const certMsg = handshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der]));
    const server = Buffer.concat([record(22, serverHello(0x009c)), record(22, certMsg)]);
    const ch = clientHello('cert.example', [0x0303]).bytes;

    it('issuer, subject and validity; self-signed, weak cipher, validity too long', async () => {
      const { flow } = await run('tcp', 40010, 443, [ch, server], undefined, notBefore + 86400);
      expect(flow.tls).toMatchObject({ issuer_dn: dn(field('issuer')), subject_dn: dn(field('subject')), not_before: notBefore, not_after: notAfter });
      expect(flow.tls!.issuer_dn).toBe('C=US, O=Flowgate Test, CN=cert.example');
      expect(flow.risks).toEqual(expect.arrayContaining(['Self-signed Cert', 'Weak TLS Cipher', 'TLS Cert Validity Too Long']));
      expect(flow.risks).not.toContain('TLS Cert Expired');
      expect(flow.risks).not.toContain('TLS Cert About To Expire');
    });

    it('expired after notAfter, about to expire within 30 days of it (packet time)', async () => {
      expect((await run('tcp', 40011, 443, [ch, server], undefined, notAfter + 86400)).flow.risks).toContain('TLS Cert Expired');
      const soon = (await run('tcp', 40012, 443, [ch, server], undefined, notAfter - 10 * 86400)).flow.risks;
      expect(soon).toContain('TLS Cert About To Expire');
      expect(soon).not.toContain('TLS Cert Expired');
    });

    it('the certificate record in the next segment, or cut by a segment boundary: read or skipped, never overrun', async () => {
      const sh = record(22, serverHello(0xc02f));
      const certRec = record(22, certMsg);
      const next = await run('tcp', 40013, 443, [ch, sh, certRec], [true, false, false], notBefore + 86400);
      expect(next.flow.tls?.subject_dn).toBe('C=US, O=Flowgate Test, CN=cert.example');
      // The same bytes cut inside the certificate: what is whole is read, nothing past the end.
      for (const cut of [3, 20, 60, 120, 200]) {
        const both = Buffer.concat([sh, certRec]);
        const at = sh.length + cut;
        const r = await run('tcp', 40020 + cut, 443, [ch, both.subarray(0, at), both.subarray(at)], [true, false, false], notBefore + 86400);
        expect(r.flow.l7_app).toBe(91);
        if (r.flow.tls?.not_after !== undefined) expect(r.flow.tls.not_after).toBe(notAfter);
      }
    });
  });
});

describe('HTTP metadata', () => {
  it('method, URL, User-Agent, status, Content-Type and Server as tshark reads them', async () => {
    const req = Buffer.from('GET /files/report.bin?x=1 HTTP/1.1\r\nHost: web.example.com\r\nUser-Agent: Mozilla/5.0 (X11) meta-test/1.0\r\nAccept: */*\r\n\r\n');
    const resp = Buffer.from('HTTP/1.1 404 Not Found\r\nServer: nginx/1.25.0\r\nContent-Type: application/octet-stream\r\nContent-Length: 0\r\n\r\n');
    const { flow, file } = await run('tcp', 40100, 80, [req, resp]);
    const [reqLine] = tshark(file, 'http.request.method', 'http.request.uri', 'http.user_agent').filter((l) => l.startsWith('GET'));
    const [respLine] = tshark(file, 'http.response.code', 'http.content_type', 'http.server').filter((l) => /^\d/.test(l));
    const [method, uri, ua] = reqLine!.split('\t');
    const [code, ctype, server] = respLine!.split('\t');
    expect(flow.http).toEqual({ method, url: uri, user_agent: ua, status: Number(code), content_type: ctype, server });
    expect(flow.risks).toEqual(expect.arrayContaining(['Error Code', 'Binary File/Data Transfer (Attempt)']));
    expect(flow.risks).not.toContain('HTTP Susp User-Agent');
  });

  it('a numeric Host, no User-Agent and Basic credentials raise nDPI\'s risks', async () => {
    const req = Buffer.from('GET / HTTP/1.1\r\nHost: 192.0.2.7:8080\r\nAuthorization: Basic dXNlcjpwYXNz\r\n\r\n');
    const { flow } = await run('tcp', 40101, 8080, [req]);
    expect(flow.risks).toEqual(expect.arrayContaining(['HTTP/TLS/QUIC Numeric Hostname/SNI', 'HTTP Susp User-Agent', 'Clear-Text Credentials', 'Known Proto on Non Std Port']));
    expect(flow.http?.user_agent).toBeUndefined();
  });
});

/**
 * The frames at their times (s) from 1700000000 on, with a UDP packet every
 * 0.1 s for 63 s (the engine's idle sweep runs as packets come), replayed
 * with a 5 s idle timeout: the flows live at the end.
 */
async function replayIdle(file: string, items: { ts: number; data: Buffer }[]) {
  const all = [...items];
  for (let t = 0; t < 630; t++)
    all.push({ ts: 1700000000 + t / 10, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.3', dst: '10.0.0.4', proto: IPPROTO.UDP }, udp({ sport: 2222, dport: 9 }, Buffer.alloc(8)))) });
  all.sort((a, b) => a.ts - b.ts);
  writeFileSync(file, pcap(all.map(({ ts, data }) => ({ tsNs: sec(ts), data }))));
  const e = new Engine({ files: [file], flowIdleSec: 5 });
  try {
    e.start();
    await e.waitDone();
    return { flows: e.flows({ limit: 100 }).rows, file };
  } finally {
    e.close();
  }
}

describe('metadata strings kept once per worker (interned, by reference): HTTP', () => {
  it('flows that end release theirs while live flows keep the same strings; long values cut as before', async () => {
    // A long-lived HTTP flow L, then 60 short ones a second apart, each over
    // 1 s: every fourth short flow sends L's User-Agent and Content-Type (L
    // interned them first), the others User-Agents shared by every third;
    // each gets a Server of its own (a new string per flow, so an entry
    // freed is taken again at once). A 5 s idle timeout ends the short
    // flows as later ones come; L keeps sending. Every live flow must show
    // what it carried (tshark reads it), whatever the flows that shared its
    // strings did.
    const tmp = tempDir('fg-meta-strs-');
    const longUa = `Mozilla/5.0 ${'x'.repeat(150)}`;
    const items: { ts: number; data: Buffer }[] = [];
    const seg = (sport: number, c: boolean, seq: number, p: Buffer) =>
      eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? '10.0.0.1' : '10.0.0.2', dst: c ? '10.0.0.2' : '10.0.0.1', proto: IPPROTO.TCP },
        tcp({ sport: c ? sport : 80, dport: c ? 80 : sport, flags: TCPF.PSH | TCPF.ACK, seq, ack: 1 }, p)));
    const request = (i: number, ua: string) => Buffer.from(`GET /p${i} HTTP/1.1\r\nHost: h${i}.example.com\r\nUser-Agent: ${ua}\r\n\r\n`);
    const response = (server: string, ctype: string) => Buffer.from(`HTTP/1.1 200 OK\r\nServer: ${server}\r\nContent-Type: ${ctype}\r\nContent-Length: 0\r\n\r\n`);
    const lReq = request(999, 'long-lived/1.0');
    items.push({ ts: 1700000000, data: seg(41999, true, 1, lReq) }, { ts: 1700000000.5, data: seg(41999, false, 1, response('srv-long', 'type/long')) });
    for (let t = 1; t <= 62; t++) items.push({ ts: 1700000000 + t, data: seg(41999, true, 1 + lReq.length + (t - 1) * 4, Buffer.from('ping')) });
    for (let i = 0; i < 60; i++) {
      const ua = i % 4 === 0 ? 'long-lived/1.0' : i % 7 === 6 || i >= 57 ? `${longUa}-${i % 2}` : `ua-${i % 3}/1.0`;
      const at = 1700000001 + i;
      items.push({ ts: at, data: seg(42000 + i, true, 1, request(i, ua)) }, { ts: at + 0.5, data: seg(42000 + i, false, 1, response(`srv-${i}`, i % 4 === 0 ? 'type/long' : `type/${i % 5}`)) });
    }
    const { flows, file } = await replayIdle(tmp.file('strs.pcap'), items);
    const rows = flows.filter((f) => f.http);
    const byPort = new Map<string, string[]>();
    for (const l of tshark(file, 'tcp.port', 'http.user_agent', 'http.server', 'http.content_type')) {
      const [ports, ua, server, ctype] = l.split('\t');
      const key = ports!.split(',').find((p) => p !== '80')!;
      const v = byPort.get(key) ?? ['', '', ''];
      byPort.set(key, [ua || v[0]!, server || v[1]!, ctype || v[2]!]);
    }
    expect(rows.map((f) => f.client.port)).toContain(41999);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.length).toBeLessThan(30);  // the earlier flows ended
    let cut = 0;
    for (const f of rows) {
      const [ua, server, ctype] = byPort.get(String(f.client.port))!;
      // 79 characters and the NUL: a longer value is cut, as before interning
      expect(f.http!.user_agent).toBe(ua!.slice(0, 79));
      if (ua!.length > 79) cut++;
      expect(f.http!.server).toBe(server);
      expect(f.http!.content_type).toBe(ctype);
    }
    expect(cut).toBe(3);  // flows 57 to 59: alike in their first 79 characters, one string
    tmp.cleanup();
  });
});

describe('flows the classifier is done with (settled: results kept, names interned)', () => {
  it('keep their name, DNS fields and risks while flows that shared the name end', async () => {
    // A long-lived DNS flow L (answered, then more queries on the same
    // ports), and 60 short ones a second apart: every fourth asks L's name,
    // the others a name of their own (a new one per flow, so a freed entry
    // is taken again at once), every fifth answered NXDOMAIN. A 5 s idle
    // timeout ends the short flows as later ones come. Every live flow must
    // show its first query's name, type, the answer's code and count
    // (tshark reads them), whatever the flows that shared its name did.
    const tmp = tempDir('fg-settled-');
    const items: { ts: number; data: Buffer }[] = [];
    const dgram = (sport: number, c: boolean, msg: Buffer) =>
      eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? '10.0.0.1' : '10.0.0.2', dst: c ? '10.0.0.2' : '10.0.0.1', proto: IPPROTO.UDP },
        udp({ sport: c ? sport : 53, dport: c ? 53 : sport }, msg)));
    const exchange = (sport: number, at: number, name: string, type: number, rcode: number, answers: number, id: number) => {
      const q = { name: dnsName(name), type };
      const an = Array.from({ length: answers }, (_, k) => ({ name: dnsName(name), type: 1, rdata: Buffer.from([192, 0, 2, k + 1]) }));
      // an error carries the zone's SOA (RFC 2308): a response with records ends DNS's reading
      const soa = Buffer.concat([dnsName('ns.example.org'), dnsName('admin.example.org'), Buffer.alloc(20, 1)]);
      const ns = rcode ? [{ name: dnsName('example.org'), type: 6, rdata: soa }] : [];
      items.push({ ts: at, data: dgram(sport, true, dns({ id, flags: 0x0100, questions: [q] })) });
      items.push({ ts: at + 0.5, data: dgram(sport, false, dns({ id, flags: 0x8180 | rcode, questions: [q], answers: an, authority: ns })) });
    };
    exchange(40999, 1700000000, 'keep.example.org', 1, 0, 2, 1);
    for (let t = 1; t <= 62; t++) items.push({ ts: 1700000000 + t, data: dgram(40999, true, dns({ id: 100 + t, flags: 0x0100, questions: [{ name: dnsName(`later${t}.example.org`), type: 1 }] })) });
    for (let i = 0; i < 60; i++)
      exchange(41000 + i, 1700000001 + i, i % 4 === 0 ? 'keep.example.org' : `n${i}.example.org`, i % 2 ? 28 : 1, i % 5 === 4 ? 3 : 0, i % 5 === 4 ? 0 : 1 + (i % 3), 200 + i);
    const { flows, file } = await replayIdle(tmp.file('settled.pcap'), items);
    const rows = flows.filter((f) => f.dns);
    // tshark: per client port, the first query (name, type) and the first response (rcode, answers)
    const truth = new Map<number, { name: string; type: number; rcode?: number; answers?: number }>();
    for (const l of tshark(file, 'udp.srcport', 'udp.dstport', 'dns.flags.response', 'dns.qry.name', 'dns.qry.type', 'dns.flags.rcode', 'dns.count.answers')) {
      const [sp, dp, resp, name, type, rcode, answers] = l.split('\t');
      if (!name) continue;
      const port = resp === '1' || resp === 'True' ? Number(dp) : Number(sp);
      const t = truth.get(port);
      if (!t) truth.set(port, { name: name!, type: Number(type) });
      else if ((resp === '1' || resp === 'True') && t.rcode === undefined) (t.rcode = Number(rcode)), (t.answers = Number(answers));
    }
    expect(rows.map((f) => f.client.port)).toContain(40999);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.length).toBeLessThan(30);  // the earlier flows ended
    for (const f of rows) {
      const t = truth.get(f.client.port)!;
      expect(f.host_name).toBe(t.name);
      expect(f.dns).toEqual({ query_type: t.type, rcode: t.rcode, answers: t.answers });
      if (t.rcode) expect(f.risks).toContain('Error Code');
      else expect(f.risks).not.toContain('Error Code');
    }
    tmp.cleanup();
  });
});

describe('DNS metadata', () => {
  it('query type, response code and answer count', async () => {
    const q = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 4, ...Buffer.from('nope'), 7, ...Buffer.from('example'), 0, 0x00, 0x1c, 0, 1]);
    const r = Buffer.from(q);
    r[2] = 0x81, r[3] = 0x83;  // response, NXDOMAIN
    const { flow } = await run('udp', 40200, 53, [q, r]);
    expect(flow.dns).toEqual({ query_type: 28, rcode: 3, answers: 0 });
    expect(flow.risks).toContain('Error Code');
    expect(flow.risks).not.toContain('Unidirectional Traffic');
  });
});

describe('SSH metadata', () => {
  it('banners and HASSH client/server as tshark computes them on ssh.pcap', async () => {
    const file = join(import.meta.dirname, '..', '..', 'shared', 'pcaps', 'ndpi', 'ssh.pcap');
    const e = new Engine({ files: [file], flowIdleSec: 1e10 });
    e.start();
    await e.waitDone();
    const flows = e.flows({ limit: 100 }).rows.filter((f) => f.ssh);
    e.close();
    const rows = tshark(file, 'tcp.stream', 'ssh.kex.hassh', 'ssh.kex.hasshserver', 'ssh.protocol');
    const hassh = rows.map((l) => l.split('\t')[1]).filter(Boolean);
    const hasshServer = rows.map((l) => l.split('\t')[2]).filter(Boolean);
    const banners = rows.map((l) => l.split('\t')[3]).filter(Boolean);
    expect(flows.length).toBe(2);  // one on port 22, one on 8000 (tshark told to decode it)
    for (const f of flows) {
      expect(hassh).toContain(f.ssh!.hassh_client);
      expect(hasshServer).toContain(f.ssh!.hassh_server);
      expect(banners).toContain(f.ssh!.client_banner);
      expect(banners).toContain(f.ssh!.server_banner);
    }
  });
});

describe('metadata pool', () => {
  it('when full, refusals are counted and classification goes on', async () => {
    // 64 flows → 36 FlowInfo entries (5/16 + 16), 18 metadata entries (1/32 + 16); 40 HTTP flows alive.
    // (The default shares hold every flow: these are set lower to fill the pools.)
    const tmp = tempDir('fg-meta-pool-');
    const frames: Buffer[] = [];
    for (let i = 0; i < 40; i++) {
      const req = Buffer.from(`GET /${i} HTTP/1.1\r\nHost: h${i}.example.com\r\nUser-Agent: t/1\r\n\r\n`);
      frames.push(eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.TCP }, tcp({ sport: 41000 + i, dport: 80, flags: TCPF.PSH | TCPF.ACK, seq: 1, ack: 1 }, req))));
    }
    const file = tmp.file('pool.pcap', pcap(frames.map((data, i) => ({ tsNs: sec(1700000000 + i), data }))));
    const e = new Engine({ files: [file], flowIdleSec: 1e10, maxFlows: 64, flowInfoShare: 5 / 16, flowMetaShare: 1 / 32 });
    e.start();
    await e.waitDone();
    const rows = e.flows({ limit: 100 }).rows;
    const s = e.stats();
    e.close();
    tmp.cleanup();
    expect(rows).toHaveLength(40);
    expect(rows.every((f) => f.l7_app === 7)).toBe(true);
    expect(rows.filter((f) => f.host_name.startsWith('h'))).toHaveLength(36);
    expect(rows.filter((f) => f.http)).toHaveLength(18);
    expect(s.flow_info_full).toBe(4);
    expect(s.flow_meta_full).toBe(36 - 18);
  });
});
