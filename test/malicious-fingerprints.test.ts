// nDPI's Malicious Fingerprint: a TLS client whose JA3 is on the abuse.ch
// list ndpiReader is given (native/src/dpi/data/malicious-fingerprints.tsv,
// from nDPI's example/ja3_fingerprints.csv). The JA3 of each client hello
// is taken from tshark (an independent digest), the list from the data
// file: the risk must be raised exactly for listed digests.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';

const root = join(import.meta.dirname, '..');
const listed = new Set(
  readFileSync(join(root, 'native/src/dpi/data/malicious-fingerprints.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('ja3\t'))
    .map((l) => l.slice(4).trim()),
);
const pcaps = join(root, '..', 'shared', 'pcaps', 'ndpi');

/** tshark's client JA3 per TCP/UDP flow: "a:port|b:port" (sorted) → digest. */
function tsharkJa3(file: string): Map<string, string> {
  const out = execFileSync('tshark', ['-n', '-r', file, '-Y', 'tls.handshake.type == 1', '-T', 'fields', '-e', 'ip.src', '-e', 'ipv6.src', '-e', 'tcp.srcport', '-e', 'ip.dst', '-e', 'ipv6.dst', '-e', 'tcp.dstport', '-e', 'tls.handshake.ja3'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const m = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [s4, s6, sp, d4, d6, dp, ja3] = line.split('\t');
    if (!ja3 || !sp) continue;
    const a = `${s4 || s6}:${sp}`, b = `${d4 || d6}:${dp}`;
    m.set([a, b].sort().join('|'), ja3.split(',')[0]!);
  }
  return m;
}

async function flowsOf(file: string) {
  const e = new Engine({ files: [file], flowIdleSec: 1e10 });
  try {
    e.start();
    await e.waitDone();
    return e.flows({ limit: 10000 }).rows;
  } finally {
    e.close();
  }
}

describe('Malicious Fingerprint (JA3 on the list ndpiReader loads)', () => {
  it('the list is abuse.ch JA3 digests', () => {
    expect(listed.size).toBeGreaterThan(90);
    for (const d of listed) expect(d).toMatch(/^[0-9a-f]{32}$/);
  });

  // Captures holding both listed and unlisted TLS clients (nDPI's truth flags 30 of their flows).
  it('raised exactly for the listed JA3s (emotet, wechat, simple-dnscrypt, KakaoTalk_chat)', async () => {
    let flagged = 0, clean = 0;
    for (const name of ['emotet.pcap', 'wechat.pcap', 'simple-dnscrypt.pcap', 'KakaoTalk_chat.pcap']) {
    const file = join(pcaps, name);
    const ja3 = tsharkJa3(file);
    const flows = await flowsOf(file);
    for (const f of flows) {
      if (f.proto !== 6) continue;
      const key = [`${f.client.ip}:${f.client.port}`, `${f.server.ip}:${f.server.port}`].sort().join('|');
      const digest = ja3.get(key);
      if (!digest) continue;
      expect(f.tls?.ja3 ?? digest, key).toBe(digest);
      const risky = f.risks.includes('Malicious Fingerpint');
      expect(risky, `${key} ${digest}`).toBe(listed.has(digest));
      risky ? flagged++ : clean++;
    }
    }
    expect(flagged).toBeGreaterThan(0);
    expect(clean).toBeGreaterThan(0);
  });
});
