// nDPI's Unidirectional Traffic (ndpi_main.c, per packet; cleared by the
// reader when the server answers): raised for a flow whose server never
// sent, judged only on packets not sent to a group as nDPI approximates it
// (ndpi_is_multi_or_broadcast: IPv4 224/3 or a last byte of 0 or 255, IPv6
// ff00::/8), and taken back for protocols one-way by design
// (ndpi_reconcile_protocols: RTP, NetFlow, sFlow, collectd; Syslog, mDNS and
// Sonos over UDP).
import { afterAll, describe, expect, it } from 'vitest';

import { capturesIn, flowFrames } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-risks-unidirectional-');
afterAll(() => tmp.cleanup());
const replay = capturesIn(tmp.dir);
const ONE_WAY = 'Unidirectional Traffic';

async function risksOf(l4: 'udp' | 'tcp', cli: string, srv: string, sport: number, msgs: [boolean, Buffer][]) {
  const [f] = await replay(flowFrames(l4, cli, srv, 40000, sport, msgs));
  return f!.risks;
}
const opaque = Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex');

// An mDNS query (RFC 6762) for _services._dns-sd._udp.local, PTR.
const name = (...labels: string[]) => Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
const mdnsQuery = Buffer.concat([Buffer.from('000000000001000000000000', 'hex'), name('_services', '_dns-sd', '_udp', 'local'), Buffer.from('000c0001', 'hex')]);

describe('Unidirectional Traffic (nDPI)', () => {
  it('a server that never answered: raised, IPv4 and IPv6, UDP and TCP', async () => {
    expect(await risksOf('udp', '10.0.0.1', '10.0.0.2', 7777, [[true, opaque]])).toContain(ONE_WAY);
    expect(await risksOf('udp', '2001:db8::1', '2001:db8::2', 7777, [[true, opaque]])).toContain(ONE_WAY);
    expect(await risksOf('tcp', '10.0.0.1', '10.0.0.2', 7777, [[true, opaque]])).not.toContain(ONE_WAY);  // the handshake answered
  });
  it('an answer takes it back', async () => {
    expect(await risksOf('udp', '10.0.0.1', '10.0.0.2', 7777, [[true, opaque], [false, opaque]])).not.toContain(ONE_WAY);
  });
  it('packets to a group as nDPI approximates it are not judged', async () => {
    for (const dst of ['10.0.0.255', '10.0.1.0', '192.168.7.255', '224.0.0.251', '239.255.255.250', '255.255.255.255'])
      expect(await risksOf('udp', '10.0.0.1', dst, 7777, [[true, opaque]]), dst).not.toContain(ONE_WAY);
    expect(await risksOf('udp', 'fe80::1', 'ff02::1', 7777, [[true, opaque]])).not.toContain(ONE_WAY);
    // a last byte of 254 or 1 is a host to nDPI, whatever the netmask
    for (const dst of ['10.0.0.254', '10.0.1.1']) expect(await risksOf('udp', '10.0.0.1', dst, 7777, [[true, opaque]]), dst).toContain(ONE_WAY);
  });
  it('mDNS over UDP is one-way by design, also to a unicast address', async () => {
    expect(await risksOf('udp', '10.0.0.1', '10.0.0.2', 5353, [[true, mdnsQuery]])).not.toContain(ONE_WAY);
    // the same datagram to another port is no mDNS: raised
    expect(await risksOf('udp', '10.0.0.1', '10.0.0.2', 7777, [[true, mdnsQuery]])).toContain(ONE_WAY);
  });
});
