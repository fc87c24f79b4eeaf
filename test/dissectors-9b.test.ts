// One hand-built flow per case: the group-B dissectors of round 9 (message
// brokers, databases and RPC: Kafka, Cassandra, Oracle TNS, DRDA,
// Elasticsearch, ZeroMQ, AJP, STOMP, Thrift, …) name their protocol by DPI
// under nDPI's conditions, and a near miss (one detail wrong) is not named
// that protocol by DPI (a guess by port may still name it).
import { describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, flowRunner } from './fixtures/dissect.js';
import { le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-9b-');
const run = flowRunner('fg-dissectors-9b-run-');
const V6 = { v6: true };
const cat = (...parts: Buffer[]) => Buffer.concat(parts);
const bytes = (...b: number[]) => Buffer.from(b);

// ── Kafka (kafka.apache.org/protocol.html) ─────────────────────────────────
// Request: INT32 size, then the header (api_key, api_version,
// correlation_id, client_id as INT16-length string) and the body.
const kafkaReq = (apiKey: number, apiVersion: number, clientId: string, body: Buffer, opts: { sizeDelta?: number; idLen?: number } = {}) => {
  const rest = cat(u16(apiKey), u16(apiVersion), u32(7), u16(opts.idLen ?? clientId.length), txt(clientId), body);
  return cat(u32(rest.length + (opts.sizeDelta ?? 0)), rest);
};
// ApiVersions v3 body: client_software_name, client_software_version
// (COMPACT_STRING: length + 1 as an unsigned varint), tagged fields.
const apiVersionsBody = cat(bytes(11), txt('librdkafka'), bytes(6), txt('2.3.0'), bytes(0));
// Metadata v1 body: topics ARRAY (INT32 count, STRING names).
const metadataBody = cat(u32(1), u16(6), txt('orders'));
// Produce v3 body: transactional_id (null), acks, timeout_ms, topic_data (empty).
const produceBody = cat(u16(0xffff), u16(1), u32(30000), u32(0));

// ── Cassandra (CQL native_protocol_v4.spec) ────────────────────────────────
// §2 frame: version, flags, stream (INT16), opcode, length (INT32), body.
const cqlFrame = (version: number, opcode: number, body: Buffer) => cat(bytes(version, 0), u16(1), bytes(opcode), u32(body.length), body);
const cqlString = (s: string) => cat(u16(s.length), txt(s));
const cqlStringMap = (m: [string, string][]) => cat(u16(m.length), ...m.map(([k, v]) => cat(cqlString(k), cqlString(v))));
const cqlMultimap = (m: [string, string[]][]) => cat(u16(m.length), ...m.map(([k, vs]) => cat(cqlString(k), u16(vs.length), ...vs.map(cqlString))));
const OPTIONS = 0x05, SUPPORTED = 0x06, STARTUP = 0x01;
const cqlOptions = cqlFrame(0x04, OPTIONS, Buffer.alloc(0));
// §4.2.4 SUPPORTED: COMPRESSION, then CQL_VERSION with one version last.
const cqlSupported = (versions: string[]) =>
  cqlFrame(0x84, SUPPORTED, cqlMultimap([['COMPRESSION', ['snappy', 'lz4']], ['CQL_VERSION', versions]]));
// §4.1.1 STARTUP: a string map.
const cqlStartup = (m: [string, string][]) => cqlFrame(0x04, STARTUP, cqlStringMap(m));
// Internode messaging preamble: magic 0xCA552DFA, then 15 bytes (version, flags, …).
const internode = (len: number) => cat(u32(0xca552dfa), u32(0x0000000c), Buffer.alloc(len - 8, 0));

// ── Oracle TNS (Wireshark packet-tns) ──────────────────────────────────────
// Header: length, packet checksum, type, reserved, header checksum; CONNECT
// (type 1) body: versions, options, SDU/TDU, …, connect data offset and length.
const tnsConnect = (opts: { lenDelta?: number; checksum?: number; type?: number } = {}) => {
  const data = txt('(DESCRIPTION=(CONNECT_DATA=(SERVICE_NAME=ORCL)(CID=(PROGRAM=sqlplus)(HOST=db-cli)(USER=scott)))(ADDRESS=(PROTOCOL=TCP)(HOST=10.0.0.2)(PORT=1521)))');
  const fields = cat(u16(0x013a), u16(0x012c), u16(0x0c41), u16(0x2000), u16(0xffff), u16(0x7f08), u16(0), u16(0x0001), u16(data.length), u16(58), u32(0), bytes(0x41, 0x41));
  const body = cat(fields, Buffer.alloc(58 - 8 - fields.length, 0), data);
  return cat(u16(8 + body.length + (opts.lenDelta ?? 0)), u16(opts.checksum ?? 0), bytes(opts.type ?? 1, 0), u16(0), body);
};

// ── DRDA (Open Group DRDA Vol. 3, DSS header + DDM) ────────────────────────
// DSS: length, 0xD0, format (0x40 chained | type 1 request), correlation
// id; DDM: length (DSS - 6), code point, parameters (length, code point, data).
const ddmParam = (cp: number, data: Buffer) => cat(u16(4 + data.length), u16(cp), data);
const dss = (format: number, cp: number, params: Buffer, opts: { magic?: number; ddmDelta?: number } = {}) =>
  cat(u16(10 + params.length), bytes(opts.magic ?? 0xd0, format), u16(1), u16(4 + params.length + (opts.ddmDelta ?? 0)), u16(cp), params);
const EXCSAT = 0x1041, ACCSEC = 0x106d, EXCSATRD = 0x1443;
const excsat = (format = 0x41, opts: { magic?: number; ddmDelta?: number } = {}) =>
  dss(format, EXCSAT, cat(ddmParam(0x115e, txt('db2jcc_application')), ddmParam(0x116d, txt('client01'))), opts);
const accsec = dss(0x01, ACCSEC, cat(ddmParam(0x11a2, u16(3)), ddmParam(0x2110, txt('SAMPLE'))));

// ── Elasticsearch transport (TcpHeader) ────────────────────────────────────
// "ES", INT32 length of what follows, request id (8), status (1), version
// (4), variable header size (4), then headers and the action.
const esMessage = (lenDelta = 0) => {
  const rest = cat(Buffer.alloc(8, 0), bytes(0x00), u32(8000099), u32(27), txt('\0\0internal:tcp/handshake'), Buffer.alloc(5, 0));
  return cat(txt('ES'), u32(rest.length + lenDelta), rest);
};
const esPing = cat(txt('ES'), u32(0xffffffff));

// ── ZeroMQ (23/ZMTP 3.0 greeting) ──────────────────────────────────────────
// Signature 0xFF, 8 padding bytes (1 as a ZMTP/1.0 length), 0x7F; version
// 3.0; mechanism "NULL" padded to 20; as-server; 31-byte filler.
const zmtpSig = bytes(0xff, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x7f);
const zmtpGreeting = (asServer: number) => cat(zmtpSig, bytes(3, 0), txt('NULL'), Buffer.alloc(16, 0), bytes(asServer), Buffer.alloc(31, 0));

// ── AJP13 (Tomcat "AJPv13" reference) ──────────────────────────────────────
// Packet: magic (0x1234 to the container, "AB" back), length, body whose
// first byte is the type. Strings: length, bytes, NUL.
const ajpStr = (s: string) => cat(u16(s.length), txt(s), bytes(0));
const ajpToContainer = (body: Buffer) => cat(u16(0x1234), u16(body.length), body);
const ajpToServer = (body: Buffer) => cat(txt('AB'), u16(body.length), body);
// Forward Request: type 2, method 2 (GET), protocol, uri, remote addr / host,
// server name, port, is_ssl, header count, a header (0xA00B = Host), terminator.
const ajpForward = ajpToContainer(
  cat(bytes(2, 2), ajpStr('HTTP/1.1'), ajpStr('/app/index.jsp'), ajpStr('10.0.0.1'), ajpStr('10.0.0.1'), ajpStr('www.example.com'), u16(80), bytes(0), u16(1), u16(0xa00b), ajpStr('www.example.com'), bytes(0xff)),
);
// Send Headers: type 4, status, message, header count, a header (0xA001 Content-Type).
const ajpSendHeaders = ajpToServer(cat(bytes(4), u16(200), ajpStr('OK'), u16(1), u16(0xa001), ajpStr('text/html')));

// ── STOMP 1.2 (stomp.github.io) ────────────────────────────────────────────
// Frame: command line, header lines, blank line, body, NUL.
const stompFrame = (command: string, headers: string[]) => txt(`${command}\n${headers.join('\n')}\n\n\0`);

// ── Thrift (thrift-binary-protocol.md, thrift-compact-protocol.md) ─────────
// Strict binary: 0x80 0x01, unused, type, INT32 name length, name, INT32
// seqid, then the argument struct (here: field 1 i32, stop).
const thriftBinary = (type: number, name: string, opts: { version?: number; nameLen?: number } = {}) =>
  cat(bytes(0x80, opts.version ?? 1, 0, type), u32(opts.nameLen ?? name.length), txt(name), u32(1), bytes(0x08), u16(1), u32(42), bytes(0x00));
// Compact: 0x82, type << 5 | version, seqid as a varint (3 bytes: 16384),
// name length (varint), name, then the struct (field 1 i32 zigzag 42, stop).
const thriftCompact = (type: number, name: string, version = 1) =>
  cat(bytes(0x82, (type << 5) | version, 0x80, 0x80, 0x01, name.length), txt(name), bytes(0x15, 0x54, 0x00));

// ── Gearman (gearman.org/protocol) ─────────────────────────────────────────
// Binary packet: magic "\0REQ" / "\0RES", INT32 type, INT32 data size, data
// (arguments separated by NUL).
const gearman = (magic: string, type: number, data: string) => cat(txt(`\0${magic}`), u32(type), u32(data.length), txt(data));

// ── OpenWire (ActiveMQ): size-prefixed WIREFORMAT_INFO (type 1): magic
// "ActiveMQ", INT32 version, marshalled-properties flag, INT32 size, map.
// the map: count, key (INT16-length string), value type 1 (boolean), value
const owProps = cat(u32(1), u16(10), txt('TcpNoDelay'), bytes(1, 1));
const openwire = (opts: { sizeDelta?: number; type?: number; magic?: string } = {}) => {
  const rest = cat(bytes(opts.type ?? 1), txt(opts.magic ?? 'ActiveMQ'), u32(12), bytes(1), u32(owProps.length), owProps);
  return cat(u32(rest.length + (opts.sizeDelta ?? 0)), rest);
};

// ── FastCGI (FastCGI Specification 1.0) ────────────────────────────────────
// §3.3 record: version 1, type, request id, content length, padding, reserved.
const fcgi = (type: number, content: Buffer, padding = 0, version = 1, lenDelta = 0) =>
  cat(bytes(version, type), u16(1), u16(content.length + lenDelta), bytes(padding, 0), content, Buffer.alloc(padding, 0));
// §3.4 name-value pairs with one-byte lengths.
const fcgiPairs = (pairs: [string, string][]) => cat(...pairs.map(([k, v]) => cat(bytes(k.length, v.length), txt(k), txt(v))));
const FCGI_BEGIN = 1, FCGI_END = 3, FCGI_PARAMS = 4, FCGI_STDOUT = 6;
// §5.1 BEGIN_REQUEST body: role 1 (RESPONDER), flags, 5 reserved.
const fcgiBegin = fcgi(FCGI_BEGIN, cat(u16(1), Buffer.alloc(6, 0)));
const fcgiParams = (host: string) =>
  fcgi(FCGI_PARAMS, fcgiPairs([['SCRIPT_FILENAME', '/var/www/index.php'], ['REQUEST_METHOD', 'GET'], ['HTTP_HOST', host], ['SERVER_SOFTWARE', 'nginx/1.24.0']]));

// ── Raft (canonical/raft uv_encoding): LE64 type, LE64 length, body ────────
const le64 = (v: number) => cat(le32(v), le32(0));
const raft = (type: number, body: Buffer, lenDelta = 0) => cat(le64(type), le64(body.length + lenDelta), body);
// RequestVote: term, candidate id, last log index, last log term, flags.
const requestVote = cat(le64(3), le64(2), le64(117), le64(2), le64(0));

// ── collectd binary protocol: parts of type, length (header included), data.
const cdPart = (type: number, data: Buffer) => cat(u16(type), u16(4 + data.length), data);
const cdString = (type: number, s: string) => cdPart(type, txt(`${s}\0`));
const cdNumber = (type: number, v: number) => cdPart(type, cat(u32(0), u32(v)));
// Values part: count, data types (1 = gauge), 8-byte values.
const cdValues = cdPart(0x0006, cat(u16(1), bytes(1), Buffer.alloc(8, 0x3f)));
const cdFull = (host: string) =>
  cat(cdString(0x0000, host), cdNumber(0x0008, 1700000000), cdNumber(0x0009, 10), cdString(0x0002, 'cpu'), cdString(0x0003, '0'), cdString(0x0004, 'cpu'), cdString(0x0005, 'idle'), cdValues);
// Encryption part: user name length, user name, 16-byte IV, encrypted rest.
const cdEncrypted = (userLen: number, lenDelta = 0) => {
  const data = cat(u16(userLen), txt('admin'), Buffer.alloc(16, 0xa5), Buffer.alloc(40, 0x5a));
  return cat(u16(0x0210), u16(4 + data.length + lenDelta), data);
};

describe('dissectors 9 (group B)', () => {
  it('Kafka: a request whose size is the payload minus 4, with a printable client id, any port', async () => {
    expect(await classify('tcp', 41000, 9092, [kafkaReq(18, 3, 'rdkafka', apiVersionsBody)])).toBe('Kafka (DPI)');
    expect(await classify('tcp', 41001, 9092, [kafkaReq(3, 1, 'consumer-1', metadataBody)])).toBe('Kafka (DPI)');
    expect(await classify('tcp', 41002, 9092, [kafkaReq(0, 3, 'producer-7', produceBody)])).toBe('Kafka (DPI)');
    // the highest api key and version nDPI accepts; an empty client id
    expect(await classify('tcp', 41003, 9092, [kafkaReq(74, 15, '', metadataBody)])).toBe('Kafka (DPI)');
    expect(await classify('tcp', 41004, 19092, [kafkaReq(18, 3, 'rdkafka', apiVersionsBody)])).toBe('Kafka (DPI)');
    expect(await classify('tcp', 41005, 9092, [kafkaReq(18, 3, 'rdkafka', apiVersionsBody)], undefined, V6)).toBe('Kafka (DPI)');
  });

  it('Kafka near misses: size, api key, version, client id, not the first packet', async () => {
    expect(await classify('tcp', 41010, 19092, [kafkaReq(18, 3, 'rdkafka', apiVersionsBody, { sizeDelta: 1 })])).not.toBe('Kafka (DPI)');
    expect(await classify('tcp', 41011, 19092, [kafkaReq(75, 0, 'rdkafka', apiVersionsBody)])).not.toBe('Kafka (DPI)');
    expect(await classify('tcp', 41012, 19092, [kafkaReq(18, 16, 'rdkafka', apiVersionsBody)])).not.toBe('Kafka (DPI)');
    expect(await classify('tcp', 41013, 19092, [kafkaReq(18, 3, 'rd\x01kafka', apiVersionsBody)])).not.toBe('Kafka (DPI)');
    // a client id longer than the packet, and a null one (length -1)
    expect(await classify('tcp', 41014, 19092, [kafkaReq(18, 3, 'rdkafka', Buffer.alloc(0), { idLen: 40 })])).not.toBe('Kafka (DPI)');
    expect(await classify('tcp', 41015, 19092, [kafkaReq(18, 3, '', apiVersionsBody, { idLen: 0xffff })])).not.toBe('Kafka (DPI)');
    // too short for a header (8 bytes: size + key + version only)
    expect(await classify('tcp', 41016, 19092, [cat(u32(4), u16(18), u16(3))])).not.toBe('Kafka (DPI)');
    expect(await classify('tcp', 41017, 19092, [txt('hello kafka\r\n'), kafkaReq(18, 3, 'rdkafka', apiVersionsBody)], [true, true])).not.toBe('Kafka (DPI)');
  });

  it('Cassandra: CQL_VERSION 20 bytes before the end of a >60-byte packet, the internode preamble', async () => {
    // OPTIONS (9 bytes), then SUPPORTED ending with CQL_VERSION ["3.4.5"]
    expect(await classify('tcp', 41100, 9042, [cqlOptions, cqlSupported(['3.4.5'])])).toBe('Cassandra (DPI)');
    expect(await classify('tcp', 41101, 19042, [cqlOptions, cqlSupported(['3.4.7'])])).toBe('Cassandra (DPI)');
    expect(await classify('tcp', 41102, 9042, [cqlOptions, cqlSupported(['3.4.5'])], undefined, V6)).toBe('Cassandra (DPI)');
    // a STARTUP whose last value, CQL_VERSION's, has 7 characters
    const startup = cqlStartup([['DRIVER_NAME', 'DataStax Java Driver'], ['DRIVER_VERSION', '4.17.0'], ['CQL_VERSION', '3.4.5.1']]);
    expect(await classify('tcp', 41103, 9042, [startup])).toBe('Cassandra (DPI)');
    // the internode preamble (19 bytes), read before the packet counts: still
    // on a direction's third payload packet, not after one that ruled it out
    // (audit 17: nDPI's per-direction count)
    expect(await classify('tcp', 41104, 7000, [internode(19)])).toBe('Cassandra (DPI)');
    const late = [...Array(4).fill(cqlOptions), internode(19)];
    expect(await classify('tcp', 41105, 17000, late)).toBe('Cassandra (DPI)');
    expect(await classify('tcp', 41106, 17000, [...Array(5).fill(cqlOptions), internode(19)])).not.toBe('Cassandra (DPI)');
  });

  it('Cassandra near misses: CQL_VERSION elsewhere, 60 bytes, a short packet first, too late, preamble length', async () => {
    // STARTUP ending with a 5-character value: CQL_VERSION 18 bytes before the end
    const startup = cqlStartup([['DRIVER_NAME', 'DataStax Python Driver'], ['DRIVER_VERSION', '3.29.0'], ['CQL_VERSION', '3.4.5']]);
    expect(await classify('tcp', 41110, 19042, [startup])).not.toBe('Cassandra (DPI)');
    // two versions listed: CQL_VERSION no longer 20 bytes from the end
    expect(await classify('tcp', 41111, 19042, [cqlOptions, cqlSupported(['3.4.5', '3.4.6'])])).not.toBe('Cassandra (DPI)');
    // 60 bytes exactly: not more than 60
    const sixty = cat(cqlFrame(0x84, SUPPORTED, cat(Buffer.alloc(31, 0x20), txt('CQL_VERSION'), u16(1), u16(5), txt('3.4.5'))));
    expect(sixty.length).toBe(60);
    expect(await classify('tcp', 41112, 19042, [cqlOptions, sixty])).not.toBe('Cassandra (DPI)');
    // a packet shorter than a frame header rules the flow out
    expect(await classify('tcp', 41113, 19042, [bytes(4, 0, 0, 1), cqlSupported(['3.4.5'])])).not.toBe('Cassandra (DPI)');
    // the 8th payload packet: only the internode preamble counts there
    const late = [...Array(7).fill(cqlOptions), cqlSupported(['3.4.5'])];
    expect(await classify('tcp', 41114, 19042, late)).not.toBe('Cassandra (DPI)');
    expect(await classify('tcp', 41115, 17000, [internode(20)])).not.toBe('Cassandra (DPI)');
    expect(await classify('tcp', 41116, 17000, [cat(u32(0xca552dfb), Buffer.alloc(15, 0))])).not.toBe('Cassandra (DPI)');
  });

  it('Oracle: a TNS CONNECT with its own length and zero checksums, port 1521 on either side', async () => {
    expect(await classify('tcp', 41200, 1521, [tnsConnect()])).toBe('Oracle (DPI)');
    expect(await classify('tcp', 1521, 41201, [tnsConnect()])).toBe('Oracle (DPI)');
    expect(await classify('tcp', 41202, 1521, [tnsConnect()], undefined, V6)).toBe('Oracle (DPI)');
  });

  it('Oracle near misses: another port, the length, a checksum, another packet type', async () => {
    expect(await classify('tcp', 41210, 1522, [tnsConnect()])).not.toBe('Oracle (DPI)');
    expect(await classify('tcp', 41211, 1521, [tnsConnect({ lenDelta: 1 })])).not.toBe('Oracle (DPI)');
    expect(await classify('tcp', 41212, 1521, [tnsConnect({ checksum: 0x1234 })])).not.toBe('Oracle (DPI)');
    // type 2 (ACCEPT) is the listener's answer, never asked for
    expect(await classify('tcp', 41213, 1521, [tnsConnect({ type: 2 })])).not.toBe('Oracle (DPI)');
    expect(await classify('tcp', 41214, 1521, [txt('hello\r\n'), tnsConnect()], [true, true])).not.toBe('Oracle (DPI)');
  });

  it('DRDA: one DSS, chained DSSs filling the packet, a DSS continued in the next segment, any port', async () => {
    expect(await classify('tcp', 41300, 50000, [excsat(0x01)])).toBe('DRDA (DPI)');
    expect(await classify('tcp', 41301, 1527, [cat(excsat(0x41), accsec)])).toBe('DRDA (DPI)');
    // the server's reply (EXCSATRD, format 0x02) read first
    expect(await classify('tcp', 41302, 50000, [dss(0x02, EXCSATRD, ddmParam(0x116d, txt('DB2')))], [false])).toBe('DRDA (DPI)');
    // a DSS longer than the packet: nothing after it to check
    expect(await classify('tcp', 41303, 446, [excsat(0x01).subarray(0, 20)])).toBe('DRDA (DPI)');
    expect(await classify('tcp', 41304, 50000, [cat(excsat(0x41), accsec)], undefined, V6)).toBe('DRDA (DPI)');
  });

  it('DRDA near misses: the magic, the DDM length, a bad chained DSS, trailing bytes', async () => {
    expect(await classify('tcp', 41310, 50000, [excsat(0x01, { magic: 0xd1 })])).not.toBe('DRDA (DPI)');
    expect(await classify('tcp', 41311, 50000, [excsat(0x01, { ddmDelta: 1 })])).not.toBe('DRDA (DPI)');
    expect(await classify('tcp', 41312, 50000, [cat(excsat(0x41), excsat(0x01, { magic: 0xd2 }))])).not.toBe('DRDA (DPI)');
    expect(await classify('tcp', 41313, 50000, [cat(excsat(0x01), bytes(0, 0, 0, 0, 0))])).not.toBe('DRDA (DPI)');
    expect(await classify('tcp', 41314, 50000, [excsat(0x01).subarray(0, 9)])).not.toBe('DRDA (DPI)');
  });

  it('Elasticsearch: "ES", a length the packet holds, the ping, any port', async () => {
    expect(await classify('tcp', 41400, 9300, [esMessage()])).toBe('Elasticsearch (DPI)');
    expect(await classify('tcp', 41401, 9300, [esPing])).toBe('Elasticsearch (DPI)');
    // a shorter length than the packet (two messages in one segment)
    expect(await classify('tcp', 41402, 9301, [cat(esMessage(), esPing)])).toBe('Elasticsearch (DPI)');
    expect(await classify('tcp', 41403, 9300, [esMessage()], undefined, V6)).toBe('Elasticsearch (DPI)');
  });

  it('Elasticsearch near misses: a length past the packet, lower-case marker, 5 bytes', async () => {
    expect(await classify('tcp', 41410, 9300, [esMessage(1)])).not.toBe('Elasticsearch (DPI)');
    expect(await classify('tcp', 41411, 9300, [cat(txt('Es'), esMessage().subarray(2))])).not.toBe('Elasticsearch (DPI)');
    expect(await classify('tcp', 41412, 9300, [esPing.subarray(0, 5)])).not.toBe('Elasticsearch (DPI)');
    expect(await classify('tcp', 41413, 9300, [txt('GET / HTTP/1.1\r\nHost: es\r\n\r\n'), esPing], [true, true])).not.toBe('Elasticsearch (DPI)');
  });

  it('ZeroMQ: both peers open with the ZMTP signature; the "(flow" pattern', async () => {
    expect(await classify('tcp', 41500, 5555, [zmtpGreeting(0), zmtpGreeting(1)])).toBe('ZeroMQ (DPI)');
    // the signature sent alone first (ZMTP's version detection), both ways
    expect(await classify('tcp', 41501, 5555, [zmtpSig, zmtpSig])).toBe('ZeroMQ (DPI)');
    expect(await classify('tcp', 41502, 5555, [zmtpGreeting(0), zmtpGreeting(1)], undefined, V6)).toBe('ZeroMQ (DPI)');
    const flow = (b0: number) => cat(bytes(b0, 0x28), txt('flow'), bytes(0), txt('ident'));
    expect(await classify('tcp', 41503, 6000, [flow(0x01), flow(0x02)])).toBe('ZeroMQ (DPI)');
  });

  it('ZeroMQ near misses: one packet only, a wrong signature byte, past the 10th packet', async () => {
    expect(await classify('tcp', 41510, 5555, [zmtpGreeting(0)])).not.toBe('ZeroMQ (DPI)');
    const bad = Buffer.from(zmtpSig);
    bad[9] = 0x7e;
    expect(await classify('tcp', 41511, 5555, [bad, bad])).not.toBe('ZeroMQ (DPI)');
    const late = [...Array(10).fill(txt('noise\r\n')), zmtpSig];
    expect(await classify('tcp', 41512, 5555, late)).not.toBe('ZeroMQ (DPI)');
  });

  it('AJP: 0x1234 with a request type, "AB" with a response type', async () => {
    expect(await classify('tcp', 41600, 8009, [ajpForward, ajpSendHeaders])).toBe('AJP (DPI)');
    // CPing (10) and its CPong (9); Shutdown (7); Ping (8)
    expect(await classify('tcp', 41601, 8009, [ajpToContainer(bytes(10)), ajpToServer(bytes(9))])).toBe('AJP (DPI)');
    expect(await classify('tcp', 41602, 9009, [ajpToContainer(bytes(7))])).toBe('AJP (DPI)');
    expect(await classify('tcp', 41603, 9009, [ajpToContainer(bytes(8))])).toBe('AJP (DPI)');
    // the container's packets read first: Send Body Chunk (3), Send
    // Headers, End Response (5), Get Body Chunk (6)
    expect(await classify('tcp', 41604, 9009, [ajpToServer(cat(bytes(3), u16(2), txt('hi'), bytes(0)))], [false])).toBe('AJP (DPI)');
    expect(await classify('tcp', 41605, 9009, [ajpSendHeaders], [false])).toBe('AJP (DPI)');
    expect(await classify('tcp', 41606, 9009, [ajpToServer(bytes(5, 1))], [false])).toBe('AJP (DPI)');
    expect(await classify('tcp', 41607, 9009, [ajpToServer(bytes(6, 0x1f, 0xfa))], [false])).toBe('AJP (DPI)');
    expect(await classify('tcp', 41608, 8009, [ajpForward, ajpSendHeaders], undefined, V6)).toBe('AJP (DPI)');
  });

  it('AJP near misses: a response type after 0x1234, a request type after "AB", zero length, another magic', async () => {
    expect(await classify('tcp', 41610, 9009, [ajpToContainer(bytes(4))])).not.toBe('AJP (DPI)');
    expect(await classify('tcp', 41611, 9009, [ajpToServer(bytes(2))], [false])).not.toBe('AJP (DPI)');
    expect(await classify('tcp', 41612, 9009, [cat(u16(0x1234), u16(0), bytes(10))])).not.toBe('AJP (DPI)');
    expect(await classify('tcp', 41613, 9009, [cat(u16(0x1235), u16(1), bytes(10))])).not.toBe('AJP (DPI)');
    expect(await classify('tcp', 41614, 9009, [ajpToContainer(bytes(11))])).not.toBe('AJP (DPI)');
  });

  it('STOMP: the client\'s STOMP frame, the server\'s CONNECTED frame over 100 bytes', async () => {
    const connect = stompFrame('STOMP', ['accept-version:1.2', 'host:broker.example.com']);
    expect(await classify('tcp', 41700, 61613, [connect])).toBe('STOMP (DPI)');
    expect(await classify('tcp', 41701, 5000, [connect])).toBe('STOMP (DPI)');
    expect(await classify('tcp', 41702, 61613, [connect], undefined, V6)).toBe('STOMP (DPI)');
    const connected = stompFrame('CONNECTED', ['version:1.2', 'session:ID:broker-40077-1700000000000-3:1', 'server:ActiveMQ/5.18.3', 'heart-beat:10000,10000']);
    expect(connected.length).toBeGreaterThan(100);
    expect(await classify('tcp', 41703, 61613, [connected], [false])).toBe('STOMP (DPI)');
  });

  it('STOMP near misses: a 1.0 CONNECT, 26 bytes, CONNECTED of 100 bytes, the frame the wrong way', async () => {
    expect(await classify('tcp', 41710, 61613, [stompFrame('CONNECT', ['accept-version:1.0,1.1,1.2', 'host:broker'])])).not.toBe('STOMP (DPI)');
    const short = stompFrame('STOMP', ['host:broker.examp']);
    expect(short.length).toBe(26);
    expect(await classify('tcp', 41711, 61613, [short])).not.toBe('STOMP (DPI)');
    const hundred = stompFrame('CONNECTED', ['version:1.2', `session:${'x'.repeat(58)}`, 'server:x']);
    expect(hundred.length).toBe(100);
    expect(await classify('tcp', 41712, 61613, [hundred], [false])).not.toBe('STOMP (DPI)');
    expect(await classify('tcp', 41713, 61613, [stompFrame('STOMP', ['accept-version:1.2', 'host:broker.example.com'])], [false])).not.toBe('STOMP (DPI)');
  });

  it('Thrift: the strict binary protocol over TCP, the compact protocol over UDP', async () => {
    expect(await classify('tcp', 41800, 9090, [thriftBinary(1, 'getUser'), thriftBinary(2, 'getUser')])).toBe('Thrift (DPI)');
    // a reply, an exception, a oneway call, type 0 read first: all named
    expect(await classify('tcp', 41801, 9090, [thriftBinary(2, 'getUser')], [false])).toBe('Thrift (DPI)');
    expect(await classify('tcp', 41802, 9090, [thriftBinary(3, 'getUser')], [false])).toBe('Thrift (DPI)');
    expect(await classify('tcp', 41803, 7911, [thriftBinary(4, 'log')])).toBe('Thrift (DPI)');
    expect(await classify('tcp', 41804, 7911, [thriftBinary(0, 'ping')])).toBe('Thrift (DPI)');
    expect(await classify('tcp', 41805, 9090, [thriftBinary(1, 'getUser')], undefined, V6)).toBe('Thrift (DPI)');
    expect(await classify('udp', 41806, 9091, [thriftCompact(1, 'getUser')])).toBe('Thrift (DPI)');
    expect(await classify('udp', 41807, 9091, [thriftCompact(4, 'emit')], undefined, V6)).toBe('Thrift (DPI)');
  });

  it('Thrift: nDPI\'s risks on a match (exception, type 0, a method name not printable)', async () => {
    const exc = await run('tcp', 41820, 9090, [thriftBinary(3, 'getUser')], [false]);
    expect(exc.flow.risks).toContain('Error Code');
    const t0 = await run('tcp', 41821, 9090, [thriftBinary(0, 'getUser')]);
    expect(t0.flow.risks).toContain('Malformed Packet');
    const odd = await run('udp', 41822, 9091, [thriftCompact(1, 'get\x01User')]);
    expect([l7Name(odd.flow.l7_master, odd.flow.l7_app), odd.flow.risks]).toEqual(['Thrift', expect.arrayContaining(['Non-Printable/Invalid Chars Detected'])]);
    const call = await run('tcp', 41823, 9090, [thriftBinary(1, 'getUser')]);
    expect(call.flow.risks).not.toContain('Error Code');
  });

  it('Thrift near misses: framed transport, version, type, name past the packet, the wrong transport', async () => {
    const call = thriftBinary(1, 'getUser');
    expect(await classify('tcp', 41810, 9090, [cat(u32(call.length), call)])).not.toBe('Thrift (DPI)');
    expect(await classify('tcp', 41811, 9090, [thriftBinary(1, 'getUser', { version: 2 })])).not.toBe('Thrift (DPI)');
    expect(await classify('tcp', 41812, 9090, [thriftBinary(5, 'getUser')])).not.toBe('Thrift (DPI)');
    expect(await classify('tcp', 41813, 9090, [thriftBinary(1, 'getUser', { nameLen: 200 })])).not.toBe('Thrift (DPI)');
    expect(await classify('udp', 41814, 9091, [call])).not.toBe('Thrift (DPI)');
    expect(await classify('tcp', 41815, 9091, [thriftCompact(1, 'getUser')])).not.toBe('Thrift (DPI)');
    expect(await classify('udp', 41816, 9091, [thriftCompact(5, 'getUser')])).not.toBe('Thrift (DPI)');
    expect(await classify('udp', 41817, 9091, [thriftCompact(1, 'getUser', 2)])).not.toBe('Thrift (DPI)');
  });

  it('Gearman: "\\0REQ" or "\\0RES" on more than 12 bytes', async () => {
    expect(await classify('tcp', 41900, 4730, [gearman('REQ', 7, 'reverse\0\0Hello'), gearman('RES', 8, 'H:gm01:1')])).toBe('Gearman (DPI)');
    expect(await classify('tcp', 41901, 14730, [gearman('RES', 8, 'H:gm01:1')], [false])).toBe('Gearman (DPI)');
    expect(await classify('tcp', 41902, 4730, [gearman('REQ', 9, 'worker\0'), gearman('RES', 10, '')], undefined, V6)).toBe('Gearman (DPI)');
  });

  it('Gearman near misses: 12 bytes, lower case, the text admin protocol', async () => {
    expect(await classify('tcp', 41910, 14730, [gearman('REQ', 16, '')])).not.toBe('Gearman (DPI)');
    expect(await classify('tcp', 41911, 14730, [gearman('req', 7, 'reverse\0\0Hello')])).not.toBe('Gearman (DPI)');
    expect(await classify('tcp', 41912, 14730, [txt('status\n'), gearman('RES', 8, 'H:gm01:1')])).not.toBe('Gearman (DPI)');
  });

  it('OpenWire: a size-prefixed WIREFORMAT_INFO with the ActiveMQ magic', async () => {
    expect(await classify('tcp', 42000, 61616, [openwire(), openwire()])).toBe('OpenWire (DPI)');
    expect(await classify('tcp', 42001, 5000, [openwire()])).toBe('OpenWire (DPI)');
    expect(await classify('tcp', 42002, 61616, [openwire()], undefined, V6)).toBe('OpenWire (DPI)');
    // 23 bytes: just over nDPI's floor
    expect(await classify('tcp', 42003, 5000, [cat(u32(19), bytes(1), txt('ActiveMQ'), u32(12), bytes(0), u32(0), bytes(0))])).toBe('OpenWire (DPI)');
  });

  it('OpenWire near misses: the size, the type, the magic, 22 bytes', async () => {
    expect(await classify('tcp', 42010, 5000, [openwire({ sizeDelta: -1 })])).not.toBe('OpenWire (DPI)');
    expect(await classify('tcp', 42011, 5000, [openwire({ type: 2 })])).not.toBe('OpenWire (DPI)');
    expect(await classify('tcp', 42012, 5000, [openwire({ magic: 'ActiveMq' })])).not.toBe('OpenWire (DPI)');
    expect(await classify('tcp', 42013, 5000, [cat(u32(18), bytes(1), txt('ActiveMQ'), u32(12), bytes(0), u32(0))])).not.toBe('OpenWire (DPI)');
  });

  it('JSON-RPC over TCP: an object of more than 30 bytes with "jsonrpc": either way', async () => {
    // §5 Response objects: a result, an error
    expect(await classify('tcp', 42100, 8545, [txt('{"jsonrpc":"2.0","result":19,"id":1}\n')], [false])).toBe('JSON-RPC (DPI)');
    expect(await classify('tcp', 42101, 8545, [txt('{"id":1,"result":"0x10d4f","jsonrpc":"2.0"}')], [false])).toBe('JSON-RPC (DPI)');
    const err = txt('{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}');
    expect(await classify('tcp', 42102, 4444, [err], [false], V6)).toBe('JSON-RPC (DPI)');
  });

  // Mining (asked first) wants nDPI 4.11's "mining.subscribe",
  // "mining.configure", an xmr-stak agent or "method": "eth_submitLogin": a
  // §4 request object with another method is JSON-RPC.
  it('JSON-RPC over TCP: a §4 request object, not Mining', async () => {
    const req = txt('{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}\n');
    expect(await classify('tcp', 42103, 8545, [req])).toBe('JSON-RPC (DPI)');
  });

  it('JSON-RPC and Thrift over HTTP: the Content-Type of the packet that named the flow HTTP', async () => {
    const post = (ct: string) => txt(`POST /rpc HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: ${ct}\r\nContent-Length: 2\r\n\r\n{}`);
    expect(await classify('tcp', 42120, 8080, [post('application/json-rpc')])).toBe('HTTP.JSON-RPC (DPI)');
    expect(await classify('tcp', 42121, 8080, [post('application/json-rpc; charset=utf-8')], undefined, V6)).toBe('HTTP.JSON-RPC (DPI)');
    expect(await classify('tcp', 42122, 8080, [post('application/vnd.apache.thrift.binary')])).toBe('HTTP.Thrift (DPI)');
    expect(await classify('tcp', 42123, 8080, [post('application/vnd.apache.thrift.compact')])).toBe('HTTP.Thrift (DPI)');
    expect(await classify('tcp', 42124, 8080, [post('application/vnd.apache.thrift.json; charset=utf-8')], undefined, V6)).toBe('HTTP.Thrift (DPI)');
    // the response named HTTP first
    const resp = txt('HTTP/1.1 200 OK\r\nContent-Type: application/vnd.apache.thrift.binary\r\nContent-Length: 0\r\n\r\n');
    expect(await classify('tcp', 42125, 8080, [resp], [false])).toBe('HTTP.Thrift (DPI)');
    // near misses: another media type, case, a space before ';'
    expect(await classify('tcp', 42126, 8080, [post('application/vnd.apache.thrift.binaryx')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 42127, 8080, [post('application/vnd.apache.Thrift.binary')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 42128, 8080, [post('application/vnd.apache.thrift.binary ; q=1')])).toBe('HTTP (DPI)');
  });

  // nDPI needs the Content-Type value (cut at ';') to *end* with
  // application/json-rpc, case as written.
  it('JSON-RPC over HTTP near misses: a longer type, another case', async () => {
    const post = (ct: string) => txt(`POST /rpc HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: ${ct}\r\nContent-Length: 2\r\n\r\n{}`);
    expect(await classify('tcp', 42130, 8080, [post('application/json-rpc-x')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 42131, 8080, [post('Application/JSON-RPC')])).toBe('HTTP (DPI)');
  });

  it('JSON-RPC near misses: a space before the colon, a batch array, 30 bytes, a NUL first, not the first packet', async () => {
    expect(await classify('tcp', 42110, 8545, [txt('{"jsonrpc" : "2.0", "result": 19, "id": 1}')])).not.toBe('JSON-RPC (DPI)');
    expect(await classify('tcp', 42111, 8545, [txt('[{"jsonrpc":"2.0","result":19,"id":1}]')])).not.toBe('JSON-RPC (DPI)');
    const thirty = txt('{"jsonrpc":"2.0","id":1,"r":0}');
    expect(thirty.length).toBe(30);
    expect(await classify('tcp', 42112, 8545, [thirty])).not.toBe('JSON-RPC (DPI)');
    expect(await classify('tcp', 42113, 8545, [txt('{"x":1}\0{"jsonrpc":"2.0","result":19,"id":1}')])).not.toBe('JSON-RPC (DPI)');
    expect(await classify('tcp', 42114, 8545, [txt('hello\n'), txt('{"jsonrpc":"2.0","result":0,"id":1}')], [true, true])).not.toBe('JSON-RPC (DPI)');
  });

  it('JRMI: the "JRMI" magic, version and protocol', async () => {
    // magic, version 2, StreamProtocol (0x4b); the server's ProtocolAck (0x4e)
    expect(await classify('tcp', 42200, 1099, [cat(txt('JRMI'), u16(2), bytes(0x4b)), cat(bytes(0x4e), u16(9), txt('10.0.0.1'), u32(42200))])).toBe('JRMI (DPI)');
    expect(await classify('tcp', 42201, 40000, [cat(txt('JRMI'), u16(2))])).toBe('JRMI (DPI)');
    expect(await classify('tcp', 42202, 1099, [cat(txt('JRMI'), u16(2), bytes(0x4c))], undefined, V6)).toBe('JRMI (DPI)');
  });

  it('JRMI near misses: 5 bytes, lower case', async () => {
    expect(await classify('tcp', 42210, 40000, [cat(txt('JRMI'), bytes(0))])).not.toBe('JRMI (DPI)');
    expect(await classify('tcp', 42211, 40000, [cat(txt('jrmi'), u16(2), bytes(0x4b))])).not.toBe('JRMI (DPI)');
  });

  it('FastCGI: PARAMS names the flow by HTTP_HOST; other records from the 3rd packet', async () => {
    const r = await run('tcp', 42300, 9000, [fcgiBegin, fcgiParams('www.example.com')], [true, true]);
    expect([l7Name(r.flow.l7_master, r.flow.l7_app), r.flow.host_name]).toEqual(['FastCGI', 'www.example.com']);
    // a host a known application claims: App.FastCGI, as nDPI stacks it
    expect(await classify('tcp', 42301, 9000, [fcgiBegin, fcgiParams('www.google.com')], [true, true])).toBe('Google.FastCGI (DPI)');
    // PARAMS first, alone; over IPv6
    expect(await classify('tcp', 42302, 9000, [fcgiParams('app.internal')], undefined, V6)).toBe('FastCGI (DPI)');
    // pairs overrunning the record: FastCGI with the malformed-packet risk
    const bad = fcgi(FCGI_PARAMS, cat(bytes(9, 40), txt('HTTP_HOST'), txt('short')));
    const m = await run('tcp', 42303, 9000, [bad]);
    expect(l7Name(m.flow.l7_master, m.flow.l7_app)).toBe('FastCGI');
    expect(m.flow.risks).toContain('Malformed Packet');
    // a host with a space: nDPI's invalid-characters and exploit risks
    const x = await run('tcp', 42304, 9000, [fcgiParams('www.exa mple.com')]);
    expect(x.flow.risks).toEqual(expect.arrayContaining(['Non-Printable/Invalid Chars Detected', 'Possible Exploit Attempt']));
    // BEGIN_REQUEST, STDOUT, END_REQUEST: named on the 3rd packet
    expect(await classify('tcp', 42305, 9000, [fcgiBegin, fcgi(FCGI_STDOUT, txt('Status: 200\r\n\r\nok'), 3), fcgi(FCGI_END, Buffer.alloc(8, 0))])).toBe('FastCGI (DPI)');
  });

  it('FastCGI near misses: version, type, length, two records only, an empty PARAMS', async () => {
    expect(await classify('tcp', 42310, 9000, [fcgi(FCGI_PARAMS, fcgiPairs([['HTTP_HOST', 'a.b']]), 0, 2)])).not.toBe('FastCGI (DPI)');
    expect(await classify('tcp', 42311, 9000, [fcgi(12, fcgiPairs([['HTTP_HOST', 'a.b']]))])).not.toBe('FastCGI (DPI)');
    expect(await classify('tcp', 42312, 9000, [fcgi(FCGI_PARAMS, fcgiPairs([['HTTP_HOST', 'a.b']]), 0, 1, 1)])).not.toBe('FastCGI (DPI)');
    expect(await classify('tcp', 42313, 9000, [fcgiBegin, fcgi(FCGI_STDOUT, txt('Status: 200\r\n\r\nok'))])).not.toBe('FastCGI (DPI)');
    expect(await classify('tcp', 42314, 9000, [fcgiBegin, fcgi(FCGI_PARAMS, Buffer.alloc(0))], [true, true])).not.toBe('FastCGI (DPI)');
    // a valid record, then one with a bad version: ruled out on the 2nd packet
    expect(await classify('tcp', 42315, 9000, [fcgiBegin, fcgi(FCGI_STDOUT, txt('x'), 0, 0), fcgi(FCGI_END, Buffer.alloc(8, 0))])).not.toBe('FastCGI (DPI)');
  });

  it('SOAP: a SOAPAction line outside HTTP, an XML declaration; HTTP.SOAP from the HTTP dissector', async () => {
    expect(await classify('tcp', 42400, 7001, [txt('SOAPAction: "urn:GetQuote"\r\nContent-Length: 0\r\n\r\n')])).toBe('SOAP (DPI)');
    expect(await classify('tcp', 42401, 7001, [txt('X-CALL /svc\r\nSOAPAction: "urn:GetQuote"\r\n\r\n<x/>')], undefined, V6)).toBe('SOAP (DPI)');
    const env = txt('<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body/></soap:Envelope>');
    // nDPI (soap.c) remembers the declaration and names the flow on its 4th payload packet
    const more = txt('<soap:Body/>');
    expect(await classify('tcp', 42402, 7001, [env, more, more, more])).toBe('SOAP (DPI)');
    expect(await classify('tcp', 42404, 7001, [env])).not.toBe('SOAP (DPI)');
    // SOAP 1.1 over HTTP (§6.1.1): the HTTP dissector's sub-protocol
    const post = txt('POST /StockQuote HTTP/1.1\r\nHost: www.stockquoteserver.com\r\nContent-Type: text/xml; charset="utf-8"\r\nSOAPAction: "Some-URI"\r\n\r\n');
    expect(await classify('tcp', 42403, 80, [post])).toBe('HTTP.SOAP (DPI)');
  });

  it('SOAP near misses: lower case, after the empty line, too late, another XML declaration', async () => {
    expect(await classify('tcp', 42410, 7001, [txt('soapaction: "urn:GetQuote"\r\n\r\n')])).not.toBe('SOAP (DPI)');
    expect(await classify('tcp', 42411, 7001, [txt('X-CALL /svc\r\n\r\nSOAPAction: "urn:GetQuote"\r\n')])).not.toBe('SOAP (DPI)');
    const late = [...Array(4).fill(txt('noise\r\n')), txt('SOAPAction: "urn:GetQuote"\r\n\r\n')];
    expect(await classify('tcp', 42412, 7001, late)).not.toBe('SOAP (DPI)');
    expect(await classify('tcp', 42413, 7001, [txt('<?xml version="1.1"?><data/>')])).not.toBe('SOAP (DPI)');
  });

  // nDPI's line test is case as written ("SOAPAction").
  it('SOAP over HTTP near miss: a lower-case soapaction header', async () => {
    const post = txt('POST /svc HTTP/1.1\r\nHost: example.com\r\nsoapaction: "x"\r\nContent-Length: 0\r\n\r\n');
    expect(await classify('tcp', 42420, 8091, [post])).toBe('HTTP (DPI)');
  });

  it('Raft: a known message type with its length, or any known type from the 3rd packet', async () => {
    expect(await classify('tcp', 42500, 9001, [raft(3, requestVote)])).toBe('Raft (DPI)');
    expect(await classify('tcp', 42501, 9001, [raft(4, cat(le64(3), le64(1)))], [false])).toBe('Raft (DPI)');
    expect(await classify('tcp', 42502, 9001, [raft(1, requestVote, 100), raft(2, requestVote, 100), raft(6, requestVote, 100)])).toBe('Raft (DPI)');
    expect(await classify('tcp', 42503, 9001, [raft(5, requestVote)], undefined, V6)).toBe('Raft (DPI)');
  });

  it('Raft near misses: unknown types, 15 bytes, two packets with wrong lengths', async () => {
    expect(await classify('tcp', 42510, 9001, [raft(7, requestVote)])).not.toBe('Raft (DPI)');
    expect(await classify('tcp', 42511, 9001, [raft(0, requestVote)])).not.toBe('Raft (DPI)');
    expect(await classify('tcp', 42512, 9001, [raft(3, Buffer.alloc(0)).subarray(0, 15)])).not.toBe('Raft (DPI)');
    expect(await classify('tcp', 42513, 9001, [raft(1, requestVote, 100), raft(2, requestVote, 100)])).not.toBe('Raft (DPI)');
    expect(await classify('tcp', 42514, 9001, [raft(1, requestVote, 100), raft(9, requestVote), raft(1, requestVote)])).not.toBe('Raft (DPI)');
  });

  it('Munin: the node\'s greeting names the flow', async () => {
    const r = await run('tcp', 42600, 4949, [txt('# munin node at server01.example.com\n'), txt('list\n')], [false, true]);
    expect([l7Name(r.flow.l7_master, r.flow.l7_app), r.flow.host_name]).toEqual(['Munin', 'server01.example.com']);
    expect(await classify('tcp', 42601, 14949, [txt('# munin node at node7\n')], [false], V6)).toBe('Munin (DPI)');
    // no final newline: still Munin, with the malformed-packet risk
    const m = await run('tcp', 42602, 4949, [txt('# munin node at node7')], [false]);
    expect(l7Name(m.flow.l7_master, m.flow.l7_app)).toBe('Munin');
    expect(m.flow.risks).toContain('Malformed Packet');
  });

  it('Munin near misses: capital M, the client first', async () => {
    expect(await classify('tcp', 42610, 14949, [txt('# Munin node at node7\n')], [false])).not.toBe('Munin (DPI)');
    expect(await classify('tcp', 42611, 14949, [txt('list\n'), txt('# munin node at node7\n')])).not.toBe('Munin (DPI)');
  });

  it('CHECKMK: a short "<<<check_mk>>>" packet, after large packets passed over', async () => {
    const head = txt('<<<check_mk>>>\nVersion: 2.2.0p12\nAgentOS: linux\nHostname: web01\n');
    expect(await classify('tcp', 42700, 6556, [head], [false])).toBe('CHECKMK (DPI)');
    expect(await classify('tcp', 42701, 16556, [head], [false], V6)).toBe('CHECKMK (DPI)');
    const big = Buffer.alloc(200, 0x41);
    expect(await classify('tcp', 42702, 16556, [big, big, big, big, big, big, head], Array(7).fill(false))).toBe('CHECKMK (DPI)');
  });

  it('CHECKMK near misses: 100 bytes, 14 bytes, too many large packets first, another text', async () => {
    const hundred = cat(txt('<<<check_mk>>>\n'), Buffer.alloc(85, 0x61));
    expect(await classify('tcp', 42710, 16556, [hundred], [false])).not.toBe('CHECKMK (DPI)');
    expect(await classify('tcp', 42711, 16556, [txt('<<<check_mk>>>')], [false])).not.toBe('CHECKMK (DPI)');
    const big = Buffer.alloc(200, 0x41);
    const head = txt('<<<check_mk>>>\nVersion: 2.2.0p12\n');
    expect(await classify('tcp', 42712, 16556, [...Array(7).fill(big), head], Array(8).fill(false))).not.toBe('CHECKMK (DPI)');
    expect(await classify('tcp', 42713, 16556, [txt('<<<df>>>\n/dev/sda1 ext4 100 50 50 50% /\n')], [false])).not.toBe('CHECKMK (DPI)');
  });

  it('collectd: three parts of known types, the encryption part alone', async () => {
    const r = await run('udp', 42800, 25826, [cdFull('web01')], [true]);
    expect([l7Name(r.flow.l7_master, r.flow.l7_app), r.flow.host_name]).toEqual(['collectd', 'web01']);
    expect(await classify('udp', 42801, 35826, [cat(cdNumber(0x0001, 1700000000), cdString(0x0002, 'load'), cdValues)])).toBe('collectd (DPI)');
    expect(await classify('udp', 42802, 25826, [cdEncrypted(5)])).toBe('collectd (DPI)');
    // a signature part first (HMAC + user name), then the data
    expect(await classify('udp', 42803, 25826, [cat(cdPart(0x0200, cat(Buffer.alloc(32, 0x11), txt('admin'))), cdFull('web02'))], undefined, V6)).toBe('collectd (DPI)');
  });

  it('collectd near misses: two parts, an unknown type, a zero length, the encryption part not spanning the datagram or its user too long', async () => {
    expect(await classify('udp', 42810, 25826, [cat(cdString(0x0000, 'web01'), cdNumber(0x0008, 1))])).not.toBe('collectd (DPI)');
    expect(await classify('udp', 42811, 25826, [cat(cdString(0x0000, 'web01'), cdString(0x0099, 'x'), cdNumber(0x0008, 1), cdValues)])).not.toBe('collectd (DPI)');
    expect(await classify('udp', 42812, 25826, [cat(cdString(0x0000, 'web01'), u16(0x0001), u16(0), cdNumber(0x0008, 1), cdValues)])).not.toBe('collectd (DPI)');
    expect(await classify('udp', 42813, 25826, [cdEncrypted(5, -1)])).not.toBe('collectd (DPI)');
    expect(await classify('udp', 42814, 25826, [cdEncrypted(60)])).not.toBe('collectd (DPI)');
  });
});
