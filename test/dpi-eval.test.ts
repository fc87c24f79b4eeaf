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
    expect(perFlow).toBeGreaterThanOrEqual(0.939);
    expect(r.perCaptureMean).toBeGreaterThanOrEqual(0.784);
    expect(r.agreeMaster / r.flows).toBeGreaterThanOrEqual(0.9689);
  });

  it('names classifications as nDPI does', () => {
    expect(l7Name(91, 124)).toBe('TLS.YouTube');
    expect(l7Name(0, 5)).toBe('DNS');
    expect(l7Name(5, 5)).toBe('DNS');
    expect(l7Name(0, 0)).toBe('Unknown');
    const reg = Engine.info().dpi;
    expect(reg.protocols).toHaveLength(432);
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
