// One hand-built flow per case, replayed through the engine: each dissector
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI (a guess by port may still name it).

import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-3b-');


function mysqlGreeting(proto = 0x0a): Buffer {
  // nDPI's mysql.c wants 71..119 bytes ending with an auth plugin name of its list
  const body = Buffer.concat([Buffer.from([proto]), txt('8.0.36\0'), Buffer.from([1, 0, 0, 0]), Buffer.alloc(8, 0x41), Buffer.from([0]), Buffer.alloc(25, 0x42), txt('caching_sha2_password\0')]);
  const h = Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, body.length >> 16, 0]);
  return Buffer.concat([h, body]);
}

function pgStartup(code = 196608): Buffer {
  const params = txt('user\0postgres\0database\0test\0\0');
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + params.length, 0);
  h.writeUInt32BE(code, 4);
  return Buffer.concat([h, params]);
}

function mqttConnect(name = 'MQTT', level = 4): Buffer {
  const n = txt(name);
  const vh = Buffer.concat([Buffer.from([0, n.length]), n, Buffer.from([level, 0x02, 0, 60]), Buffer.from([0, 4]), txt('cli1')]);
  return Buffer.concat([Buffer.from([0x10, vh.length]), vh]);
}

// AS-REQ / KRB-ERROR skeleton: tag, SEQUENCE, pvno 5 in field [1] / [0].
function krb(tag: number, pvnoField: number): Buffer {
  // over 64 bytes: nDPI's kerberos.c reads nothing shorter
  const inner = Buffer.concat([Buffer.from([pvnoField, 3, 2, 1, 5, pvnoField + 1, 3, 2, 1, tag === 0x6a ? 10 : 30]), Buffer.alloc(60, 0)]);
  const seq = Buffer.concat([Buffer.from([0x30, inner.length]), inner]);
  return Buffer.concat([Buffer.from([tag, seq.length]), seq]);
}

function ldapBind(op = 0x60): Buffer {
  const bind = Buffer.concat([Buffer.from([0x02, 0x01, 0x03, 0x04, 0x00, 0x80, 0x00])]);
  const msg = Buffer.concat([Buffer.from([0x02, 0x01, 0x01, op, bind.length]), bind]);
  return Buffer.concat([Buffer.from([0x30, msg.length]), msg]);
}

function ike(version = 0x20, exchange = 34): Buffer {
  const b = Buffer.alloc(28 + 20);
  b.fill(0x11, 0, 8); // initiator SPI
  b[16] = 33; // SA
  b[17] = version;
  b[18] = exchange;
  b[19] = 0x08;
  b.writeUInt32BE(b.length, 24);
  return b;
}

function ovpn(op: number): Buffer {
  const b = Buffer.alloc(14);
  b[0] = op << 3;
  b.fill(0x5a, 1, 9);
  return b;
}

function wg(type: number, size: number): Buffer {
  const b = Buffer.alloc(size, 0x33);
  b[0] = type;
  b[1] = b[2] = b[3] = 0;
  return b;
}

describe('dissectors (databases, messaging, auth, VPN)', () => {
  it('MySQL: the server greeting, not with another protocol version', async () => {
    expect(await classify('tcp', 51000, 13306, [mysqlGreeting()], [false])).toBe('MySQL (DPI)');
    expect(await classify('tcp', 51001, 13306, [mysqlGreeting(0x09)], [false])).not.toBe('MySQL (DPI)');
  });

  // nDPI's postgres.c names the flow on the server's answer to the request
  // (any startup code below 0x40000 passes), not on the request alone.
  it('PostgreSQL: StartupMessage and SSLRequest with their answers, not a protocol code of 0x40000', async () => {
    const authOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
    expect(await classify('tcp', 51010, 15432, [pgStartup(), authOk])).toBe('PostgreSQL (DPI)');
    const ssl = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
    expect(await classify('tcp', 51011, 15432, [ssl, txt('S')])).toBe('PostgreSQL (DPI)');
    expect(await classify('tcp', 51012, 15432, [pgStartup(0x40000), authOk])).not.toBe('PostgreSQL (DPI)');
  });

  it('MQTT: CONNECT naming MQTT / MQIsdp, not another protocol name', async () => {
    expect(await classify('tcp', 51020, 11883, [mqttConnect()])).toBe('MQTT (DPI)');
    expect(await classify('tcp', 51021, 11883, [mqttConnect('MQIsdp', 3)])).toBe('MQTT (DPI)');
    // nDPI's mqtt.c takes CONNECT on its fixed header (the protocol name is
    // not read): a remaining length one byte short of the packet is the miss
    expect(await classify('tcp', 51022, 11883, [mqttConnect('MQTX')])).toBe('MQTT (DPI)');
    const short = mqttConnect();
    short[1] -= 1;
    expect(await classify('tcp', 51023, 11883, [short])).not.toBe('MQTT (DPI)');
  });

  // nDPI's kerberos.c looks for the msg-type, not pvno: the near miss is an
  // unknown msg-type (11)
  it('Kerberos: AS-REQ over UDP and TCP, not with msg-type 11', async () => {
    expect(await classify('udp', 51030, 88, [krb(0x6a, 0xa1)])).toBe('Kerberos (DPI)');
    const req = krb(0x6a, 0xa1);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(req.length, 0);
    expect(await classify('tcp', 51031, 88, [Buffer.concat([len, req])])).toBe('Kerberos (DPI)');
    const bad = krb(0x6a, 0xa1);
    bad[13] = 11; // msg-type
    expect(await classify('udp', 51032, 88, [bad])).not.toBe('Kerberos (DPI)');
  });

  it('LDAP: a bindRequest, not an unknown protocolOp', async () => {
    expect(await classify('tcp', 51040, 389, [ldapBind()])).toBe('LDAP (DPI)');
    expect(await classify('tcp', 51041, 389, [ldapBind(0x7f)])).not.toBe('LDAP (DPI)');
  });

  it('IPSec: an IKEv2 IKE_SA_INIT, not with version 3', async () => {
    expect(await classify('udp', 500, 500, [ike()])).toBe('IPSec (DPI)');
    expect(await classify('udp', 51050, 500, [ike(0x30)])).not.toBe('IPSec (DPI)');
  });

  it('OpenVPN: client and server hard resets, then a control message each way; not a reset answered by data', async () => {
    // nDPI (openvpn.c) names it once both directions sent two packets with their session ids
    expect(await classify('udp', 51060, 11194, [ovpn(7), ovpn(8), ovpn(4), ovpn(4)])).toBe('OpenVPN (DPI)');
    expect(await classify('udp', 51061, 11194, [ovpn(7), ovpn(9)])).not.toBe('OpenVPN (DPI)');
  });

  it('WireGuard: handshake initiation and response, not with a wrong size', async () => {
    expect(await classify('udp', 51070, 41820, [wg(1, 148), wg(2, 92)])).toBe('WireGuard (DPI)');
    expect(await classify('udp', 51071, 41820, [wg(1, 150), wg(2, 90)])).not.toBe('WireGuard (DPI)');
  });
});
