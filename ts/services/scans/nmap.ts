// ⑧ nmap as a child process: one run per scan, its arguments an array (no
// shell ever sees a host or port list), killed at its deadline or when the
// scan is cancelled. What it found is read from its XML report (-oX, a file
// of its own); its normal output is the report text ntopng shows.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** where ntopng looks for nmap (vs_utils.get_nmap_path) */
const NMAP_PATHS = ['/usr/bin/nmap', '/usr/local/bin/nmap', '/opt/homebrew/bin/nmap'];

export function nmapPath(): string | null {
  return NMAP_PATHS.find((p) => existsSync(p)) ?? null;
}

export interface NmapPort {
  proto: 'tcp' | 'udp';
  port: number;
  /** open, closed, filtered, open|filtered, … */
  state: string;
  /** nmap's service name for the port ('' when none) */
  service: string;
}

export interface NmapHost {
  addr: string;
  up: boolean;
  ports: NmapPort[];
}

export interface NmapResult {
  hosts: NmapHost[];
  /** the normal output without nmap's banner and closing line (they change at each run) */
  text: string;
  /** epoch s the run started, and its seconds */
  begin: number;
  duration: number;
}

export class NmapError extends Error {}

/** Runs nmap with `args` (targets last) and reads its XML report. */
export async function runNmap(args: string[], o: { timeoutMs: number; signal?: AbortSignal; bin?: string }): Promise<NmapResult> {
  const bin = o.bin ?? nmapPath();
  if (!bin) throw new NmapError('nmap is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'flowgate-nmap-'));
  const xmlFile = join(dir, 'scan.xml');
  const begin = Date.now();
  try {
    const text = await new Promise<string>((resolve, reject) => {
      const child = spawn(bin, ['-oX', xmlFile, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let err = '';
      let size = 0;
      child.stdout.on('data', (b: Buffer) => {
        // the normal output is kept up to 4 MiB (a full UDP scan of a host stays far below)
        if (size < 4 << 20) out.push(b);
        size += b.length;
      });
      child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
      let why = '';
      const stop = (reason: string) => {
        why = reason;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => stop(`nmap did not finish in ${Math.round(o.timeoutMs / 1000)} s`), o.timeoutMs);
      const onAbort = () => stop('scan cancelled');
      o.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new NmapError(`nmap could not run: ${e.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        if (why) reject(new NmapError(why));
        else if (code !== 0) reject(new NmapError(`nmap failed (exit ${code}): ${err.trim().split('\n').pop() ?? ''}`));
        else resolve(Buffer.concat(out).toString('utf8'));
      });
    });
    const xml = await readFile(xmlFile, 'utf8');
    return { hosts: parseNmapXml(xml), text: cleanText(text), begin: Math.floor(begin / 1000), duration: Math.round((Date.now() - begin) / 1000) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** nmap's banner ("Starting Nmap …") and closing line ("Nmap done: …") carry the time and differ at each run. */
function cleanText(s: string): string {
  return s
    .split('\n')
    .filter((l) => !/^Starting Nmap |^Nmap done: /.test(l))
    .join('\n')
    .trim();
}

const attrs = (tag: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:-]+)="([^"]*)"/g)) out[m[1]] = unescapeXml(m[2]);
  return out;
};
const unescapeXml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** The hosts of an nmap XML report (nmap.dtd: host > status, address, ports > port > state, service). */
export function parseNmapXml(xml: string): NmapHost[] {
  const hosts: NmapHost[] = [];
  for (const m of xml.matchAll(/<host\b[^>]*>([\s\S]*?)<\/host>/g)) {
    const body = m[1];
    const status = /<status\b[^>]*>/.exec(body);
    const addr = [...body.matchAll(/<address\b[^>]*>/g)].map((a) => attrs(a[0])).find((a) => a.addrtype === 'ipv4' || a.addrtype === 'ipv6');
    if (!addr) continue;
    const ports: NmapPort[] = [];
    for (const p of body.matchAll(/<port\b([^>]*)>([\s\S]*?)<\/port>/g)) {
      const pa = attrs(p[1]);
      if (pa.protocol !== 'tcp' && pa.protocol !== 'udp') continue;
      const state = /<state\b[^>]*>/.exec(p[2]);
      const service = /<service\b[^>]*>/.exec(p[2]);
      ports.push({ proto: pa.protocol, port: Number(pa.portid), state: state ? (attrs(state[0]).state ?? '') : '', service: service ? (attrs(service[0]).name ?? '') : '' });
    }
    hosts.push({ addr: addr.addr, up: status ? attrs(status[0]).state === 'up' : false, ports });
  }
  return hosts;
}
