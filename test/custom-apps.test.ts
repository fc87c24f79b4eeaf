// Custom applications (nDPI's protos.txt, ntopng's -p) and custom
// categories, applied natively: the file's forms as nDPI reads them, each
// rule kind classifying flows built here (with a near miss), the operator's
// categories, and a replayed capture reclassified by a host rule and a port
// range, counted against tshark's view of the same traffic.
import { writeFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import type { ExpiredFlow } from '../ts/bindings/engine.js';
import { CustomApps } from '../ts/services/custom-apps/index.js';
import { parseProtosTxt, parseApiRule, renderProtosTxt } from '../ts/services/custom-apps/protos-file.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { DNS_TYPE, dns, dnsName, httpGet, tlsClientHello } from './fixtures/apps.js';
import { alternating, replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, echo, eth, icmp, ipv4, ipv6, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';

const tmp = tempDir('fg-custom-apps-');
afterAll(() => tmp.cleanup());
let n = 0;

const builtinMax = Math.max(...Engine.info().dpi.protocols.filter((p) => !p.custom).map((p) => p.id));

describe('protos.txt as nDPI reads it', () => {
  it('every rule form, names merged case-insensitively, ids given or counted after nDPI\'s own', () => {
    const { protocols, issues } = parseProtosTxt(
      [
        '# comment',
        'tcp:81,tcp:8181@HTTP',
        'udp:5061-5062@SIP',
        'host:"disneyplus.com",host:cdn.example.org@DisneyPlus',
        'ip:213.75.170.11/32:443@CustomProtocol',
        'ip:54.80.47.0/24@customprotocol',
        'ipv6:[3ffe:507:0:1:200:86ff:fe05:80da]@CustomD=1024',
        'ipv6:[247f:855b:5e16:3caf::]/64:100@CustomE=2048',
        'ip:www.ntop.org@ntop',
        '',
      ].join('\r\n'),
    );
    expect(issues).toEqual([]);
    expect(protocols).toEqual([
      { name: 'HTTP', rules: [{ match: 'port', l4: 'tcp', lo: 81, hi: 81 }, { match: 'port', l4: 'tcp', lo: 8181, hi: 8181 }] },
      { name: 'SIP', rules: [{ match: 'port', l4: 'udp', lo: 5061, hi: 5062 }] },
      { name: 'DisneyPlus', rules: [{ match: 'host', value: 'disneyplus.com' }, { match: 'host', value: 'cdn.example.org' }] },
      {
        name: 'CustomProtocol',
        rules: [
          { match: 'ip', v6: false, net: '213.75.170.11/32', port: 443 },
          { match: 'ip', v6: false, net: '54.80.47.0/24', port: 0 },
        ],
      },
      { name: 'CustomD', id: 1024, rules: [{ match: 'ip', v6: true, net: '3ffe:507:0:1:200:86ff:fe05:80da/128', port: 0 }] },
      { name: 'CustomE', id: 2048, rules: [{ match: 'ip', v6: true, net: '247f:855b:5e16:3caf::/64', port: 100 }] },
      { name: 'ntop', rules: [{ match: 'ip', v6: false, net: 'www.ntop.org', port: 0, symbolic: true }] },
    ]);
  });

  it('lines nDPI would discard are reported with their line numbers; the good rules of a line stay', () => {
    const { protocols, issues } = parseProtosTxt(
      ['tcp:99999@Big', 'tcp:10,foo:1@Mixed', 'nbpf:"host 1.2.3.4"@Home', 'ip_risk_mask:192.168.1.0/24=0', 'no at sign', 'ip:1.2.3.4/40@Wide', 'tcp:7@X=abc', 'ip:[::1]@V4only', 'udp:20-10@Back'].join('\n'),
    );
    // (nBPF is reported and kept as written; the risk mask of line 4 is one)
    expect(issues.map((i) => i.line)).toEqual([1, 2, 3, 5, 6, 7, 9]);
    expect(protocols.map((p) => p.name)).toEqual(['Mixed', 'V4only']);
    // ipv6 in brackets after ip: is an IPv6 rule, as nDPI's parser takes it
    expect(protocols[1].rules).toEqual([{ match: 'ip', v6: true, net: '::1/128', port: 0 }]);
  });

  it('risk exceptions: networks (IPv4, IPv6 in brackets), hosts, masks as atoll reads them; kept when the file is written back', () => {
    const text = ['ip_risk_mask:10.10.120.0/24=0', 'ip_risk_mask:10.196.157.228=-1', 'ipv6_risk_mask:[fe80::356b:e047:3695:0]/112=0', 'ipv6_risk_mask:[fe80::1]=5', 'host_risk_mask:".home"=0', 'ip_risk_mask:300.1.1.1=0', 'trusted_issuer_dn:"CN=x, O=y"'].join('\n');
    const r = parseProtosTxt(text);
    expect(r.riskMasks).toEqual([
      { kind: 'ip', value: '10.10.120.0/24', mask: '0' },
      { kind: 'ip', value: '10.196.157.228/32', mask: '18446744073709551615' },
      { kind: 'ip', value: 'fe80::356b:e047:3695:0/112', mask: '0' },
      { kind: 'ip', value: 'fe80::1/128', mask: '5' },
      { kind: 'host', value: 'home', mask: '0' },
    ]);
    expect(r.issues.map((i) => i.line)).toEqual([6, 7]);
    expect(r.kept).toEqual(['trusted_issuer_dn:"CN=x, O=y"']);
    const back = parseProtosTxt(renderProtosTxt([], r));
    expect([back.riskMasks, back.kept]).toEqual([r.riskMasks, r.kept]);
  });

  it('the editor\'s forms (a bare network is an ip: rule) and the file ntopng writes back', () => {
    expect(parseApiRule('10.1.0.0/16')).toEqual({ match: 'ip', v6: false, net: '10.1.0.0/16', port: 0 });
    expect(parseApiRule('host:a.example')).toEqual({ match: 'host', value: 'a.example' });
    expect(typeof parseApiRule('host:a b')).toBe('string');
    const apps = [
      { name: 'Alpha', id: 1024, rules: [{ match: 'port', l4: 'tcp', lo: 7000, hi: 7002 }, { match: 'host', value: 'alpha.example' }] as const },
      { name: 'Beta', id: 1025, rules: [{ match: 'ip', v6: false, net: '192.0.2.1/32', port: 53 }, { match: 'ip', v6: true, net: '2001:db8::/32', port: 0 }] as const },
    ];
    const text = renderProtosTxt(apps.map((a) => ({ ...a, rules: [...a.rules] })));
    expect(text).toBe(
      '# Alpha\ntcp:7000-7002@Alpha=1024\nhost:"alpha.example"@Alpha=1024\n\n# Beta\nip:192.0.2.1:53@Beta=1025\nipv6:[2001:db8::]/32@Beta=1025\n\n',
    );
    const back = parseProtosTxt(text);
    expect(back.issues).toEqual([]);
    expect(back.protocols.map((p) => [p.name, p.id, p.rules.length])).toEqual([['Alpha', 1024, 2], ['Beta', 1025, 2]]);
  });
});

// ---- classification ----------------------------------------------------------------------------

const dir = tmp.dir;
let store: ConfigStore;
let apps: CustomApps;
const file = `${dir}/protos.txt`;
beforeAll(async () => {
  store = new ConfigStore(`${dir}/data`);
});
afterAll(async () => {
  Engine.setUserRules({});
  await store.close();
});

async function useRules(text: string): Promise<CustomApps> {
  writeFileSync(file, text);
  apps = await CustomApps.open(store, { file, log: () => {}, resolve: async (name) => (name === 'svc.internal' ? ['192.0.2.200'] : []) });
  return apps;
}

const JUNK = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 53 + 7) & 0xff));

