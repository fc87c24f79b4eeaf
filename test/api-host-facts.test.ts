// Host data fields computed from the host's flows, checked against tshark
// on the same captures: distinct peers as client and as server
// (contacts.*), HTTP virtual hosts served (active_http_hosts), and ICMP
// flows opened by a port / host unreachable message (unreachable_flows.*,
// host_unreachable_flows.*: the message's sender counts as client, as
// ntopng counts them), and v0's `dns` / `http` of local hosts (each DNS
// flow's query and answer, each HTTP flow's first request and response).
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v0, v1, v2, type ApiService } from './fixtures/api.js';
import { NDPI_PCAPS, normIp, tool } from './fixtures/util.js';

const FILES = ['1kxun.pcap', 'stun_signal.pcapng', 'instagram.pcap'].map((f) => join(NDPI_PCAPS, f));

interface Truth {
  asClient: Map<string, Set<string>>;
  asServer: Map<string, Set<string>>;
  httpHosts: Map<string, Set<string>>;
  unreach: Map<string, [number, number, number, number]>; // port cli, port srv, host cli, host srv
  hosts: Set<string>;
  /** per host: DNS queries sent/rcvd by type name, replies ok/error sent/rcvd; HTTP methods, status classes */
  dns: Map<string, Record<string, number>>;
  http: Map<string, Record<string, number>>;
}

const DNS_TYPES: Record<number, string> = { 1: 'num_a', 2: 'num_ns', 5: 'num_cname', 6: 'num_soa', 12: 'num_ptr', 15: 'num_mx', 16: 'num_txt', 28: 'num_aaaa', 255: 'num_any' };
const bump = (m: Map<string, Record<string, number>>, host: string, key: string) => {
  const r = m.get(host) ?? m.set(host, {}).get(host)!;
  r[key] = (r[key] ?? 0) + 1;
};

