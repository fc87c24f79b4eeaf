// ⑧ The probes behind the measurements, all asynchronous and bounded by a
// deadline (no answer by then: unreachable, as ntopng's value nil → 0):
// - icmp / icmp6: one echo with the system ping (iputils; Node has no raw
//   ICMP socket), the RTT it prints (ms); the name resolved first, IPv4 then
//   IPv6 as am_utils.resolveHost (icmp6: IPv6 only);
// - http / https: one GET without following redirects (ntopng's httpGet),
//   any HTTP answer counts; total time, name lookup and TLS handshake as
//   curl's TOTAL_TIME, NAMELOOKUP_TIME, APPCONNECT_TIME (each from the start);
//   certificates verified unless `insecureTls` (ntopng's --insecure);
// - tcp: the time to connect.
import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { lookup as lookupCb, type LookupOneOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { connect, isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';

import type { MeasurementKey, Target } from './measurements.js';

export interface ProbeResult {
  /** ms; null: no answer within the deadline */
  value: number | null;
  /** the address measured (ntopng's resolved_addr), '' when the name did not resolve */
  resolvedAddr: string;
  /** http(s): curl's breakdown (ms) */
  http?: { lookupMs: number; connectMs: number; totalMs: number };
}

export interface ProbeOptions {
  timeoutMs: number;
  /** icmp: the interface to send from (ping -I) */
  ifname?: string;
  /** http: ntopng's token (an "Authorization: Token" header) */
  token?: string;
  /** https: accept any certificate (ntopng's --insecure) */
  insecureTls?: boolean;
  /** the ping program */
  pingPath?: string;
  /** told once when ping cannot be run */
  onPingMissing?: (why: string) => void;
  /** aborted: the probe ends at once (unreachable) */
  signal?: AbortSignal;
}

const UNREACHABLE = (resolvedAddr = ''): ProbeResult => ({ value: null, resolvedAddr });

/** am_utils.resolveHost: an address as is, a name as IPv4 else IPv6 (null: unresolved). */
export async function resolveName(name: string, only6 = false): Promise<string | null> {
  if (isIP(name)) return only6 && isIP(name) !== 6 ? null : name;
  for (const family of only6 ? [6] : [4, 6]) {
    try {
      return (await lookup(name, { family })).address;
    } catch {
      // next family
    }
  }
  return null;
}

/** A promise settled by `f` or, at the deadline or an abort, with `onTimeout`. */
function withDeadline<T>(ms: number, signal: AbortSignal | undefined, onTimeout: () => T, f: (done: (v: T) => void) => () => void): Promise<T> {
  return new Promise<T>((resolve) => {
    let settled = false;
    let cleanup: () => void = () => {};
    const onAbort = () => done(onTimeout());
    const done = (v: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      cleanup();
      resolve(v);
    };
    const timer = setTimeout(onAbort, ms);
    if (signal?.aborted) return done(onTimeout());
    signal?.addEventListener('abort', onAbort);
    cleanup = f(done);
    if (settled) cleanup();
  });
}

const RTT = /time[=<]\s*([0-9]+(?:\.[0-9]+)?)\s*ms/;

async function probeIcmp(target: Target, v6only: boolean, o: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const addr = await resolveName(target.name, v6only);
  if (!addr) return UNREACHABLE();
  const left = Math.max(1, o.timeoutMs - (performance.now() - started));
  const args = ['-n', '-c', '1', '-W', String(Math.max(1, Math.ceil(left / 1000))), isIP(addr) === 6 ? '-6' : '-4'];
  if (o.ifname) args.push('-I', o.ifname);
  args.push(addr);
  return withDeadline(left, o.signal, () => UNREACHABLE(addr), (done) => {
    let out = '';
    const child = spawn(o.pingPath ?? 'ping', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (out.length < 8192) out += d;
    });
    child.on('error', (e) => {
      o.onPingMissing?.(e.message);
      done(UNREACHABLE(addr));
    });
    child.on('close', (code) => {
      const m = RTT.exec(out);
      done(code === 0 && m ? { value: Number(m[1]), resolvedAddr: addr } : UNREACHABLE(addr));
    });
    return () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
  });
}

async function probeTcp(target: Target, o: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const addr = await resolveName(target.name);
  if (!addr) return UNREACHABLE();
  const left = Math.max(1, o.timeoutMs - (performance.now() - started));
  return withDeadline(left, o.signal, () => UNREACHABLE(addr), (done) => {
    const t0 = performance.now();
    const s = connect({ host: addr, port: target.port! });
    s.once('connect', () => done({ value: performance.now() - t0, resolvedAddr: addr }));
    s.once('error', () => done(UNREACHABLE(addr)));
    return () => s.destroy();
  });
}

function probeHttp(target: Target, o: ProbeOptions): Promise<ProbeResult> {
  const url = target.url!;
  return withDeadline(o.timeoutMs, o.signal, () => UNREACHABLE(), (done) => {
    const t0 = performance.now();
    let lookupMs = 0;
    let connectMs = 0;
    // timed name resolution (curl's NAMELOOKUP_TIME); addresses are not looked up
    const timedLookup = ((host: string, opts: LookupOneOptions, cb: Parameters<LookupFunction>[2]) => {
      lookupCb(host, opts, (err, address, family) => {
        lookupMs = performance.now() - t0;
        (cb as (...a: unknown[]) => void)(err, address, family);
      });
    }) as unknown as LookupFunction;
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': 'flowgate active monitoring', accept: '*/*' };
    if (o.token) headers.authorization = `Token ${o.token}`;
    const req = (secure ? https : http).request(url, {
      method: 'GET',
      agent: false,
      headers,
      lookup: timedLookup,
      ...(secure ? { rejectUnauthorized: !o.insecureTls, servername: isIP(target.name) ? undefined : target.name } : {}),
    });
    req.on('socket', (s) => {
      s.once('secureConnect', () => (connectMs = performance.now() - t0));
    });
    req.on('response', (res) => {
      const addr = res.socket?.remoteAddress ?? '';
      // the whole answer is read, as curl does; its content is not kept
      res.on('data', () => {});
      res.on('error', () => done(UNREACHABLE()));
      res.on('end', () => {
        const totalMs = performance.now() - t0;
        done({ value: totalMs, resolvedAddr: addr, http: { lookupMs, connectMs, totalMs } });
      });
    });
    req.on('error', () => done(UNREACHABLE()));
    req.end();
    return () => req.destroy();
  });
}

/** One measurement of one target. Never throws: failures are unreachable. */
export async function probe(measurement: MeasurementKey, target: Target, o: ProbeOptions): Promise<ProbeResult> {
  try {
    switch (measurement) {
      case 'icmp':
        return await probeIcmp(target, false, o);
      case 'icmp6':
        return await probeIcmp(target, true, o);
      case 'tcp':
        return await probeTcp(target, o);
      case 'http':
      case 'https':
        return await probeHttp(target, o);
    }
  } catch {
    return UNREACHABLE();
  }
}
