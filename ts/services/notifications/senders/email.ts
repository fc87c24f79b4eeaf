// ⑧ Email delivery (ntopng's endpoints/email.lua + Utils::sendMail): a
// minimal SMTP client over node:net (smtp://, plain) or node:tls (smtps://,
// TLS from the start, as curl's smtps): EHLO (HELO when refused), AUTH
// PLAIN or LOGIN when a user is set, MAIL FROM, RCPT TO (to, then cc), DATA
// with dot-stuffing, QUIT. Up to 100 alerts per mail, one line each.
import { hostname } from 'node:os';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

import { bareAddress, parseSmtpServer, type Params } from '../endpoints.js';
import { formatPlain, hostAddress, PRODUCT, type Notification, type PlainOptions } from '../notification.js';

/** email.lua MAX_ALERTS_PER_EMAIL */
export const EMAIL_BATCH = 100;

export interface Mail {
  from: string;
  to: string;
  cc?: string;
  subject: string;
  /** HTML body (ntopng sends text/html) */
  body: string;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
const rfcDate = (d: Date) =>
  `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
/** a header value: non-ASCII as an RFC 2047 encoded word */
const headerText = (v: string) => (/^[\x20-\x7e]*$/.test(v) ? v : `=?UTF-8?B?${Buffer.from(v).toString('base64')}?=`);

/** The mail of a batch (email.lua dequeueRecipientAlerts + sendEmail). */
export function alertMail(params: Params, batch: Notification[], o: PlainOptions): Mail {
  const subject = batch.length > 1 ? `(${batch.length} alerts)` : '';
  const body = batch.map((n) => formatPlain(n, { ...o, iso: false })).join('<br>');
  return { from: params.email_sender, to: params.email_recipient, cc: params.cc, subject, body };
}

/** buildMessageHeader: the headers, an empty line, the body; CRLF line ends. */
export function mailText(m: Mail, now = new Date()): string {
  const subject = `${PRODUCT} [${hostname()}@${hostAddress()}] ${m.subject}`;
  const lines = [
    `From: ${m.from}`,
    `To: ${m.to}`,
    `Subject: ${headerText(subject)}`,
    `Date: ${rfcDate(now)}`,
    `Message-ID: <${Math.floor(now.getTime() / 1000)}.${process.hrtime.bigint()}@${PRODUCT}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=UTF-8',
  ];
  if (m.cc) lines.push(`Cc: ${m.cc}`);
  return `${lines.join('\r\n')}\r\n\r\n${m.body.replace(/\r?\n/g, '\r\n')}\r\n`;
}

/** SMTP's transparency (RFC 5321 4.5.2): a line starting with '.' gets one more. */
export const dotStuff = (text: string) => text.replace(/(^|\r\n)\./g, '$1..');

interface Reply {
  code: number;
  lines: string[];
}

/** Reads SMTP replies (multi-line: 'NNN-' until 'NNN ') off a socket. */
class ReplyReader {
  private buf = '';
  private cur: string[] = [];
  private readonly ready: Reply[] = [];
  private waiter: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(sock: Socket) {
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      this.buf += d;
      if (this.buf.length > 1 << 16) return this.fail(new Error('SMTP: reply too long'));
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i).replace(/\r$/, '');
        this.buf = this.buf.slice(i + 1);
        this.cur.push(line);
        if (!/^\d{3}-/.test(line)) {
          this.push({ code: Number(line.slice(0, 3)) || 0, lines: this.cur });
          this.cur = [];
        }
      }
    });
    sock.on('error', (e) => this.fail(e));
    sock.on('close', () => this.fail(new Error('SMTP: the server closed the connection')));
  }

  private push(r: Reply) {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve(r);
    } else this.ready.push(r);
  }

  fail(e: Error) {
    this.failure ??= e;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.reject(e);
    }
  }

  next(): Promise<Reply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }
}

export interface SmtpOptions {
  server: string;
  username?: string;
  password?: string;
  timeoutMs: number;
}

/** Sends one mail; rejects with the server's reply when a step is refused, or on a timeout. */
export async function sendMail(m: Mail, o: SmtpOptions): Promise<void> {
  const srv = parseSmtpServer(o.server);
  if (!srv) throw new Error(`SMTP: bad server '${o.server}'`);
  const sock: Socket = srv.tls ? tlsConnect({ host: srv.host, port: srv.port, servername: srv.host }) : netConnect({ host: srv.host, port: srv.port });
  const reader = new ReplyReader(sock);
  const timer = setTimeout(() => {
    const e = new Error(`SMTP: not done within ${o.timeoutMs} ms`);
    reader.fail(e);
    sock.destroy(e);
  }, o.timeoutMs);
  const send = (line: string) => sock.write(`${line}\r\n`);
  const expect = async (what: string, ok: (c: number) => boolean): Promise<Reply> => {
    const r = await reader.next();
    if (!ok(r.code)) throw new Error(`SMTP: ${what} refused: ${r.lines.join(' ').slice(0, 300)}`);
    return r;
  };
  const is2 = (c: number) => c >= 200 && c < 300;
  try {
    await expect('greeting', (c) => c === 220);
    const me = hostname().replace(/[^A-Za-z0-9.-]/g, '') || 'localhost';
    send(`EHLO ${me}`);
    let ehlo = await reader.next();
    if (ehlo.code !== 250) {
      send(`HELO ${me}`);
      ehlo = await expect('HELO', (c) => c === 250);
    }
    if (o.username) {
      const auth = ehlo.lines.map((l) => l.slice(4).toUpperCase()).find((l) => l.startsWith('AUTH')) ?? '';
      const mechs = auth.split(/[\s=]+/).slice(1);
      if (mechs.includes('PLAIN')) {
        send(`AUTH PLAIN ${Buffer.from(`\0${o.username}\0${o.password ?? ''}`).toString('base64')}`);
        await expect('AUTH PLAIN', (c) => c === 235);
      } else if (mechs.includes('LOGIN')) {
        send('AUTH LOGIN');
        await expect('AUTH LOGIN', (c) => c === 334);
        send(Buffer.from(o.username).toString('base64'));
        await expect('AUTH LOGIN user', (c) => c === 334);
        send(Buffer.from(o.password ?? '').toString('base64'));
        await expect('AUTH LOGIN password', (c) => c === 235);
      } else throw new Error('SMTP: a user is set but the server offers neither AUTH PLAIN nor AUTH LOGIN');
    }
    send(`MAIL FROM:<${bareAddress(m.from)}>`);
    await expect('MAIL FROM', is2);
    for (const rcpt of [m.to, m.cc].filter((x): x is string => !!x)) {
      send(`RCPT TO:<${bareAddress(rcpt)}>`);
      await expect(`RCPT TO ${bareAddress(rcpt)}`, is2);
    }
    send('DATA');
    await expect('DATA', (c) => c === 354);
    sock.write(`${dotStuff(mailText(m))}.\r\n`);
    await expect('the message', is2);
    send('QUIT');
    await reader.next().catch(() => undefined);
  } finally {
    clearTimeout(timer);
    sock.destroy();
  }
}