interface Seen {
  name: string;
  category: number;
}
const seen = (f: { l7_master: number; l7_app: number; l7_category: number }, conf: string): Seen => ({ name: `${l7Name(f.l7_master, f.l7_app)} (${conf})`, category: f.l7_category });

/** A UDP exchange src:sport ⇄ dst:dport, flushed at the end: its name and category. */
function udpFlow(src: string, dst: string, sport: number, dport: number, payload: Buffer = JUNK): Promise<Seen> {
  const six = src.includes(':');
  const frames = [0, 1].map((i) => {
    const c = i === 0;
    const l4 = udp({ sport: c ? sport : dport, dport: c ? dport : sport }, payload);
    const [s, d] = c ? [src, dst] : [dst, src];
    return six ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.UDP }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, l4));
  });
  return replayFrames(tmp.file(`u${n++}.pcap`), frames, (e) => {
    const [f] = e.drainExpired(4);
    return seen(f, f.confidence);
  }, { flushAtEnd: true });
}

/** A TCP session src → dst:dport with the payloads (alternating), flushed at the end. */
function tcpFlow(src: string, dst: string, dport: number, payloads: Buffer[]): Promise<Seen> {
  return replayFrames(tmp.file(`t${n++}.pcap`), tcpSession(src, dst, 40000 + (n % 1000), dport, alternating(payloads)), (e) => {
    const [f] = e.drainExpired(4);
    return seen(f, f.confidence);
  }, { flushAtEnd: true });
}

