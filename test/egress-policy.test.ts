// Egress policy model: the Cento-style INI rules file (good and bad files,
// errors naming file:line), the engine's table (toNative, checked by hand with
// ids taken from the engine's registry) and the rule in force for a subnet
// query (longest prefix, v4 and v6).
import { describe, expect, it } from 'vitest';

import { parseAction, parseProtocol, parseSubnet, PolicyError, subnetInForce, toNative, type EgressPolicies, type TargetPolicy } from '../ts/egress/policy.js';
import { parseRules, parseRulesFile } from '../ts/egress/rules-file.js';
import { canon, registryId } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';

const TLS = registryId('TLS');
const DNS = registryId('DNS');
const YOUTUBE = registryId('YouTube');
const HTTP = registryId('HTTP');

describe('registry ids used by the tests', () => {
  it('are the nDPI ids of TLS, DNS, YouTube and HTTP', () => {
    expect({ TLS, DNS, YOUTUBE, HTTP }).toEqual({ TLS: 91, DNS: 5, YOUTUBE: 124, HTTP: 7 });
  });
});

describe('values', () => {
  it('actions: the five of the spec, anything else is a PolicyError naming the value', () => {
    for (const a of ['forward', 'discard', 'shunt', 'slice-l4', 'slice-l3']) expect(parseAction(a)).toBe(a);
    for (const bad of ['drop', 'slice', 'slice-l2', 'accept', '', undefined]) {
      expect(() => parseAction(bad)).toThrow(PolicyError);
    }
    expect(() => parseAction('drop')).toThrow(/drop/);
  });

  it('subnets are normalised to the network address (v4 and v6)', () => {
    expect(parseSubnet('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(parseSubnet('192.168.1.77/24')).toBe('192.168.1.0/24');
    expect(parseSubnet('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(parseSubnet('2001:db8::5/32')).toBe('2001:db8::/32');
    expect(parseSubnet('2001:DB8:1:2:3:4:5:6/48')).toBe('2001:db8:1::/48');
    expect(parseSubnet('fd00::1/8')).toBe('fd00::/8');
  });

  it('bad subnets are PolicyErrors naming the value', () => {
    for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/8/1', '300.0.0.0/8', 'example.com/8', '10.0.0.0/', '']) {
      expect(() => parseSubnet(bad), bad).toThrow(PolicyError);
    }
    expect(() => parseSubnet('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
  });

  it('a dotted quad with a leading-zero octet is rejected, not read as octal', () => {
    // 010.0.0.0/8 written by an operator means 10.0.0.0/8 or is a typo; it must never become 8.0.0.0/8
    expect(() => parseSubnet('010.0.0.0/8')).toThrow(PolicyError);
  });

  it('protocol names: any case, the registry spelling back; unknown names are PolicyErrors', () => {
    expect(parseProtocol('tls')).toBe('TLS');
    expect(parseProtocol('Tls')).toBe('TLS');
    expect(parseProtocol('youtube')).toBe('YouTube');
    expect(parseProtocol('DNS')).toBe('DNS');
    for (const bad of ['NoSuchProto', 'Unknown', 'TLS.NoSuchProto', '']) expect(() => parseProtocol(bad), bad).toThrow(PolicyError);
    expect(() => parseProtocol('NoSuchProto')).toThrow(/NoSuchProto/);
  });

  it('a master.app name with an unknown master is rejected', () => {
    expect(() => parseProtocol('NoSuchMaster.YouTube')).toThrow(PolicyError);
  });
});

// ---- rules file ---------------------------------------------------------------------------------

const GOOD = `# flowgate egress rules (Cento style)
; a comment with a semicolon

[shunt]
default = 12
tcp = 20        ; packets per TCP flow
udp = 5         # and per UDP flow
tls = 3

[egress.aggregated]
default = forward
[egress.aggregated.subnet]
10.1.2.3/8 = discard
2001:db8::5/32 = shunt
192.168.1.0/24 = slice-l4
[egress.aggregated.protocol]
tls = discard
DNS = forward
youtube = slice-l3

   # indented comment
[egress.aggregated.1]
default = discard
[egress.aggregated.1.subnet]
172.16.0.0/12 = forward
[egress.aggregated.1.protocol]
HTTP = shunt

[egress.balanced]
default = shunt
[egress.balanced.subnet]
fd00::1/8 = forward
[egress.balanced.protocol]
Http = discard

[bridge]
default = slice-l4
[bridge.subnet]
0.0.0.0/0 = forward
::/0 = discard
[bridge.protocol]
TLS = discard
`;

const GOOD_PARSED: EgressPolicies = {
  shunt: { default: 12, l4: { tcp: 20, udp: 5 }, protocols: { TLS: 3 } },
  targets: {
    'aggregated:0': {
      default: 'forward',
      subnets: { '10.0.0.0/8': 'discard', '2001:db8::/32': 'shunt', '192.168.1.0/24': 'slice-l4' },
      protocols: { TLS: 'discard', DNS: 'forward', YouTube: 'slice-l3' },
    },
    'aggregated:1': { default: 'discard', subnets: { '172.16.0.0/12': 'forward' }, protocols: { HTTP: 'shunt' } },
    balanced: { default: 'shunt', subnets: { 'fd00::/8': 'forward' }, protocols: { HTTP: 'discard' } },
    bridge: { default: 'slice-l4', subnets: { '0.0.0.0/0': 'forward', '::/0': 'discard' }, protocols: { TLS: 'discard' } },
  },
};

describe('parseRules: good files', () => {
  it('every section kind, queue indexes, normalised v4/v6 subnets, comments, protocol name case', () => {
    expect(parseRules(GOOD, 'good.ini')).toEqual(GOOD_PARSED);
  });

  it('CRLF line endings read the same', () => {
    expect(parseRules(GOOD.replace(/\n/g, '\r\n'), 'good.ini')).toEqual(GOOD_PARSED);
  });

  it('an empty file or a file of comments gives the defaults (shunt 10, no targets)', () => {
    const empty = { shunt: { default: 10, l4: {}, protocols: {} }, targets: {} };
    expect(parseRules('', 'e.ini')).toEqual(empty);
    expect(parseRules('# nothing\n; here\n\n', 'e.ini')).toEqual(empty);
  });

  it('a rule section alone creates its target with default forward', () => {
    expect(parseRules('[egress.aggregated.1.subnet]\n10.0.0.0/8 = discard\n', 'x.ini').targets).toEqual({
      'aggregated:1': { default: 'forward', subnets: { '10.0.0.0/8': 'discard' }, protocols: {} },
    });
  });

  it('parseRulesFile reads a file from disk', () => {
    const tmp = tempDir('flowgate-rules-');
    try {
      const f = tmp.file('rules.ini', GOOD);
      expect(parseRulesFile(f)).toEqual(GOOD_PARSED);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('parseRules: bad files name file:line', () => {
  // [text, line of the error, what the message must mention]
  const cases: [string, string, number, RegExp][] = [
    ['unknown section', '# c\n[egress.aggregated]\ndefault = forward\n[egress.nowhere]\n', 4, /section/i],
    ['bad action', '[bridge]\n\n; c\ndefault = drop\n', 4, /drop/],
    ['bad action in a subnet section', '[egress.balanced.subnet]\n10.0.0.0/8 = accept\n', 2, /accept/],
    ['bad CIDR', '[egress.aggregated.subnet]\n10.0.0.0/8 = discard\n10.0.0.0/33 = discard\n', 3, /10\.0\.0\.0\/33/],
    ['bad IPv6 CIDR', '[bridge.subnet]\n2001:db8::/129 = discard\n', 2, /2001:db8::\/129/],
    ['unknown protocol', '[bridge.protocol]\nTLS = discard\nNoSuchProto = discard\n', 3, /NoSuchProto/],
    ['unknown protocol in [shunt]', '[shunt]\ndefault = 10\nNoSuchProto = 3\n', 3, /NoSuchProto/],
    ['bad shunt count', '[shunt]\ntcp = many\n', 2, /many/],
    ['value outside a section', '# first\ndefault = forward\n[bridge]\n', 2, /section/i],
    ['balanced has no queue index', '[egress.balanced]\ndefault = forward\n[egress.balanced.1]\ndefault = forward\n', 3, /egress\.balanced\.1/],
    ['bridge has no queue index', '[bridge.0.subnet]\n', 1, /bridge\.0\.subnet/],
    ['non-numeric queue index', '[egress.aggregated.x]\n', 1, /egress\.aggregated\.x/],
    ['line without =', '[bridge]\ndefault forward\n', 2, /=/],
    ['only default in a target section', '[egress.aggregated]\n10.0.0.0/8 = discard\n', 2, /10\.0\.0\.0\/8/],
  ];
  for (const [what, text, line, mention] of cases) {
    it(what, () => {
      let err: unknown;
      try {
        parseRules(text, 'bad.ini');
      } catch (e) {
        err = e;
      }
      expect(err, 'no error thrown').toBeInstanceOf(PolicyError);
      const msg = (err as Error).message;
      expect(msg).toMatch(new RegExp(`^bad\\.ini:${line}\\b`));
      expect(msg).toMatch(mention);
    });
  }

  it('CRLF files count lines the same', () => {
    expect(() => parseRules('[bridge]\r\n\r\ndefault = drop\r\n', 'crlf.ini')).toThrow(/^crlf\.ini:3\b.*drop/);
  });

  it('parseRulesFile names the path', () => {
    const tmp = tempDir('flowgate-rules-');
    try {
      const f = tmp.file('broken.ini', '[bridge]\ndefault = forward\n[bridge.protocol]\nNoSuchProto = discard\n');
      expect(() => parseRulesFile(f)).toThrow(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4\\b`));
    } finally {
      tmp.cleanup();
    }
  });
});

// ---- toNative ------------------------------------------------------------------------------------

describe('toNative', () => {
  it('names become nDPI ids, L4 names IP protocol numbers, queue only for aggregated', () => {
    const native = toNative(parseRules(GOOD, 'good.ini'));
    expect(canon(native)).toEqual({
      shunt: { default: 12, l4: { 6: 20, 17: 5 }, apps: { [TLS]: 3 } },
      targets: [
        {
          target: 'aggregated',
          queue: 0,
          default: 'forward',
          subnets: [
            { cidr: '10.0.0.0/8', action: 'discard' },
            { cidr: '192.168.1.0/24', action: 'slice-l4' },
            { cidr: '2001:db8::/32', action: 'shunt' },
          ],
          protocols: [
            { id: DNS, action: 'forward' },
            { id: TLS, action: 'discard' },
            { id: YOUTUBE, action: 'slice-l3' },
          ],
        },
        {
          target: 'aggregated',
          queue: 1,
          default: 'discard',
          subnets: [{ cidr: '172.16.0.0/12', action: 'forward' }],
          protocols: [{ id: HTTP, action: 'shunt' }],
        },
        { target: 'balanced', default: 'shunt', subnets: [{ cidr: 'fd00::/8', action: 'forward' }], protocols: [{ id: HTTP, action: 'discard' }] },
        {
          target: 'bridge',
          default: 'slice-l4',
          subnets: [
            { cidr: '0.0.0.0/0', action: 'forward' },
            { cidr: '::/0', action: 'discard' },
          ],
          protocols: [{ id: TLS, action: 'discard' }],
        },
      ],
    });
    // no queue key at all on balanced/bridge
    for (const t of native.targets) if (t.target !== 'aggregated') expect('queue' in t).toBe(false);
  });

  it('the shunt table of an empty policy set', () => {
    expect(toNative({ shunt: { default: 10, l4: {}, protocols: {} }, targets: {} })).toEqual({
      shunt: { default: 10, l4: {}, apps: {} },
      targets: [],
    });
  });

  it('shunt per application protocol', () => {
    const n = toNative(parseRules('[shunt]\nyoutube = 2\nDNS = 1\n', 's.ini'));
    expect(n.shunt.apps).toEqual({ [YOUTUBE]: 2, [DNS]: 1 });
  });
});

// ---- subnetInForce -------------------------------------------------------------------------------

describe('subnetInForce: longest prefix', () => {
  const rules: Record<string, TargetPolicy['subnets'][string]> = {
    '10.0.0.0/8': 'discard',
    '10.1.0.0/16': 'shunt',
    '10.1.2.0/24': 'slice-l4',
    '2001:db8::/32': 'discard',
    '2001:db8:1::/48': 'forward',
  };
  const forward: TargetPolicy = { default: 'slice-l3', subnets: rules, protocols: {} };
  // the same rules inserted in the reverse order: the answer must not depend on it
  const reverse: TargetPolicy = { default: 'slice-l3', subnets: Object.fromEntries(Object.entries(rules).reverse()), protocols: {} };

  const cases: [string, string | undefined, string][] = [
    ['10.1.2.0/24', '10.1.2.0/24', 'slice-l4'], // exact
    ['10.1.2.128/25', '10.1.2.0/24', 'slice-l4'], // narrower than the /24
    ['10.1.2.3/32', '10.1.2.0/24', 'slice-l4'],
    ['10.1.3.0/24', '10.1.0.0/16', 'shunt'],
    ['10.2.0.0/16', '10.0.0.0/8', 'discard'], // a /16 under the /8
    ['10.0.0.0/8', '10.0.0.0/8', 'discard'],
    ['10.0.0.0/7', undefined, 'slice-l3'], // wider than every rule: the default
    ['11.0.0.0/8', undefined, 'slice-l3'],
    ['0.0.0.0/0', undefined, 'slice-l3'],
    ['2001:db8:1:2::/64', '2001:db8:1::/48', 'forward'],
    ['2001:db8:1::/48', '2001:db8:1::/48', 'forward'],
    ['2001:db8:2::/48', '2001:db8::/32', 'discard'],
    ['2001:db8::/31', undefined, 'slice-l3'], // wider than the /32
    ['2001:db9::/32', undefined, 'slice-l3'],
  ];
  for (const [q, match, action] of cases) {
    it(`${q} → ${match ?? 'default'}`, () => {
      const want = match ? { scope: 'subnet', match, action } : { scope: 'default', action };
      expect(subnetInForce(forward, q)).toEqual(want);
      expect(subnetInForce(reverse, q)).toEqual(want);
    });
  }

  it('only a narrower rule inside the query: the default is in force', () => {
    const t: TargetPolicy = { default: 'forward', subnets: { '10.1.0.0/16': 'discard', '2001:db8:1::/48': 'discard' }, protocols: {} };
    expect(subnetInForce(t, '10.0.0.0/8')).toEqual({ scope: 'default', action: 'forward' });
    expect(subnetInForce(t, '2001:db8::/32')).toEqual({ scope: 'default', action: 'forward' });
  });

  it('families never cover each other', () => {
    const t: TargetPolicy = { default: 'forward', subnets: { '::/0': 'discard', '0.0.0.0/0': 'shunt' }, protocols: {} };
    expect(subnetInForce(t, '10.0.0.0/8')).toEqual({ scope: 'subnet', match: '0.0.0.0/0', action: 'shunt' });
    expect(subnetInForce(t, '2001:db8::/32')).toEqual({ scope: 'subnet', match: '::/0', action: 'discard' });
    const v6only: TargetPolicy = { default: 'forward', subnets: { '::/0': 'discard' }, protocols: {} };
    expect(subnetInForce(v6only, '192.168.0.0/16')).toEqual({ scope: 'default', action: 'forward' });
    const v4only: TargetPolicy = { default: 'forward', subnets: { '0.0.0.0/0': 'discard' }, protocols: {} };
    expect(subnetInForce(v4only, 'fd00::/8')).toEqual({ scope: 'default', action: 'forward' });
  });
});
