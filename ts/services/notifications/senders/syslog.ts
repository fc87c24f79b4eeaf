// ⑧ Syslog delivery (ntopng's endpoints/syslog.lua): one message per
// notification, facility 14 (log alert), the level from the severity. To a
// host: UDP datagrams, or TCP lines ('\n' after each); plaintextrfc has the
// RFC 5424 header, the other formats the BSD one. Without a host ntopng
// calls syslog(3): here `logger` writes to /dev/log when there is one.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { connect, isIP } from 'node:net';

import type { Params } from '../endpoints.js';
import { formatPlain, hostAddress, isoTime, notificationSeverity, PRODUCT, syslogLevel, type Notification, type PlainOptions } from '../notification.js';

export const SYSLOG_FACILITY = 14;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** os.date("!%b %d %X"): Feb 05 09:58:12 (UTC) */
function bsdTime(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The message text of a notification in the endpoint's format (no header). */
export function syslogText(params: Params, n: Notification, o: PlainOptions): string {
  return params.syslog_alert_format === 'json' ? JSON.stringify(n) : formatPlain(n, { ...o, iso: true });
}

/** The line sent to a syslog host: PRI = facility × 8 + level. */
export function syslogLine(params: Params, n: Notification, o: PlainOptions, nowMs = Date.now(), host = hostAddress()): string {
  const prio = SYSLOG_FACILITY * 8 + syslogLevel(notificationSeverity(n));
  const msg = syslogText(params, n, o);
  if (params.syslog_alert_format === 'plaintextrfc') return `<${prio}>1 ${isoTime(Math.floor(nowMs / 1000))} ${host} ${PRODUCT} ${process.pid} - - ${msg}`;
  return `<${prio}>${bsdTime(nowMs)} ${host} ${PRODUCT}[${process.pid}]: ${msg}`;
}

export async function sendSyslog(params: Params, batch: Notification[], o: PlainOptions, timeoutMs: number): Promise<void> {
  if (!params.syslog_host) return localSyslog(params, batch, o, timeoutMs);
  const port = Number(params.syslog_port || 514);
  const host = params.syslog_host.replace(/^\[|\]$/g, '');
  const me = hostAddress();
  const lines = batch.map((n) => syslogLine(params, n, o, Date.now(), me));
  if (params.syslog_protocol === 'tcp') return tcpLines(host, port, lines, timeoutMs);
  return udpDatagrams(host, port, lines, timeoutMs);
}

function udpDatagrams(host: string, port: number, lines: string[], timeoutMs: number): Promise<void> {
  const sock = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  return new Promise<void>((resolve, reject) => {
    let left = lines.length;
    const timer = setTimeout(() => done(new Error(`syslog: not sent within ${timeoutMs} ms`)), timeoutMs);
    const done = (e?: Error | null) => {
      clearTimeout(timer);
      sock.close();
      if (e) reject(e);
      else resolve();
    };
    sock.on('error', done);
    if (!left) return done();
    for (const l of lines) {
      sock.send(Buffer.from(l), port, host, (e) => {
        if (e) return done(e);
        if (--left === 0) done();
      });
    }
  });
}

function tcpLines(host: string, port: number, lines: string[], timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const s = connect({ host, port });
    const timer = setTimeout(() => s.destroy(new Error(`syslog: not sent within ${timeoutMs} ms`)), timeoutMs);
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on('connect', () => {
      s.end(lines.map((l) => `${l}\n`).join(''), () => {
        clearTimeout(timer);
        s.destroy();
        resolve();
      });
    });
  });
}

/** ntop.syslog: the local logger, at each message's level (user facility = 1, so priority 8 + level; tag ntopng). */
async function localSyslog(params: Params, batch: Notification[], o: PlainOptions, timeoutMs: number): Promise<void> {
  if (!existsSync('/dev/log')) throw new Error('no local syslog (/dev/log is missing) and no syslog_host set');
  const byLevel = new Map<number, string[]>();
  for (const n of batch) {
    const lv = syslogLevel(notificationSeverity(n));
    let l = byLevel.get(lv);
    if (!l) byLevel.set(lv, (l = []));
    l.push(syslogText(params, n, o).replace(/[\r\n]+/g, ' '));
  }
  for (const [level, lines] of byLevel) {
    await new Promise<void>((resolve, reject) => {
      const p = spawn('logger', ['--socket-errors=on', '-t', PRODUCT, `--id=${process.pid}`, '-p', String(8 + level)], { stdio: ['pipe', 'ignore', 'pipe'], timeout: timeoutMs });
      let err = '';
      p.stderr.on('data', (d) => (err += String(d)));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`logger: ${err.trim() || `exit ${code}`}`))));
      p.stdin.on('error', () => {});
      p.stdin.end(lines.map((l) => `${l}\n`).join(''));
    });
  }
}
