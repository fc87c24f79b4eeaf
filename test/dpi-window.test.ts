// nDPI's window of packets, as its reader runs it (the source of nDPI's own
// results): a TCP flow's packets are dissected while fewer than 32 were
// processed (packets_limit_per_flow; the handshake and bare ACKs count), a
// UDP flow's up to ndpiReader's 24 and the one passing them; then it gives
// up and guesses. Each case keeps one dissector waiting on packets that are
// not yet its protocol and shows the last packet it can still be named on
// and the first it cannot.
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-dpi-window-');

// XMPP (RFC 6120 §4.2): a stream header without the streams namespace keeps nDPI's Jabber
// dissector waiting; the stream header declaring it names the flow.
const decl = txt(`<stream:stream to='example.net' version='1.0'>`);
const stream = txt(`<stream:stream to='example.net' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>`);
// Telegram over UDP: a datagram of 40 bytes or more without 0xff waits, one with a run of exactly 12
// names it. (0x07 bytes: no protobuf wire type, nothing another dissector takes.)
const plain = Buffer.alloc(48, 0x07);
const run12 = Buffer.concat([Buffer.alloc(20, 0x07), Buffer.alloc(12, 0xff), Buffer.alloc(16, 0x07)]);

describe("nDPI's window of packets", () => {
  it('TCP: the 31st packet (3 handshake + 28 payload) is still dissected, the 32nd is not', async () => {
    const waitN = (n: number) => Array.from({ length: n }, () => decl);
    // payload i travels client→server for even i; the stream header is from the client either way
    expect(await classify('tcp', 40950, 5222, [...waitN(27), stream])).toBe('Jabber (DPI)'); // packet 31
    expect(await classify('tcp', 40951, 5222, [...waitN(28), stream], [...Array(28).fill(true), true])).not.toBe('Jabber (DPI)'); // packet 32
    // bare ACKs count: 3 handshake + 20 payload + the stream header on packet 24 is inside, whatever the payload count
    expect(await classify('tcp', 40952, 5222, [...waitN(20), stream])).toBe('Jabber (DPI)');
  });

  it('UDP: the 25th datagram is still dissected, the 26th is not', async () => {
    const dirs = (n: number) => Array(n).fill(true);
    expect(await classify('udp', 40953, 533, [...Array(24).fill(plain), run12], dirs(25))).toBe('Telegram (DPI)');
    expect(await classify('udp', 40954, 533, [...Array(25).fill(plain), run12], dirs(26))).not.toBe('Telegram (DPI)');
    expect(await classify('udp', 40955, 533, [...Array(24).fill(plain), run12], dirs(25), { v6: true })).toBe('Telegram (DPI)');
  });
});