/** Flows rebuilt from tshark's per-packet fields (no VLANs in these captures). */
function truthOf(file: string): Truth {
  const out = tool('tshark', ['-n', '-r', file, '-T', 'fields', '-E', 'occurrence=f', '-E', 'separator=|',
    '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst', '-e', 'ip.proto', '-e', 'ipv6.nxt',
    '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'tcp.flags.syn', '-e', 'tcp.flags.ack', '-e', 'udp.srcport', '-e', 'udp.dstport',
    '-e', 'icmp.type', '-e', 'icmp.code', '-e', 'icmpv6.type', '-e', 'icmpv6.code', '-e', 'http.host', '-e', 'http.request',
    '-e', 'dns.flags.response', '-e', 'dns.qry.type', '-e', 'dns.flags.rcode']);
  // HTTP requests and responses read per segment, as DPI reads them (a
  // response whose body the capture cut short still counts)
  const seg = tool('tshark', ['-n', '-o', 'tcp.desegment_tcp_streams:FALSE', '-r', file, '-T', 'fields', '-E', 'occurrence=f', '-E', 'separator=|',
    '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst', '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'http.request.method', '-e', 'http.response.code', '-Y', 'http']);
  const t: Truth = { asClient: new Map(), asServer: new Map(), httpHosts: new Map(), unreach: new Map(), hosts: new Set(), dns: new Map(), http: new Map() };
  const flows = new Map<string, { cli: string; srv: string; http?: string; query?: boolean; answer?: boolean; method?: string; status?: string }>();
  const add = (m: Map<string, Set<string>>, k: string, v: string) => (m.get(k) ?? m.set(k, new Set()).get(k)!).add(v);
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [s4, d4, s6, d6, p4, p6, ts, td, syn, ack, us, ud, it4, ic4, it6, ic6, httpHost, httpReq, dnsResp, dnsType, dnsRcode] = line.split('|');
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
      // the client sent the first packet, unless that packet is a SYN-ACK, or a TCP segment
      // without SYN from the lower port (ntopng's Flow::check_swap: the higher port is the client)
      const synAck = proto === 6 && syn === '1' && ack === '1';
      const midStream = proto === 6 && syn !== '1' && sp > 0 && dp > 0 && sp < dp;
      f = synAck || midStream ? { cli: b, srv: a } : { cli: a, srv: b };
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
    // DNS on port 53 (UDP): the flow's first query and its first answer
    if (proto === 17 && (sp === 53 || dp === 53) && dnsResp !== '') {
      const fromCli = a === f.cli;
      if (dnsResp === '0' && !f.query) {
        f.query = true;
        const q = DNS_TYPES[Number(dnsType.split(',')[0])] ?? 'num_other';
        bump(t.dns, f.cli, `sent.${q}`), bump(t.dns, f.srv, `rcvd.${q}`);
      } else if (dnsResp === '1' && f.query && !f.answer && !fromCli) {
        f.answer = true;
        const ok = Number(dnsRcode) === 0 ? 'num_replies_ok' : 'num_replies_error';
        bump(t.dns, f.cli, `rcvd.${ok}`), bump(t.dns, f.srv, `sent.${ok}`);
      }
    }

    // the first request's Host names the flow (what DPI reads)
    if (proto === 6 && httpReq && httpHost && f.http === undefined && a === f.cli) {
      f.http = httpHost.toLowerCase();
      // virtual hosts are names: an address literal (with or without port) is none
      if (!/^(\d+\.){3}\d+(:\d+)?$|^\[/.test(f.http)) add(t.httpHosts, f.srv, f.http);
    }
  }
  // HTTP over TCP: each flow's first request (method) and first response (status class)
  for (const line of seg.split('\n')) {
    if (!line) continue;
    const [s4, d4, s6, d6, sp, dp, method, status] = line.split('|');
    const [a, b] = [normIp(s4 || s6), normIp(d4 || d6)];
    const f = flows.get([6, ...[`${a}:${sp}`, `${b}:${dp}`].sort()].join('|'));
    if (!f) continue;
    if (method && !f.method && a === f.cli) f.method = method;
    if (status && !f.status && a === f.srv) f.status = status;
  }
  for (const f of flows.values()) {
    if (!f.method) continue;
    const q = ({ GET: 'num_get', POST: 'num_post', HEAD: 'num_head', PUT: 'num_put' } as Record<string, string>)[f.method] ?? 'num_other';
    bump(t.http, f.cli, `sender.${q}`), bump(t.http, f.srv, `receiver.${q}`);
    if (f.status) bump(t.http, f.cli, `receiver.num_${f.status[0]}xx`), bump(t.http, f.srv, `sender.num_${f.status[0]}xx`);
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

  it('v0 dns and http of every local host of 1kxun equal tshark', async () => {
    const t = truths[0];
    let seen = 0;
    for (const host of t.hosts) {
      const r = await s.call(v0('get/host/data'), { query: { ifid: 0, host } });
      expect(r.status, host).toBe(200);
      if (!r.body.localHost) {
        expect(r.body.dns).toBeUndefined();
        // nor in v2 (ntopng keeps DNS and HTTP counts for local hosts only)
        expect((await s.call(v2('get/host/data'), { query: { ifid: 0, host } })).body.rsp, host).not.toHaveProperty('dns');
        continue;
      }
      const got: Record<string, number> = {};
      for (const side of ['sent', 'rcvd'] as const) {
        const d = r.body.dns[side];
        for (const [k, v] of Object.entries(d.queries as Record<string, number>)) if (v) got[`${side}.${k}`] = v;
        for (const k of ['num_replies_ok', 'num_replies_error']) if (d[k]) got[`${side}.${k}`] = d[k];
        expect(d.num_queries).toBe(Object.values(d.queries as Record<string, number>).reduce((a, b) => a + b, 0));
      }
      const gotHttp: Record<string, number> = {};
      for (const side of ['sender', 'receiver'] as const) {
        const x = r.body.http[side];
        for (const part of ['query', 'response'] as const) {
          for (const [k, v] of Object.entries(x[part] as Record<string, number>)) if (v && k !== 'total') gotHttp[`${side}.${k}`] = v;
        }
      }
      expect([host, got]).toEqual([host, t.dns.get(host) ?? {}]);
      expect([host, gotHttp]).toEqual([host, t.http.get(host) ?? {}]);
      seen += Object.keys(got).length + Object.keys(gotHttp).length;
      // v1 and v2 carry the same objects (ntopng's Host::lua for a local host)
      for (const v of [v1, v2]) {
        const d = (await s.call(v('get/host/data'), { query: { ifid: 0, host } })).body.rsp;
        expect([host, d.dns, d.http]).toEqual([host, r.body.dns, r.body.http]);
      }
    }
    expect(seen).toBeGreaterThan(10);
  });
});
