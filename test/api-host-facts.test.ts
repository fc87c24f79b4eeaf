// Host data fields computed from the host's flows, checked against tshark
// on the same captures: distinct peers as client and as server
// (contacts.*), HTTP virtual hosts served (active_http_hosts), and ICMP
// flows opened by a port / host unreachable message (unreachable_flows.*,
// host_unreachable_flows.*: the message's sender counts as client, as
// ntopng counts them).
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { NDPI_PCAPS, normIp, tool } from './fixtures/util.js';

const FILES = ['1kxun.pcap', 'stun_signal.pcapng', 'instagram.pcap'].map((f) => join(NDPI_PCAPS, f));

interface Truth {
  asClient: Map<string, Set<string>>;
  asServer: Map<string, Set<string>>;
  httpHosts: Map<string, Set<string>>;
  unreach: Map<string, [number, number, number, number]>; // port cli, port srv, host cli, host srv
  hosts: Set<string>;
}

/** Flows rebuilt from tshark's per-packet fields (no VLANs in these captures). */
function truthOf(file: string): Truth {
  const out = tool('tshark', ['-n', '-r', file, '-T', 'fields', '-E', 'occurrence=f', '-E', 'separator=|',
    '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst', '-e', 'ip.proto', '-e', 'ipv6.nxt',
    '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'tcp.flags.syn', '-e', 'tcp.flags.ack', '-e', 'udp.srcport', '-e', 'udp.dstport',
    '-e', 'icmp.type', '-e', 'icmp.code', '-e', 'icmpv6.type', '-e', 'icmpv6.code', '-e', 'http.host', '-e', 'http.request']);
  const t: Truth = { asClient: new Map(), asServer: new Map(), httpHosts: new Map(), unreach: new Map(), hosts: new Set() };
  const flows = new Map<string, { cli: string; srv: string; http?: string }>();
  const add = (m: Map<string, Set<string>>, k: string, v: string) => (m.get(k) ?? m.set(k, new Set()).get(k)!).add(v);
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [s4, d4, s6, d6, p4, p6, ts, td, syn, ack, us, ud, it4, ic4, it6, ic6, httpHost, httpReq] = line.split('|');
    const src = s4 || s6, dst = d4 || d6;
    if (!src || !dst) continue;
    const proto = Number((p4 || p6).split(',')[0]);
    const [a, b] = [normIp(src), normIp(dst)];
    t.hosts.add(a).add(b);
    // ICMP flows have no ports (tshark's port fields there are the quoted packet's)
    const icmp = proto === 1 || proto === 58;
    const sp = icmp ? 0 : Number(ts || us || 0), dp = icmp ? 0 : Number(td || ud || 0);
    const key = [proto, ...[`${a}:${sp}`, `${b}:${dp}`].sort()].join('|');
    let f = flows.get(key);
    if (!f) {
      // the client sent the first packet, unless that packet is a SYN-ACK
      const synAck = proto === 6 && syn === '1' && ack === '1';
      f = synAck ? { cli: b, srv: a } : { cli: a, srv: b };
      flows.set(key, f);
      add(t.asClient, f.cli, f.srv);
      add(t.asServer, f.srv, f.cli);
      const type = Number(it4 || it6), code = Number(ic4 || ic6);
      const kind = it4 !== '' ? (type === 3 ? (code === 3 ? 0 : code === 1 ? 1 : -1) : -1) : it6 !== '' ? (type === 1 ? (code === 4 ? 0 : code === 3 ? 1 : -1) : -1) : -1;
      if (kind >= 0) {
        const u = (h: string) => t.unreach.get(h) ?? t.unreach.set(h, [0, 0, 0, 0]).get(h)!;
        u(f.cli)[kind * 2]++;
        u(f.srv)[kind * 2 + 1]++;
      }
    }
    // the first request's Host names the flow (what DPI reads)
    if (proto === 6 && httpReq && httpHost && f.http === undefined && a === f.cli) {
      f.http = httpHost.toLowerCase();
      // virtual hosts are names: an address literal (with or without port) is none
      if (!/^(\d+\.){3}\d+(:\d+)?$|^\[/.test(f.http)) add(t.httpHosts, f.srv, f.http);
    }
  }
  return t;
}

let s: ApiService;
const truths: Truth[] = [];
beforeAll(async () => {
  s = await startApi({ files: FILES });
  for (const f of FILES) truths.push(truthOf(f));
});
afterAll(async () => {
  await s?.close();
});

describe('host data fields from flows', () => {
  it.each(FILES.map((f, i) => [f.split('/').pop()!, i] as const))('%s: contacts, HTTP hosts and unreachable flows of every host equal tshark', async (_name, ifid) => {
    const t = truths[ifid];
    let unreachSeen = 0, httpSeen = 0;
    for (const host of t.hosts) {
      const r = await s.call(v2('get/host/data'), { query: { ifid, host } });
      expect(r.body.rc, host).toBe(0);
      const d = r.body.rsp;
      expect([host, d['contacts.as_client'], d['contacts.as_server']]).toEqual([host, t.asClient.get(host)?.size ?? 0, t.asServer.get(host)?.size ?? 0]);
      const u = t.unreach.get(host) ?? [0, 0, 0, 0];
      expect([host, d['unreachable_flows.as_client'], d['unreachable_flows.as_server'], d['host_unreachable_flows.as_client'], d['host_unreachable_flows.as_server']]).toEqual([host, ...u]);
      unreachSeen += u[0] + u[1] + u[2] + u[3];
      httpSeen += d.active_http_hosts;
      expect([host, d.active_http_hosts]).toEqual([host, t.httpHosts.get(host)?.size ?? 0]);
    }
    // each capture exercises something (1kxun: HTTP servers; the others: ICMP unreachables)
    expect(unreachSeen + httpSeen).toBeGreaterThan(0);
  });
});