const hello = (sni: string) => tlsClientHello(sni);
const A = '10.20.0.1', B = '10.20.0.2';

describe('rules classify flows natively', () => {
  it('a custom protocol\'s port and port range: the flow is it at once, either end\'s port (server first)', async () => {
    await useRules('udp:5555@Acme\ntcp:6000-6002@Ranged\n');
    const acme = `Acme (Match by custom rule)`;
    expect((await udpFlow(A, B, 40001, 5555)).name).toBe(acme);
    expect((await udpFlow(A, B, 5555, 40001)).name).toBe(acme);
    expect((await udpFlow(A, B, 40001, 5556)).name).not.toContain('Acme');
    expect((await tcpFlow(A, B, 6000, [JUNK])).name).toBe('Ranged (Match by custom rule)');
    expect((await tcpFlow(A, B, 6002, [JUNK])).name).toBe('Ranged (Match by custom rule)');
    expect((await tcpFlow(A, B, 6003, [JUNK])).name).not.toContain('Ranged');
    // a TCP rule says nothing of UDP
    expect((await udpFlow(A, B, 40001, 6001)).name).not.toContain('Ranged');
    expect(apps.applications().map((a) => [a.name, a.id])).toEqual([['Acme', builtinMax + 1], ['Ranged', builtinMax + 2]]);
  });

  it('a host rule names TLS and HTTP flows to the name and its subdomains, not a name merely ending alike', async () => {
    await useRules('host:"corp.example"@Corp\n');
    expect((await tcpFlow(A, B, 443, [hello('api.corp.example')])).name).toBe('TLS.Corp (DPI)');
    expect((await tcpFlow(A, B, 443, [hello('corp.example')])).name).toBe('TLS.Corp (DPI)');
    expect((await tcpFlow(A, B, 443, [hello('xcorp.example')])).name).toBe('TLS (DPI)');
    expect((await tcpFlow(A, B, 80, [httpGet('www.corp.example')])).name).toBe('HTTP.Corp (DPI)');
    // the operator's name wins over nDPI's own list
    await useRules('host:"youtube.com"@Tube\n');
    expect((await tcpFlow(A, B, 443, [hello('www.youtube.com')])).name).toBe('TLS.Tube (DPI)');
  });

  it('address rules: a network, an address with its port (the master from the ports), IPv6, a symbolic name resolved', async () => {
    await useRules('ip:203.0.113.0/24@DocNet\nip:198.51.100.7:443@Edge\nipv6:[2001:db8:5::]/48@Six\nip:svc.internal@Svc\n');
    expect((await udpFlow(A, '203.0.113.99', 40001, 48123)).name).toBe('DocNet (Match by custom rule)');
    // the client's address counts too, after the server's
    expect((await udpFlow('203.0.113.5', A, 40001, 48123)).name).toBe('DocNet (Match by custom rule)');
    expect((await udpFlow(A, '203.0.114.1', 40001, 48123)).name).not.toContain('DocNet');
    expect((await tcpFlow(A, '198.51.100.7', 443, [hello('www.example.net')])).name).toBe('TLS.Edge (Match by custom rule)');
    expect((await tcpFlow(A, '198.51.100.7', 444, [JUNK])).name).not.toContain('Edge');
    expect((await udpFlow('2001:db8:1::1', '2001:db8:5:ffff::9', 40001, 48123)).name).toBe('Six (Match by custom rule)');
    expect((await udpFlow('2001:db8:1::1', '2001:db8:6::9', 40001, 48123)).name).not.toContain('Six');
    expect((await udpFlow(A, '192.0.2.200', 40001, 48123)).name).toBe('Svc (Match by custom rule)');
  });

  it('an address rule names an ICMP flow at its start; the first echo\'s high-entropy data still raises Susp Entropy', async () => {
    // The flow is named (and done with) before its first packet's ICMP
    // checks: the classifier takes its state back for the entropy risk.
    await useRules('ip:203.0.113.0/24@DocNet\n');
    const data = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 151 + 89) & 0xff));
    const run = (dst: string) =>
      replayFrames(tmp.file(`i${n++}.pcap`), [eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: A, dst, proto: IPPROTO.ICMP }, icmp(8, 0, echo(7, 1, data))))], (e) => {
        const [f] = e.drainExpired(4);
        return { ...seen(f, f.confidence), risks: f.risks };
      }, { flushAtEnd: true });
    const ruled = await run('203.0.113.99'), plain = await run('198.18.0.9');
    expect(plain.name).toBe('ICMP (DPI)');
    expect(plain.risks).toContain('Susp Entropy');
    expect(ruled.name).toMatch(/^DocNet /);
    expect(ruled.risks).toContain('Susp Entropy');
  });

  it('a port rule naming one of nDPI\'s protocols is its port: the give-up guesses it there, DPI still decides', async () => {
    await useRules('');
    expect((await tcpFlow(A, B, 8181, [JUNK])).name).toBe('Unknown (Unknown)');
    await useRules('tcp:8181@HTTP\n');
    expect((await tcpFlow(A, B, 8181, [JUNK])).name).toBe('HTTP (Match by port)');
    expect((await tcpFlow(A, B, 8181, [hello('www.example.net')])).name).toBe('TLS (DPI)');
    expect(apps.applications()).toEqual([{ name: 'HTTP', id: 7, rules: [{ match: 'port', l4: 'tcp', lo: 8181, hi: 8181 }] }]);
  });

  it('custom categories: hosts, subdomains and networks give their category; a protocol\'s category can be changed', async () => {
    await useRules('');
    const tls = Engine.info().dpi.protocols.find((p) => p.name === 'TLS')!;
    const cats = Engine.info().dpi.categories;
    const other = cats.find((c) => c.id !== tls.category && c.id !== 0)!;
    const third = cats.find((c) => c.id !== tls.category && c.id !== other.id && c.id !== 0)!;
    expect((await tcpFlow(A, B, 443, [hello('www.cat.example')])).category).toBe(tls.category);
    await apps.editCategory(other.id, 'cat.example, 10.99.0.0/16', 'Mine');
    expect((await tcpFlow(A, B, 443, [hello('www.cat.example')])).category).toBe(other.id);
    expect((await tcpFlow(A, B, 443, [hello('cat.example.org')])).category).toBe(tls.category);
    // by address, even for a flow nothing names (nDPI's guessed header category)
    expect(await udpFlow('10.99.3.4', B, 40001, 48123)).toEqual({ name: 'Unknown (Unknown)', category: other.id });
    expect((await udpFlow('10.98.3.4', B, 40001, 48123)).category).toBe(0);
    // the protocol's own category, as edit/application's category sets it
    await apps.editApplication({ protoId: tls.id, category: third.id });
    expect((await tcpFlow(A, B, 443, [hello('www.plain.example')])).category).toBe(third.id);
    expect(Engine.info().dpi.protocols.find((p) => p.id === tls.id)!.category).toBe(third.id);
    // a custom category host still wins over it
    expect((await tcpFlow(A, B, 443, [hello('www.cat.example')])).category).toBe(other.id);
    await apps.editApplication({ protoId: tls.id, category: tls.category });
    await apps.editCategory(other.id, '', undefined);
    expect((await tcpFlow(A, B, 443, [hello('www.cat.example')])).category).toBe(tls.category);
  });

  it('risk exceptions clear a flow\'s risks by its addresses or its name, ANDed with the mask', async () => {
    const query = (name: string) => dns({ flags: 0x0100, questions: [{ name: dnsName(name), type: DNS_TYPE.A }] });
    // one query, no answer: nDPI's unidirectional-traffic risk (bit 46)
    const risks = (src: string, name: string) =>
      replayFrames(tmp.file(`r${n++}.pcap`), [eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst: '10.30.0.2', proto: IPPROTO.UDP }, udp({ sport: 40001, dport: 53 }, query(name))))], (e) => e.drainExpired(4)[0].risks, { flushAtEnd: true });
    await useRules('');
    expect(await risks(A, 'nas.example')).toContain('Unidirectional Traffic');
    await useRules(`ip_risk_mask:10.20.0.0/16=0\nhost_risk_mask:".home"=${(~(1n << 46n) & ((1n << 64n) - 1n)).toString()}\n`);
    expect(await risks(A, 'nas.example')).toEqual([]);
    expect(await risks('10.21.0.1', 'nas.example')).toContain('Unidirectional Traffic');
    expect(await risks('10.21.0.1', 'nas.home')).not.toContain('Unidirectional Traffic');
    expect(await risks('10.21.0.1', 'nas.homely')).toContain('Unidirectional Traffic');
  });

  it('edits apply to the next flows: a new application, then deleted', async () => {
    await useRules('udp:5555@Acme\n');
    await apps.editApplication({ alias: 'Fresh', rules: 'udp:5600-5601,host:fresh.example' });
    expect((await udpFlow(A, B, 40001, 5601)).name).toBe('Fresh (Match by custom rule)');
    expect(Engine.info().dpi.protocols.find((p) => p.name === 'Fresh')?.id).toBe(1024);
    await apps.deleteApplication('fresh');
    expect((await udpFlow(A, B, 40001, 5601)).name).not.toContain('Fresh');
    expect(Engine.info().dpi.protocols.some((p) => p.name === 'Fresh')).toBe(false);
    expect((await udpFlow(A, B, 40001, 5555)).name).toBe('Acme (Match by custom rule)');
  });
});

