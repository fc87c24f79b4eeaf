// ⑧ The gateway's LAN DHCP server: Debian's dnsmasq with a configuration
// written here (DHCP only, DNS off: port=0), one range per LAN interface
// that has an IPv4 address — hosts 100 to 200 of its network (the upper half
// of a network smaller than a /24) —, leases in <data-dir>/edge. Its leases
// file is what get/edge/dhcp_active_leases reads.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';

import { ipv4Network, ipv4ToNumber, numberToIpv4 } from '../cidr.js';

export interface Lease {
  mac: string;
  ip: string;
  /** the name the client gave ('' when none) */
  hostname: string;
  /** epoch s the lease ends (0: infinite) */
  expires: number;
  /** the LAN interface whose range holds the address ('' when none does) */
  interface: string;
}

interface Range {
  ifname: string;
  start: string;
  end: string;
  mask: string;
  /** network and prefix, to tell which LAN a lease is on */
  net: number;
  prefix: number;
}

const DNSMASQ = '/usr/sbin/dnsmasq';

/** The range of each LAN interface with an IPv4 address. */
export function dhcpRanges(lans: readonly string[], ifs = networkInterfaces()): Range[] {
  const out: Range[] = [];
  for (const ifname of lans) {
    const a = (ifs[ifname] ?? []).find((x) => x.family === 'IPv4' && !x.internal);
    if (!a?.cidr) continue;
    const prefix = Number(a.cidr.split('/')[1]);
    if (prefix > 29) continue; // too small to lend addresses
    const size = 2 ** (32 - prefix);
    const net = ipv4Network(ipv4ToNumber(a.address), prefix);
    const [first, last] = size >= 256 ? [net + 100, net + 200] : [net + size / 2, net + size - 2];
    out.push({ ifname, start: numberToIpv4(first), end: numberToIpv4(last), mask: a.netmask, net, prefix });
  }
  return out;
}

export class DhcpServer {
  private child: ChildProcess | null = null;
  private ranges: Range[] = [];
  private readonly leaseFile: string;

  constructor(
    private readonly dir: string,
    private readonly o: { bin?: string; log?: (l: string) => void } = {},
  ) {
    this.leaseFile = join(dir, 'dnsmasq.leases');
  }

  static available(bin = DNSMASQ): boolean {
    return existsSync(bin);
  }

  /** Starts dnsmasq on the LANs' ranges (none: not started). */
  start(lans: readonly string[]): void {
    this.ranges = dhcpRanges(lans);
    if (!this.ranges.length) return;
    mkdirSync(this.dir, { recursive: true });
    const conf = join(this.dir, 'dnsmasq.conf');
    writeFileSync(
      conf,
      [
        '# written by flowgate (gateway mode): DHCP on the LAN interfaces, no DNS',
        'port=0',
        'bind-interfaces',
        'user=root',
        'dhcp-authoritative',
        `dhcp-leasefile=${this.leaseFile}`,
        ...this.ranges.flatMap((r) => [`interface=${r.ifname}`, `dhcp-range=interface:${r.ifname},${r.start},${r.end},${r.mask},12h`]),
        '',
      ].join('\n'),
    );
    const child = spawn(this.o.bin ?? DNSMASQ, ['--keep-in-foreground', `--conf-file=${conf}`, '--log-facility=-'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-1000)));
    child.on('error', (e) => this.o.log?.(`flowgate: edge: dnsmasq: ${e.message}`));
    child.on('exit', (code) => {
      if (this.child === child && code) this.o.log?.(`flowgate: edge: dnsmasq exited ${code}: ${err.trim().split('\n').pop() ?? ''}`);
      if (this.child === child) this.child = null;
    });
    this.child = child;
    this.o.log?.(`flowgate: edge: DHCP on ${this.ranges.map((r) => `${r.ifname} ${r.start}-${r.end}`).join(', ')}`);
  }

  stop(): void {
    const c = this.child;
    this.child = null;
    c?.kill('SIGTERM');
  }

  /** dnsmasq's leases file: `<expiry> <mac> <ip> <hostname|*> <client id|*>` per lease. */
  leases(): Lease[] {
    let text = '';
    try {
      text = readFileSync(this.leaseFile, 'utf8');
    } catch {
      return [];
    }
    const out: Lease[] = [];
    for (const line of text.split('\n')) {
      const [exp, mac, ip, host] = line.trim().split(/\s+/);
      if (!ip || !/^\d+$/.test(exp ?? '') || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac ?? '')) continue;
      const n = ipv4ToNumber(ip);
      const r = this.ranges.find((x) => ipv4Network(n, x.prefix) === x.net);
      out.push({ mac: mac!.toLowerCase(), ip, hostname: host && host !== '*' ? host : '', expires: Number(exp), interface: r?.ifname ?? '' });
    }
    return out;
  }
}
