// Host data used_ports (ntopng's LocalHost UsedPorts: local_server_ports and
// remote_contacted_ports, "tcp:80" → the flow's application), on a capture
// built here with one flow per rule of ntopng's Flow::updateServerPortsStats
// and updateClientContactedPorts; the expected maps are worked out by hand
// from those rules, flow by flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { DNS_RESPONSE, dns, dnsName, httpGet, ipRdata } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const A = '192.168.9.1', B = '192.168.9.2', REMOTE = '93.184.216.34';

beforeAll(async () => {
  const p: Packet[] = [];
  let t = 0;
  const push = (src: string, dst: string, l4: Buffer, proto: number = IPPROTO.TCP) =>
    p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto }, l4)) });
  const handshake = (c: string, cp: number, sv: string, sp: number) => {
    push(c, sv, tcp({ sport: cp, dport: sp, flags: TCPF.SYN, seq: 100 }));
    push(sv, c, tcp({ sport: sp, dport: cp, flags: TCPF.SYN | TCPF.ACK, seq: 500, ack: 101 }));
    push(c, sv, tcp({ sport: cp, dport: sp, flags: TCPF.ACK, seq: 101, ack: 501 }));
  };
  // 1. A → B:80, HTTP answered: B served tcp:80, A contacted it
  handshake(A, 40000, B, 80);
  const get = httpGet('b.example');
  push(A, B, tcp({ sport: 40000, dport: 80, flags: TCPF.PSH | TCPF.ACK, seq: 101, ack: 501 }, get));
  const ok = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi');
  push(B, A, tcp({ sport: 80, dport: 40000, flags: TCPF.PSH | TCPF.ACK, seq: 501, ack: 101 + get.length }, ok));
  // 2. A → B:9999 refused with a reset: the client contacted it, the server does not serve it
  push(A, B, tcp({ sport: 40001, dport: 9999, flags: TCPF.SYN, seq: 100 }));
  push(B, A, tcp({ sport: 9999, dport: 40001, flags: TCPF.RST | TCPF.ACK, seq: 0, ack: 101 }));
  // 3. A:50000 → B:53 DNS answered: B served udp:53, A contacted it
  const q = { name: dnsName('b.example'), type: 1 };
  push(A, B, udp({ sport: 50000, dport: 53 }, dns({ id: 7, flags: 0x0100, questions: [q] })), IPPROTO.UDP);
  push(B, A, udp({ sport: 53, dport: 50000 }, dns({ id: 7, flags: DNS_RESPONSE, questions: [q], answers: [{ name: dnsName('b.example'), type: 1, rdata: ipRdata(B) }] })), IPPROTO.UDP);
  // 4. UDP from a lower client port (A:1000 → B:2000), answered: neither side notes it
  push(A, B, udp({ sport: 1000, dport: 2000 }, Buffer.from('ping')), IPPROTO.UDP);
  push(B, A, udp({ sport: 2000, dport: 1000 }, Buffer.from('pong')), IPPROTO.UDP);
  // 5. A → B:8443 SYN never answered: A contacted it; B sent nothing, serves nothing
  push(A, B, tcp({ sport: 40002, dport: 8443, flags: TCPF.SYN, seq: 100 }));
  // 6. A → a remote server's 443: A contacted it; the remote host has no used ports (local hosts only)
  handshake(A, 40003, REMOTE, 443);
  // 7. B ↔ A:22 first seen mid-stream (no SYN): not noted either way
  push(B, A, tcp({ sport: 50022, dport: 22, flags: TCPF.PSH | TCPF.ACK, seq: 1, ack: 1 }, Buffer.from('x')));
  push(A, B, tcp({ sport: 22, dport: 50022, flags: TCPF.ACK, seq: 1, ack: 2 }));
  s = await startApi({ files: [tmp.file('ports.pcap', pcap(p))] });
});

const data = async (host: string) => {
  const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host } });
  expect(r.body.rc, r.text).toBe(0);
  return r.body.rsp as Record<string, unknown>;
};

describe('host used ports', () => {
  it('a local server lists the ports it answered on: TCP opened by a SYN and not reset, UDP from a higher client port', async () => {
    const b = (await data(B)).used_ports as { local_server_ports: Record<string, string>; remote_contacted_ports: unknown };
    expect(b.local_server_ports).toEqual({ 'tcp:80': 'HTTP', 'udp:53': 'DNS' });
    // B only answered as client in the mid-stream flow, which has no SYN
    expect(b.remote_contacted_ports).toEqual([]);
  });

  it('a local client lists the server ports it contacted, answered or not, TCP first', async () => {
    const a = (await data(A)).used_ports as { local_server_ports: unknown; remote_contacted_ports: Record<string, string> };
    expect(a.local_server_ports).toEqual([]);
    const c = a.remote_contacted_ports;
    expect(Object.keys(c)).toEqual(['tcp:80', 'tcp:9999', 'tcp:8443', 'tcp:443', 'udp:53']);
    expect(c['tcp:80']).toBe('HTTP');
    expect(c['udp:53']).toBe('DNS');
  });

  it('a remote host has none', async () => {
    expect(await data(REMOTE)).not.toHaveProperty('used_ports');
  });
});