// ---- a replayed capture ------------------------------------------------------------------------

describe('a protocols file reclassifies a replayed capture', () => {
  const CAPTURE = '../shared/pcaps/ndpi/1kxun.pcap';

  it('flows to a named host and on a port range, as many as tshark counts for the same traffic', async () => {
    // tshark's view: TCP connections (streams) by their ports, and the HTTP hosts each asked for
    const rows = await tsharkFields(CAPTURE, ['tcp.stream', 'tcp.srcport', 'tcp.dstport', 'http.host'], 'tcp');
    const streams = new Map<string, { ports: number[]; hosts: Set<string> }>();
    for (const [s, sp, dp, host] of rows) {
      const e = streams.get(s) ?? { ports: [+sp, +dp], hosts: new Set<string>() };
      if (host) e.hosts.add(host.toLowerCase());
      streams.set(s, e);
    }
    // the range holds the servers' ports 8080 and 9099 (nDPI's port tree answers for
    // the server's port first: a rule on a client port gives way to it)
    const inRange = (e: { ports: number[] }) => e.ports.some((p) => p >= 8000 && p <= 9100);
    const wantRange = [...streams.values()].filter(inRange).length;
    const wantHost = [...streams.values()].filter((e) => !inRange(e) && [...e.hosts].some((h) => h === 'pic.1kxun.com' || h.endsWith('.pic.1kxun.com'))).length;
    expect(wantRange).toBeGreaterThan(1);
    expect(wantHost).toBeGreaterThan(1);

    await useRules('host:"pic.1kxun.com"@PicHost\ntcp:8000-9100@PortRange\n');
    const count = async () => {
      const e = new Engine({ files: [CAPTURE], flowIdleSec: 1e10, flushAtEnd: true });
      try {
        e.start();
        await e.waitDone();
        const all: ExpiredFlow[] = [];
        for (let b = e.drainExpired(4096); b.length; b = e.drainExpired(4096)) all.push(...b);
        const tcpFlows = all.filter((f) => f.proto === 6);
        return {
          range: tcpFlows.filter((f) => f.l7_app === id('PortRange')).length,
          host: tcpFlows.filter((f) => f.l7_app === id('PicHost')).length,
        };
      } finally {
        e.close();
      }
    };
    const id = (name: string) => Engine.info().dpi.protocols.find((p) => p.name === name)?.id ?? -1;
    expect(await count()).toEqual({ range: wantRange, host: wantHost });
    // edited through the service (as the API does): the next replay follows
    // the new file. 8080 is a default port of nDPI's (HTTP_Proxy): a custom
    // protocol's rule takes it over.
    await apps.editApplication({ alias: 'PortRange', rules: 'tcp:8080' });
    const narrow = [...streams.values()].filter((e) => e.ports.includes(8080)).length;
    const hostNow = [...streams.values()].filter((e) => !e.ports.includes(8080) && [...e.hosts].some((h) => h === 'pic.1kxun.com' || h.endsWith('.pic.1kxun.com'))).length;
    expect(narrow).toBeGreaterThan(0);
    expect(await count()).toEqual({ range: narrow, host: hostNow });
    // client ports: these streams' server port is 80, HTTP's, which nDPI finds first
    const clientSide = [...streams.values()].filter((e) => e.ports.some((p) => p >= 49600 && p <= 49603));
    expect(clientSide.length).toBeGreaterThan(1);
    expect(clientSide.every((e) => e.ports.includes(80))).toBe(true);
    await apps.editApplication({ alias: 'PortRange', rules: 'tcp:49600-49603' });
    const hostAll = [...streams.values()].filter((e) => [...e.hosts].some((h) => h === 'pic.1kxun.com' || h.endsWith('.pic.1kxun.com'))).length;
    expect(await count()).toEqual({ range: 0, host: hostAll });
  });
});
