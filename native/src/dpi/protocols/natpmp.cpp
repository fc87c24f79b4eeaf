// ④ NAT-PMP (RFC 6886 §3), UDP, port 5351: version 0, then an opcode —
// 0 external-address request (2 bytes in all), 1 / 2 UDP / TCP mapping
// request (12 bytes: reserved 0, internal port, suggested external port,
// lifetime); answers add 128 and carry a result code 0..5 (§3.5): the
// address answer is 12 bytes (epoch, external IPv4), a mapping answer 16.
// nDPI's rule, kept: a packet of exactly that shape; named at once when
// either port is 5351, else only from the third payload packet on and not
// for the 2-byte address request (a shape that short is too common);
// a packet of any other shape rules NAT-PMP out.
// Its malformed-packet checks are kept too, on the naming packet and on up
// to 5 packets after it (reading on after the match, as nDPI does): a
// mapping request for internal port 0, an address answer with an error code
// and an address anyway, a mapping answer with a zero port; a later packet
// of no NAT-PMP shape raises it and ends the reading (nDPI's
// src/lib/protocols/natpmp.c).
// Difference kept: nDPI's reading on also gets the flow's empty datagrams
// (an empty one there raises the risk); no dissector here sees a packet
// without payload.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kPort = 5351;

// The opcode when the packet has one of RFC 6886's shapes, else -1.
int natpmp_opcode(Bytes b) {
  if (b.size() < 2 || b[0] != 0) return -1;
  const uint8_t op = b[1];
  switch (op) {
    case 0x00: return b.size() == 2 ? op : -1;
    case 0x01:
    case 0x02: return b.size() == 12 && load_be16(b.data() + 2) == 0 ? op : -1;
    case 0x80:
    case 0x81:
    case 0x82:
      if (b.size() != (op == 0x80 ? 12u : 16u)) return -1;
      return load_be16(b.data() + 2) <= 5 ? op : -1;
    default: return -1;
  }
}

constexpr uint8_t kExtraPackets = 5;  // nDPI's reading on after the match

// A well-shaped message with values RFC 6886 rules out (§3.3: internal port
// 0 in a request; §3.2: an address despite an error; a zero port answered).
bool odd_values(Bytes b, int op) {
  if (op == 0x01 || op == 0x02) return load_be16(b.data() + 4) == 0;
  if (op == 0x80) return load_be16(b.data() + 2) != 0 && load_be32(b.data() + 8) != 0;
  if (op == 0x81 || op == 0x82) return load_be16(b.data() + 8) == 0 || load_be16(b.data() + 10) == 0;
  return false;
}

Verdict classify_natpmp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const int op = natpmp_opcode(b);
  if (c.extra) {  // after the match: FlowInfo::state[0] counts the packets read
    if (op < 0) {
      c.risk(Risk::MalformedPacket);
      return Verdict::No;
    }
    if (odd_values(b, op)) c.risk(Risk::MalformedPacket);
    return !c.info || ++c.info->state[0] >= kExtraPackets ? Verdict::No : Verdict::NeedMore;
  }
  if (op < 0) return Verdict::No;
  const bool port = c.srv_port == kPort || c.cli_port == kPort;
  if (!port && (c.flow.dpi_packets <= 2 || op == 0x00)) return Verdict::NeedMore;
  if (odd_values(b, op)) c.risk(Risk::MalformedPacket);
  m.app = id(ProtoId::NAT_PMP);
  if (c.info) {
    c.info->state[0] = 0;
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(natpmp, {"NAT-PMP", id(ProtoId::NAT_PMP), kL4Udp, kMaxDpiPackets, classify_natpmp});

}  // namespace fg
