// ④ Apache Cassandra, TCP: the CQL native protocol (native_protocol_v4.spec
// §2 frame header: version, flags, stream, opcode, length; §4.1.1 STARTUP,
// a [string map] that must hold CQL_VERSION) and the internode protocol
// (messaging service preamble, magic 0xCA552DFA).
// As nDPI: a 19-byte packet opening with the internode magic is Cassandra
// at once; otherwise a packet shorter than a v3+ frame header (9 bytes), or
// the 8th payload packet, rules it out; a packet longer than 60 bytes with
// "CQL_VERSION" exactly 20 bytes before its end is Cassandra: nDPI means
// the client's STARTUP map, but the position fits a server's SUPPORTED
// multimap (§4.2.4) ending with CQL_VERSION and one 5-character version
// ("3.4.5"), or a STARTUP whose last value, CQL_VERSION's, has 7 characters.
// nDPI also tests the version byte, but its test can never fail (its
// helpers answer 1 or -1, both true), so neither do we. Not kept (no
// scratch slot): nDPI gives up when one direction already sent 3 payload
// packets; we ask until the 7th payload packet of the flow either way.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint32_t kInternodeMagic = 0xCA552DFA;
constexpr size_t kInternodeLen = 19;
constexpr size_t kFrameHeader = 9;  // protocol v3 and later
constexpr std::string_view kCqlVersion = "CQL_VERSION";

Verdict classify_cassandra(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() == kInternodeLen && load_be32(b.data()) == kInternodeMagic) {
    m.app = id(ProtoId::Cassandra);
    return Verdict::Match;
  }
  if (b.size() < kFrameHeader || c.flow.dpi_packets >= 8) return Verdict::No;
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
