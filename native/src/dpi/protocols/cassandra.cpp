// ④ Apache Cassandra, TCP: the CQL native protocol (native_protocol_v4.spec
// §2 frame header: version, flags, stream, opcode, length; §4.1.1 STARTUP,
// a [string map] that must hold CQL_VERSION) and the internode protocol
// (messaging service preamble, magic 0xCA552DFA).
// As nDPI's cassandra.c, on each payload segment, IPv4 or IPv6:
// - a 19-byte segment opening with the internode magic is Cassandra at once;
// - otherwise a segment shorter than a v3+ frame header (9 bytes), or the
//   flow's 8th payload packet, rules it out, and so does a third payload
//   packet of one nDPI direction (ndpi_direction.h);
// - a segment longer than 60 bytes with "CQL_VERSION" exactly 20 bytes
//   before its end is Cassandra: nDPI means the client's STARTUP map, but
//   the position fits a server's SUPPORTED multimap (§4.2.4) ending with
//   CQL_VERSION and one 5-character version ("3.4.5"), or a STARTUP whose
//   last value, CQL_VERSION's, has 7 characters.
// nDPI also tests the version byte, but its test can never fail (its
// helpers answer 1 or -1, both true), so neither do we.
// State: the payload packets seen per nDPI direction, two bits each, in
// bits 0-3 of kScratchTcpBits (dpi.h). Difference kept: nDPI's counts also
// take in TCP retransmissions, which no dissector here is shown.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint32_t kInternodeMagic = 0xCA552DFA;
constexpr size_t kInternodeLen = 19;
constexpr size_t kFrameHeader = 9;  // protocol v3 and later
constexpr std::string_view kCqlVersion = "CQL_VERSION";

// This packet counted in its nDPI direction (saturating at 3); the count.
uint8_t count_packet(DpiCtx& c) {
  uint8_t* bits = c.scratch(kScratchTcpBits);
  if (!bits) return 0;  // no state to keep: the rule is not applied
  const int shift = 2 * ndpi_direction(c.p);
  uint8_t n = (*bits >> shift) & 3;
  if (n < 3) n++;
  *bits = uint8_t((*bits & ~(3 << shift)) | n << shift);
  return n;
}

Verdict classify_cassandra(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t in_dir = count_packet(c);
  if (b.size() == kInternodeLen && load_be32(b.data()) == kInternodeMagic) {
    m.app = id(ProtoId::Cassandra);
    return Verdict::Match;
  }
  if (b.size() < kFrameHeader || c.flow.dpi_packets >= 8 || in_dir > 2) return Verdict::No;
  if (b.size() > 60 && has_at(b, b.size() - 20, kCqlVersion)) {
    m.app = id(ProtoId::Cassandra);
    return Verdict::Match;
  }
  return Verdict::NeedMore;
}

}  // namespace

// The 8th packet is still asked: a 19-byte internode preamble names it there.
FG_DISSECTOR(cassandra, {"Cassandra", id(ProtoId::Cassandra), kL4Tcp, 8, classify_cassandra});

}  // namespace fg
