// The classification evaluation (npm run eval:dpi) as a regression floor:
// agreement with nDPI's ground truth may rise, never fall below these.
import { describe, expect, it } from 'vitest';

import { evaluate } from '../bench/eval-dpi.js';
import { Engine, l7Name } from '../ts/bindings/engine.js';

describe('classification against nDPI ground truth', () => {
  it('keeps per-flow and per-capture agreement on master.app above the floor', async () => {
    const r = await evaluate();
    const perFlow = r.agree / r.flows;
    console.log(`dpi agreement: ${(perFlow * 100).toFixed(2)} % flows, ${(r.perCaptureMean * 100).toFixed(2)} % captures, master ${((r.agreeMaster / r.flows) * 100).toFixed(2)} %`);
    expect(r.captures).toBe(347);
    expect(r.flows).toBe(6787);
    expect(perFlow).toBeGreaterThanOrEqual(0.998);
    expect(r.perCaptureMean).toBeGreaterThanOrEqual(0.99);
    expect(r.agreeMaster / r.flows).toBeGreaterThanOrEqual(0.998);
  });

  it('keeps flow-risk recall and precision above the floor, per risk implemented', async () => {
    const r = await evaluate();
    // [risk, recall floor, precision floor] (npm run eval:dpi prints the figures).
    const floors: [string, number, number][] = [
      ['Unidirectional Traffic', 0.99, 0.995],
      ['Known Proto on Non Std Port', 0.995, 0.995],
      ['HTTP/TLS/QUIC Numeric Hostname/SNI', 0.99, 0.98],
      ['Weak TLS Cipher', 0.95, 0.99],
      ['TLS (probably) Not Carrying HTTPS', 0.97, 0.99],
      ['Obsolete TLS (v1.1 or older)', 0.99, 0.96],
      ['HTTP Susp User-Agent', 0.9, 0.7],
      ['Unsafe Protocol', 0.99, 0.99],
      ['Missing SNI TLS Extn', 0.84, 0.87],
      ['Binary File/Data Transfer (Attempt)', 0.9, 0.99],
      ['Error Code', 0.88, 0.99],
      ['ALPN/SNI Mismatch', 0.9, 0.64],
      ['TLS Cert Expired', 0.85, 0.99],
      ['Self-signed Cert', 0.99, 0.6],
      ['TLS Cert About To Expire', 0.8, 0.99],
      ['TLS Cert Mismatch', 0.8, 0.8],
      ['SSH Obsolete Ser Vers/Cipher', 0.99, 0.99],
      ['SSH Obsolete Cli Vers/Cipher', 0.99, 0.99],
      ['Susp DGA Domain name', 0.99, 0.99],
      ['Risky Domain Name', 0.6, 0.99],
      ['Clear-Text Credentials', 0.99, 0.99],
      ['Malicious Fingerpint', 0.99, 0.99],
      ['Binary App Transfer', 0.99, 0.99],
      ['Possible Exploit Attempt', 0.99, 0.99],
      ['RCE Injection', 0.99, 0.99],
      ['HTTP Susp URL', 0.99, 0.99],
      // nDPI's risks from its connection tracking, give-up, payload checks and lists (test/risks-ndpi.test.ts)
      ['Susp Entropy', 0.97, 0.96],
      ['TCP Connection Issues', 0.99, 0.99],
      ['Minor Issues', 0.99, 0.99],
      ['Susp DNS Traffic', 0.99, 0.99],
      ['Client Contacted A Malware Host', 0.99, 0.99],
      ['Fully Encrypted Flow', 0.99, 0.99],
      ['TLS Susp ESNI Usage', 0.99, 0.99],
      ['TLS Susp Extn', 0.99, 0.99],
      ['Anonymous Subscriber', 0.99, 0.99],
    ];
    for (const [name, recall, precision] of floors) {
      const c = r.risks.get(name) ?? { tp: 0, fp: 0, fn: 0 };
      expect(c.tp / (c.tp + c.fn), `${name} recall`).toBeGreaterThanOrEqual(recall);
      expect(c.tp / (c.tp + c.fp), `${name} precision`).toBeGreaterThanOrEqual(precision);
    }
    expect(r.riskExact / r.matched).toBeGreaterThanOrEqual(0.93);
  });

  it('names classifications as nDPI does', () => {
    expect(l7Name(91, 124)).toBe('TLS.YouTube');
    expect(l7Name(0, 5)).toBe('DNS');
    expect(l7Name(5, 5)).toBe('DNS');
    expect(l7Name(0, 0)).toBe('Unknown');
    const reg = Engine.info().dpi;
    // nDPI's own (the evaluation adds the custom protocols of nDPI's example protos.txt)
    expect(reg.protocols.filter((p) => !p.custom)).toHaveLength(432);
    expect(reg.protocols.find((p) => p.id === 91)).toMatchObject({ name: 'TLS', category: 5, tcp_ports: '443' });
    expect(reg.categories.find((c) => c.id === 34)?.name).toBe('AdultContent');
  });
});

describe('hostname patterns (nDPI rules, see native/src/dpi/data/hosts-README.md)', () => {
  // Replays a TLS ClientHello per name and reads the classification back.
  it('match at label boundaries, most labels first', async () => {
    const { hello } = await import('./fixtures/dpi-hello.js');
    const cases: [string, string][] = [
      ['www.youtube.com', 'TLS.YouTube'],
      ['r3---sn-4g5e6nsz.googlevideo.com', 'TLS.YouTube'],
      ['mail.google.com', 'TLS.GMail'],
      ['www.google.com', 'TLS.Google'],
      ['notyoutube.com', 'TLS'],
      ['example.org', 'TLS'],
    ];
    for (const [sni, want] of cases) expect([sni, await hello(sni)]).toEqual([sni, want]);
  });
});
