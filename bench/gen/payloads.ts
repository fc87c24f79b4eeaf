// Real application payloads: TLS ClientHello/ServerHello, HTTP/1.1, DNS, QUIC v1 Initial
// (really protected per RFC 9001), SSH banners + key exchange, NTPv4.

import { createCipheriv, createHmac } from 'node:crypto';

// ---- byte writer ----------------------------------------------------------------------

export class ByteWriter {
  private buf: Buffer;
  len = 0;

  constructor(initial = 512) {
    this.buf = Buffer.allocUnsafe(initial); // only [0, len) is ever read
  }

  private grow(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.len);
    this.buf = nb;
  }

  u8(v: number): this {
    this.grow(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u16(v: number): this {
    this.grow(2);
    this.buf[this.len++] = (v >> 8) & 0xff;
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u24(v: number): this {
    this.grow(3);
    this.buf[this.len++] = (v >> 16) & 0xff;
    this.buf[this.len++] = (v >> 8) & 0xff;
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u32(v: number): this {
    this.grow(4);
    this.buf.writeUInt32BE(v >>> 0, this.len);
    this.len += 4;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.grow(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  ascii(s: string): this {
    return this.bytes(Buffer.from(s, 'latin1'));
  }

  zeros(n: number): this {
    this.grow(n);
    this.buf.fill(0, this.len, this.len + n);
    this.len += n;
    return this;
  }

  /** QUIC variable-length integer (RFC 9000 §16), minimal encoding unless `size` given. */
  varint(v: number, size?: number): this {
    const n = size ?? (v < 64 ? 1 : v < 16384 ? 2 : v < 1073741824 ? 4 : 8);
    if (n === 1) return this.u8(v);
    if (n === 2) return this.u16(0x4000 | v);
    if (n === 4) return this.u32((0x80000000 | v) >>> 0);
    this.u32((0xc0000000 | Math.floor(v / 4294967296)) >>> 0);
    return this.u32(v >>> 0);
  }

  /** Write a length-prefixed block: `lenBytes` (1, 2 or 3) big-endian length, then the body. */
  block(lenBytes: 1 | 2 | 3, body: (w: this) => void): this {
    this.grow(lenBytes);
    const at = this.len;
    this.len += lenBytes;
    body(this);
    const n = this.len - at - lenBytes;
    if (lenBytes === 1) this.buf[at] = n;
    else if (lenBytes === 2) this.buf.writeUInt16BE(n, at);
    else {
      this.buf[at] = n >> 16;
      this.buf[at + 1] = (n >> 8) & 0xff;
      this.buf[at + 2] = n & 0xff;
    }
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

// ---- TLS ------------------------------------------------------------------------------

export const TLS_CIPHERS_BROWSER = [
  0x1301, 0x1302, 0x1303, // TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256
  0xc02b, 0xc02f, 0xc02c, 0xc030, // ECDHE-{ECDSA,RSA}-AES{128,256}-GCM
  0xcca9, 0xcca8, // ECDHE-{ECDSA,RSA}-CHACHA20-POLY1305
  0xc013, 0xc014, // ECDHE-RSA-AES{128,256}-CBC-SHA
  0x009c, 0x009d, // RSA-AES{128,256}-GCM
  0x002f, 0x0035, // RSA-AES{128,256}-CBC-SHA
];

export const TLS_CIPHERS_TLS13 = [0x1301, 0x1302, 0x1303];

const SIG_ALGS = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601];

export interface ClientHelloOptions {
  sni: string;
  random: Uint8Array; // 32 bytes
  sessionId: Uint8Array; // 0 or 32 bytes
  keyShare: Uint8Array; // 32 bytes x25519 public key
  alpn: string[];
  ciphers?: number[];
  versions?: number[]; // supported_versions, default [0x0304, 0x0303]
  /** QUIC transport parameters (extension 0x39); when set the hello is shaped like a QUIC client's. */
  quicTransportParams?: Uint8Array;
}

function ext(w: ByteWriter, type: number, body: (w: ByteWriter) => void): void {
  w.u16(type);
  w.block(2, body);
}

/** TLS ClientHello handshake message (type 1), without record header. */
export function tlsClientHello(o: ClientHelloOptions): Buffer {
  const quic = !!o.quicTransportParams;
  const ciphers = o.ciphers ?? (quic ? TLS_CIPHERS_TLS13 : TLS_CIPHERS_BROWSER);
  const versions = o.versions ?? (quic ? [0x0304] : [0x0304, 0x0303]);
  const w = new ByteWriter(600);
  w.u8(1);
  w.block(3, (w) => {
    w.u16(0x0303);
    w.bytes(o.random);
    w.block(1, (w) => w.bytes(o.sessionId));
    w.block(2, (w) => ciphers.forEach((c) => w.u16(c)));
    w.u8(1).u8(0); // compression methods: null
    w.block(2, (w) => {
      ext(w, 0x0000, (w) =>
        w.block(2, (w) => {
          w.u8(0); // host_name
          w.block(2, (w) => w.ascii(o.sni));
        }),
      );
      if (!quic) {
        ext(w, 0x0017, () => {}); // extended_master_secret
        ext(w, 0xff01, (w) => w.u8(0)); // renegotiation_info
      }
      ext(w, 0x000a, (w) => w.block(2, (w) => [0x001d, 0x0017, 0x0018].forEach((g) => w.u16(g)))); // supported_groups
      if (!quic) {
        ext(w, 0x000b, (w) => w.block(1, (w) => w.u8(0))); // ec_point_formats
        ext(w, 0x0023, () => {}); // session_ticket
      }
      ext(w, 0x0010, (w) => w.block(2, (w) => o.alpn.forEach((p) => w.block(1, (w) => w.ascii(p))))); // ALPN
      if (!quic) ext(w, 0x0005, (w) => w.u8(1).u16(0).u16(0)); // status_request (OCSP)
      ext(w, 0x000d, (w) => w.block(2, (w) => SIG_ALGS.forEach((a) => w.u16(a)))); // signature_algorithms
      if (!quic) ext(w, 0x0012, () => {}); // signed_certificate_timestamp
      ext(w, 0x0033, (w) =>
        w.block(2, (w) => {
          w.u16(0x001d); // x25519
          w.block(2, (w) => w.bytes(o.keyShare));
        }),
      ); // key_share
      ext(w, 0x002d, (w) => w.block(1, (w) => w.u8(1))); // psk_key_exchange_modes: psk_dhe_ke
      ext(w, 0x002b, (w) => w.block(1, (w) => versions.forEach((v) => w.u16(v)))); // supported_versions
      if (quic) ext(w, 0x0039, (w) => w.bytes(o.quicTransportParams!)); // quic_transport_parameters
    });
  });
  return w.toBuffer();
}

export interface ServerHelloOptions {
  version: 0x0303 | 0x0304; // negotiated version
  random: Uint8Array; // 32
  sessionId: Uint8Array; // echo of the client's
  cipher: number;
  keyShare: Uint8Array; // 32 bytes (TLS 1.3 only)
  alpn?: string; // TLS 1.2: selected protocol (TLS 1.3 carries it in EncryptedExtensions)
}

/** TLS ServerHello handshake message (type 2), without record header. */
export function tlsServerHello(o: ServerHelloOptions): Buffer {
  const w = new ByteWriter(200);
  w.u8(2);
  w.block(3, (w) => {
    w.u16(0x0303);
    w.bytes(o.random);
    w.block(1, (w) => w.bytes(o.sessionId));
    w.u16(o.cipher);
    w.u8(0);
    w.block(2, (w) => {
      if (o.version === 0x0304) {
        ext(w, 0x002b, (w) => w.u16(0x0304));
        ext(w, 0x0033, (w) => {
          w.u16(0x001d);
          w.block(2, (w) => w.bytes(o.keyShare));
        });
      } else {
        ext(w, 0xff01, (w) => w.u8(0));
        ext(w, 0x0017, () => {});
        ext(w, 0x000b, (w) => w.block(1, (w) => w.u8(0)));
        if (o.alpn) ext(w, 0x0010, (w) => w.block(2, (w) => w.block(1, (w) => w.ascii(o.alpn!))));
      }
    });
  });
  return w.toBuffer();
}

/** Wrap handshake/other data into a TLS record. */
export function tlsRecord(contentType: number, version: number, body: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(5 + body.length); // every byte is written below
  b[0] = contentType;
  b.writeUInt16BE(version, 1);
  b.writeUInt16BE(body.length, 3);
  b.set(body, 5);
  return b;
}

/** ClientHello in a TLS record (record version 0x0301, as browsers send it). */
export function tlsClientHelloRecord(o: ClientHelloOptions): Buffer {
  return tlsRecord(22, 0x0301, tlsClientHello(o));
}

/** Server's first flight as sent on TCP: ServerHello record (+ ChangeCipherSpec for TLS 1.3 compat). */
export function tlsServerHelloRecords(o: ServerHelloOptions): Buffer {
  const sh = tlsRecord(22, 0x0303, tlsServerHello(o));
  if (o.version !== 0x0304) return sh;
  return Buffer.concat([sh, tlsRecord(20, 0x0303, Buffer.from([1]))]);
}

/** Write a TLS application_data record header (5 bytes) for `contentLen` bytes of ciphertext. */
export function writeTlsAppDataHeader(buf: Uint8Array, off: number, contentLen: number): void {
  buf[off] = 23;
  buf[off + 1] = 0x03;
  buf[off + 2] = 0x03;
  buf[off + 3] = contentLen >> 8;
  buf[off + 4] = contentLen & 0xff;
}

// ---- HTTP/1.1 -------------------------------------------------------------------------

export const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  'curl/8.4.0',
  'Wget/1.21.3',
  'Debian APT-HTTP/1.3 (2.6.1)',
];

export const HTTP_PATHS = [
  '/',
  '/index.html',
  '/favicon.ico',
  '/api/v1/status',
  '/static/js/app.js',
  '/static/css/main.css',
  '/assets/data.json',
  '/download/file.bin',
  '/robots.txt',
  '/debian/dists/bookworm/InRelease',
];

export function httpRequest(host: string, path: string, userAgent: string): Buffer {
  return Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${userAgent}\r\n` +
      `Accept: */*\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n\r\n`,
    'latin1',
  );
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** IMF-fixdate for an epoch-seconds value (deterministic, no locale). */
export function httpDate(epochSec: number): string {
  const d = new Date(Math.floor(epochSec) * 1000);
  const p2 = (n: number): string => (n < 10 ? '0' : '') + n;
  return (
    `${DAYS[d.getUTCDay()]}, ${p2(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} GMT`
  );
}

function contentTypeFor(path: string): string {
  if (path.endsWith('.js')) return 'application/javascript';
  if (path.endsWith('.css')) return 'text/css';
  if (path.endsWith('.json') || path.startsWith('/api/')) return 'application/json';
  if (path.endsWith('.txt')) return 'text/plain';
  if (path.endsWith('.bin') || path.endsWith('.ico') || path.endsWith('InRelease')) return 'application/octet-stream';
  return 'text/html; charset=utf-8';
}

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut ' +
  'aliquip ex ea commodo consequat. ';

function filler(n: number, offset: number): string {
  if (n <= 0) return '';
  let s = '';
  const start = offset % LOREM.length;
  s = LOREM.slice(start);
  while (s.length < n) s += LOREM;
  return s.slice(0, n);
}

/** A body of exactly `len` bytes that is valid for the content type (ASCII text, HTML, JSON or binary). */
function httpBody(contentType: string, len: number, host: string, seed: number, binary?: Uint8Array): Buffer {
  if (contentType === 'application/octet-stream') {
    const b = Buffer.alloc(len);
    if (binary) for (let i = 0; i < len; i++) b[i] = binary[(seed + i) % binary.length]!;
    return b;
  }
  let s: string;
  if (contentType === 'application/json') {
    const pre = `{"host":"${host}","id":${seed % 100000},"data":"`;
    const post = '"}';
    s = len >= pre.length + post.length ? pre + filler(len - pre.length - post.length, seed) + post : filler(len, seed);
  } else if (contentType.startsWith('text/html')) {
    const pre = `<!DOCTYPE html><html><head><title>${host}</title></head><body><p>`;
    const post = '</p></body></html>\n';
    s = len >= pre.length + post.length ? pre + filler(len - pre.length - post.length, seed) + post : filler(len, seed);
  } else {
    s = filler(len, seed);
  }
  return Buffer.from(s, 'latin1');
}

export interface HttpResponseOptions {
  path: string; // request path (selects the content type)
  host: string;
  epochSec: number; // for the Date header
  /** desired total length of the response (headers + body); the body is sized to reach it */
  totalLen: number;
  seed: number;
  binary?: Uint8Array; // source bytes for binary bodies
}

function httpResponseHead(ct: string, date: string, bodyLen: number): string {
  return (
    `HTTP/1.1 200 OK\r\nDate: ${date}\r\nServer: nginx/1.24.0\r\nContent-Type: ${ct}\r\n` +
    `Content-Length: ${bodyLen}\r\nCache-Control: max-age=3600\r\nConnection: keep-alive\r\n\r\n`
  );
}

/** "HTTP/1.1 200 OK" response with Content-Type, Content-Length and a body, about totalLen bytes. */
export function httpResponse(o: HttpResponseOptions): Buffer {
  let ct = contentTypeFor(o.path);
  const date = httpDate(o.epochSec);
  let bodyLen = Math.max(0, o.totalLen - httpResponseHead(ct, date, 0).length);
  // the Content-Length digits change the header length: settle
  for (let i = 0; i < 3; i++) bodyLen = Math.max(0, o.totalLen - httpResponseHead(ct, date, bodyLen).length);
  if (ct === 'application/json' && bodyLen < 64) ct = 'text/plain';
  for (let i = 0; i < 3; i++) bodyLen = Math.max(0, o.totalLen - httpResponseHead(ct, date, bodyLen).length);
  const head = Buffer.from(httpResponseHead(ct, date, bodyLen), 'latin1');
  return Buffer.concat([head, httpBody(ct, bodyLen, o.host, o.seed, o.binary)]);
}

// ---- DNS ------------------------------------------------------------------------------

export const DNS_TYPE_A = 1;
export const DNS_TYPE_AAAA = 28;

function dnsName(w: ByteWriter, name: string): void {
  for (const label of name.split('.')) {
    if (!label) continue;
    w.block(1, (w) => w.ascii(label));
  }
  w.u8(0);
}

function dnsOpt(w: ByteWriter): void {
  w.u8(0); // root
  w.u16(41); // OPT
  w.u16(1232); // UDP payload size
  w.u32(0); // ext rcode, version, flags
  w.u16(0); // rdlen
}

export function dnsQuery(id: number, name: string, qtype: number, edns = true): Buffer {
  const w = new ByteWriter(64);
  w.u16(id).u16(0x0100).u16(1).u16(0).u16(0).u16(edns ? 1 : 0);
  dnsName(w, name);
  w.u16(qtype).u16(1);
  if (edns) dnsOpt(w);
  return w.toBuffer();
}

/**
 * Standard response: the question repeated, then one answer per address; every answer's
 * owner name is the compression pointer 0xc00c to the question name.
 */
export function dnsResponse(id: number, name: string, qtype: number, addrs: Uint8Array[], ttl: number, edns = true): Buffer {
  const w = new ByteWriter(128);
  w.u16(id).u16(0x8180).u16(1).u16(addrs.length).u16(0).u16(edns ? 1 : 0);
  dnsName(w, name);
  w.u16(qtype).u16(1);
  for (const a of addrs) {
    w.u16(0xc00c); // pointer to offset 12 (question name)
    w.u16(a.length === 4 ? DNS_TYPE_A : DNS_TYPE_AAAA).u16(1).u32(ttl);
    w.block(2, (w) => w.bytes(a));
  }
  if (edns) dnsOpt(w);
  return w.toBuffer();
}

// ---- NTP ------------------------------------------------------------------------------

const NTP_EPOCH_OFFSET = 2208988800;

/** Write a 64-bit NTP timestamp for epoch microseconds. */
export function ntpTimestamp(buf: Uint8Array, off: number, epochUs: number): void {
  const sec = Math.floor(epochUs / 1e6);
  const us = epochUs - sec * 1e6;
  const frac = Math.floor((us * 4294967296) / 1e6);
  const hi = (sec + NTP_EPOCH_OFFSET) >>> 0;
  buf[off] = hi >>> 24;
  buf[off + 1] = (hi >>> 16) & 0xff;
  buf[off + 2] = (hi >>> 8) & 0xff;
  buf[off + 3] = hi & 0xff;
  buf[off + 4] = frac >>> 24;
  buf[off + 5] = (frac >>> 16) & 0xff;
  buf[off + 6] = (frac >>> 8) & 0xff;
  buf[off + 7] = frac & 0xff;
}

/** 48-byte NTPv4 client request (mode 3). */
export function ntpRequest(txEpochUs: number): Buffer {
  const b = Buffer.alloc(48);
  b[0] = (0 << 6) | (4 << 3) | 3; // LI 0, VN 4, mode 3
  b[1] = 0; // stratum
  b[2] = 6; // poll 64 s
  b[3] = 0xe9; // precision 2^-23
  ntpTimestamp(b, 40, txEpochUs);
  return b;
}

/** 48-byte NTPv4 server reply (mode 4). */
export function ntpResponse(o: {
  stratum: number;
  refId: Uint8Array; // 4 bytes
  refEpochUs: number;
  originRaw: Uint8Array; // the client's transmit timestamp (8 bytes, echoed)
  rxEpochUs: number;
  txEpochUs: number;
}): Buffer {
  const b = Buffer.alloc(48);
  b[0] = (0 << 6) | (4 << 3) | 4; // LI 0, VN 4, mode 4
  b[1] = o.stratum;
  b[2] = 6;
  b[3] = 0xe7; // precision 2^-25
  b.writeUInt32BE(0x00000010, 4); // root delay
  b.writeUInt32BE(0x00000020, 8); // root dispersion
  b.set(o.refId.subarray(0, 4), 12);
  ntpTimestamp(b, 16, o.refEpochUs);
  b.set(o.originRaw.subarray(0, 8), 24);
  ntpTimestamp(b, 32, o.rxEpochUs);
  ntpTimestamp(b, 40, o.txEpochUs);
  return b;
}

// ---- SSH ------------------------------------------------------------------------------

export const SSH_CLIENT_BANNER = 'SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n';
export const SSH_SERVER_BANNERS = [
  'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6\r\n',
  'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u2\r\n',
  'SSH-2.0-OpenSSH_7.4\r\n',
  'SSH-2.0-babeld-8405f9f3\r\n',
];

/** SSH binary packet (RFC 4253 §6) with no MAC, block size 8, padding from `pad`. */
export function sshPacket(payload: Uint8Array, pad: Uint8Array): Buffer {
  let padLen = 8 - ((5 + payload.length) % 8);
  if (padLen < 4) padLen += 8;
  const w = new ByteWriter(payload.length + 32);
  w.u32(1 + payload.length + padLen);
  w.u8(padLen);
  w.bytes(payload);
  for (let i = 0; i < padLen; i++) w.u8(pad[i % pad.length]!);
  return w.toBuffer();
}

function sshString(w: ByteWriter, s: string | Uint8Array): void {
  const b = typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
  w.u32(b.length).bytes(b);
}

export function sshKexInit(cookie: Uint8Array, server: boolean, pad: Uint8Array): Buffer {
  const w = new ByteWriter(1024);
  w.u8(20); // SSH_MSG_KEXINIT
  w.bytes(cookie.subarray(0, 16));
  const kex = server
    ? 'curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,diffie-hellman-group14-sha256,kex-strict-s-v00@openssh.com'
    : 'sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,diffie-hellman-group14-sha256,ext-info-c,kex-strict-c-v00@openssh.com';
  const hostKey = server
    ? 'rsa-sha2-512,rsa-sha2-256,ecdsa-sha2-nistp256,ssh-ed25519'
    : 'ssh-ed25519-cert-v01@openssh.com,ecdsa-sha2-nistp256-cert-v01@openssh.com,ssh-ed25519,ecdsa-sha2-nistp256,rsa-sha2-512,rsa-sha2-256';
  // client: OpenSSH defaults. server: a FIPS-style configuration (no chacha20/umac), so the
  // session negotiates aes128-ctr + hmac-sha2-256-etm: with an -etm MAC the packet length stays
  // in clear text, and the generator frames its encrypted packets accordingly. (With
  // chacha20-poly1305 the length is encrypted too; tshark 4.0 then "decrypts" it with no keys
  // and flags ~1 in 10^5 random packets as malformed.)
  const enc = server
    ? 'aes256-gcm@openssh.com,aes128-gcm@openssh.com,aes256-ctr,aes192-ctr,aes128-ctr'
    : 'chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,aes256-gcm@openssh.com';
  const mac = server
    ? 'hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com,hmac-sha2-256,hmac-sha2-512'
    : 'umac-64-etm@openssh.com,umac-128-etm@openssh.com,hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com,hmac-sha1-etm@openssh.com,umac-64@openssh.com,umac-128@openssh.com,hmac-sha2-256,hmac-sha2-512,hmac-sha1';
  const comp = server ? 'none,zlib@openssh.com' : 'none,zlib@openssh.com,zlib';
  for (const s of [kex, hostKey, enc, enc, mac, mac, comp, comp, '', '']) sshString(w, s);
  w.u8(0); // first_kex_packet_follows
  w.u32(0); // reserved
  return sshPacket(w.toBuffer(), pad);
}

/** SSH_MSG_KEX_ECDH_INIT with a 32-byte curve25519 public key. */
export function sshEcdhInit(pub: Uint8Array, pad: Uint8Array): Buffer {
  const w = new ByteWriter(64);
  w.u8(30);
  sshString(w, pub.subarray(0, 32));
  return sshPacket(w.toBuffer(), pad);
}

/**
 * SSH_MSG_KEX_ECDH_REPLY (ssh-ed25519 host key and signature) followed by SSH_MSG_NEWKEYS in the
 * same segment, as OpenSSH sends them. `hostKey` 32 bytes, `pub` 32-byte curve25519 key, `sig` 64.
 * Note: tshark 4.0 only decodes ssh-rsa/ssh-dss signature blobs and flags every other signature
 * type with an expert *warning* ("Decoded 19 bytes, but packet length is 83 bytes"); it does the
 * same on real OpenSSH captures. The packet itself is well-formed.
 */
export function sshEcdhReplyNewKeys(hostKey: Uint8Array, pub: Uint8Array, sig: Uint8Array, pad: Uint8Array): Buffer {
  const kb = new ByteWriter(64);
  sshString(kb, 'ssh-ed25519');
  sshString(kb, hostKey.subarray(0, 32));
  const sb = new ByteWriter(96);
  sshString(sb, 'ssh-ed25519');
  sshString(sb, sig.subarray(0, 64));
  const w = new ByteWriter(256);
  w.u8(31);
  sshString(w, kb.toBuffer());
  sshString(w, pub.subarray(0, 32));
  sshString(w, sb.toBuffer());
  return Buffer.concat([sshPacket(w.toBuffer(), pad), sshNewKeys(pad)]);
}

export function sshNewKeys(pad: Uint8Array): Buffer {
  return sshPacket(Buffer.from([21]), pad);
}

// ---- QUIC v1 Initial (RFC 9000 / RFC 9001) -----------------------------------------------

export const QUIC_V1_INITIAL_SALT = Buffer.from('38762cf7f55934b34d179ae6a4c80cadccbb7f0a', 'hex');

/** HKDF-Extract (RFC 5869) with SHA-256. */
export function hkdfExtract(salt: Uint8Array, ikm: Uint8Array): Buffer {
  return createHmac('sha256', salt).update(ikm).digest();
}

/** HKDF-Expand (RFC 5869) with SHA-256 from an existing PRK. */
export function hkdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Buffer {
  const out: Buffer[] = [];
  let t: Buffer = Buffer.alloc(0);
  let total = 0;
  for (let i = 1; total < length; i++) {
    t = createHmac('sha256', prk).update(t).update(info).update(Buffer.from([i])).digest();
    out.push(t);
    total += t.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

/** TLS 1.3 HKDF-Expand-Label (RFC 8446 §7.1). */
export function hkdfExpandLabel(secret: Uint8Array, label: string, context: Uint8Array, length: number): Buffer {
  const full = Buffer.from('tls13 ' + label, 'latin1');
  const info = Buffer.alloc(2 + 1 + full.length + 1 + context.length);
  info.writeUInt16BE(length, 0);
  info[2] = full.length;
  full.copy(info, 3);
  info[3 + full.length] = context.length;
  info.set(context, 4 + full.length);
  return hkdfExpand(secret, info, length);
}

export interface QuicKeys {
  secret: Buffer;
  key: Buffer; // AEAD_AES_128_GCM key (16)
  iv: Buffer; // 12
  hp: Buffer; // header protection key (16)
}

/** initial_secret = HKDF-Extract(initial_salt, client_dst_connection_id) (RFC 9001 §5.2). */
export function quicInitialSecret(originalDcid: Uint8Array): Buffer {
  return hkdfExtract(QUIC_V1_INITIAL_SALT, originalDcid);
}

/**
 * Initial packet protection keys (RFC 9001 §5.2) for the client ("client in") or server
 * ("server in"). Pass `initialSecret` (quicInitialSecret) to skip the extract step.
 */
export function quicInitialKeys(originalDcid: Uint8Array, server: boolean, initialSecret?: Uint8Array): QuicKeys {
  const initial = initialSecret ?? quicInitialSecret(originalDcid);
  const secret = hkdfExpandLabel(initial, server ? 'server in' : 'client in', Buffer.alloc(0), 32);
  return {
    secret,
    key: hkdfExpandLabel(secret, 'quic key', Buffer.alloc(0), 16),
    iv: hkdfExpandLabel(secret, 'quic iv', Buffer.alloc(0), 12),
    hp: hkdfExpandLabel(secret, 'quic hp', Buffer.alloc(0), 16),
  };
}

/** CRYPTO frame (type 0x06). */
export function quicCryptoFrame(offset: number, data: Uint8Array): Buffer {
  const w = new ByteWriter(data.length + 16);
  w.u8(0x06).varint(offset).varint(data.length).bytes(data);
  return w.toBuffer();
}

/** ACK frame (type 0x02) acknowledging packet numbers [largest-firstRange, largest]. */
export function quicAckFrame(largest: number, delay: number, firstRange = 0): Buffer {
  const w = new ByteWriter(16);
  w.u8(0x02).varint(largest).varint(delay).varint(0).varint(firstRange);
  return w.toBuffer();
}

/** Client transport parameters (RFC 9000 §18.2). */
export function quicTransportParams(scid: Uint8Array): Buffer {
  const w = new ByteWriter(128);
  const p = (id: number, v: number): void => {
    const vb = new ByteWriter(8).varint(v).toBuffer();
    w.varint(id).varint(vb.length).bytes(vb);
  };
  p(0x01, 30000); // max_idle_timeout
  p(0x03, 1472); // max_udp_payload_size
  p(0x04, 15728640); // initial_max_data
  p(0x05, 6291456); // initial_max_stream_data_bidi_local
  p(0x06, 6291456); // initial_max_stream_data_bidi_remote
  p(0x07, 6291456); // initial_max_stream_data_uni
  p(0x08, 100); // initial_max_streams_bidi
  p(0x09, 103); // initial_max_streams_uni
  w.varint(0x0f).varint(scid.length).bytes(scid); // initial_source_connection_id
  return w.toBuffer();
}

export interface QuicInitialOptions {
  keys: QuicKeys;
  dcid: Uint8Array;
  scid: Uint8Array;
  token?: Uint8Array;
  pn: number;
  pnLen?: 1 | 2 | 3 | 4;
  frames: Uint8Array; // plaintext frames
  /** pad with PADDING frames so that the whole packet is exactly this long */
  padTo?: number;
}

/** Build a protected QUIC v1 Initial packet (AEAD_AES_128_GCM + AES-ECB header protection). */
export function quicInitialPacket(o: QuicInitialOptions): Buffer {
  const pnLen = o.pnLen ?? 2;
  const token = o.token ?? new Uint8Array(0);
  const hdr = new ByteWriter(64);
  hdr.u8(0xc0 | (0 << 4) | (pnLen - 1)); // long header, fixed bit, type Initial
  hdr.u32(0x00000001);
  hdr.u8(o.dcid.length).bytes(o.dcid);
  hdr.u8(o.scid.length).bytes(o.scid);
  hdr.varint(token.length).bytes(token);
  const lenFieldAt = hdr.len;
  const TAG = 16;
  let plainLen = o.frames.length;
  if (o.padTo !== undefined) {
    const fixed = lenFieldAt + 2 + pnLen + TAG;
    plainLen = Math.max(plainLen, o.padTo - fixed);
  }
  // header protection needs 4 bytes after the pn start plus a 16-byte sample
  plainLen = Math.max(plainLen, 4 - pnLen + 16 - TAG + 4);
  hdr.varint(pnLen + plainLen + TAG, 2);
  const pnOffset = hdr.len;
  for (let i = pnLen - 1; i >= 0; i--) hdr.u8(Math.floor(o.pn / 2 ** (8 * i)) & 0xff);
  const header = hdr.toBuffer();

  const plain = Buffer.alloc(plainLen); // zero bytes = PADDING frames
  plain.set(o.frames, 0);

  const nonce = Buffer.from(o.keys.iv);
  let pn = o.pn;
  for (let i = 11; i >= 4 && pn > 0; i--) {
    nonce[i] = nonce[i]! ^ (pn & 0xff);
    pn = Math.floor(pn / 256);
  }
  const c = createCipheriv('aes-128-gcm', o.keys.key, nonce);
  c.setAAD(header);
  const ct = Buffer.concat([c.update(plain), c.final()]);
  const tag = c.getAuthTag();
  const packet = Buffer.concat([header, ct, tag]);

  // header protection (RFC 9001 §5.4)
  const sample = packet.subarray(pnOffset + 4, pnOffset + 4 + 16);
  const ecb = createCipheriv('aes-128-ecb', o.keys.hp, null);
  ecb.setAutoPadding(false);
  const mask = ecb.update(sample);
  packet[0] = packet[0]! ^ (mask[0]! & 0x0f);
  for (let i = 0; i < pnLen; i++) packet[pnOffset + i] = packet[pnOffset + i]! ^ mask[1 + i]!;
  return packet;
}

/** Client Initial (1200-byte datagram) carrying the whole ClientHello in a CRYPTO frame. */
export function quicClientInitial(o: {
  dcid: Uint8Array;
  scid: Uint8Array;
  sni: string;
  random: Uint8Array;
  keyShare: Uint8Array;
  pn?: number;
  datagramLen?: number;
  initialSecret?: Uint8Array;
}): Buffer {
  const ch = tlsClientHello({
    sni: o.sni,
    random: o.random,
    sessionId: new Uint8Array(0),
    keyShare: o.keyShare,
    alpn: ['h3'],
    quicTransportParams: quicTransportParams(o.scid),
  });
  return quicInitialPacket({
    keys: quicInitialKeys(o.dcid, false, o.initialSecret),
    dcid: o.dcid,
    scid: o.scid,
    pn: o.pn ?? 0,
    frames: quicCryptoFrame(0, ch),
    padTo: o.datagramLen ?? 1200,
  });
}

/** Server Initial: ACK of the client's packet 0 + CRYPTO(ServerHello), protected with "server in" keys. */
export function quicServerInitial(o: {
  originalDcid: Uint8Array; // the client's first DCID (key derivation)
  dcid: Uint8Array; // = client's SCID
  scid: Uint8Array; // server chosen connection id
  random: Uint8Array;
  keyShare: Uint8Array;
  pn?: number;
  datagramLen?: number;
  initialSecret?: Uint8Array;
}): Buffer {
  const sh = tlsServerHello({ version: 0x0304, random: o.random, sessionId: new Uint8Array(0), cipher: 0x1301, keyShare: o.keyShare });
  const frames = Buffer.concat([quicAckFrame(0, 0), quicCryptoFrame(0, sh)]);
  return quicInitialPacket({
    keys: quicInitialKeys(o.originalDcid, true, o.initialSecret),
    dcid: o.dcid,
    scid: o.scid,
    pn: o.pn ?? 0,
    frames,
    padTo: o.datagramLen ?? 1200,
  });
}
