// ④ Apache Thrift (thrift.apache.org, doc/specs/thrift-binary-protocol.md
// and thrift-compact-protocol.md), TCP or UDP.
// Strict binary protocol: 0x80, version byte 0x01, an unused byte, the
// message type (1 call, 2 reply, 3 exception, 4 oneway), a 32-bit method
// name length, the name. Compact protocol: 0x82, a byte holding the type
// in its top 3 bits and the version (1) in its low 5, the sequence id, the
// method name length and the name.
// As nDPI, one packet decides, 6 bytes at least: 0x80 must be TCP, at
// least 8 bytes plus the name, version ≤ 1, type ≤ 4; 0x82 must be UDP,
// nDPI reading the sequence id as 3 bytes and the name length at offset 5,
// with the same version and type limits; any other first byte rules it
// out. nDPI's risks on a match are kept: a method name not printable
// (invalid characters), type 0 (malformed), an exception (error code).
// Over HTTP (asked as HTTP's sub-protocol on the packet that named the
// flow HTTP): a Content-Type ending with application/vnd.apache.thrift.
// binary, .compact or .json makes it HTTP.Thrift; anything else leaves it.
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr uint8_t kStrict = 0x80, kCompact = 0x82;
constexpr size_t kStrictHeader = 8, kCompactHeader = 6;
constexpr uint8_t kException = 3, kTypeLimit = 5;

bool printable(Bytes b) {
  for (uint8_t ch : b)
    if (ch < 0x20 || ch > 0x7e) return false;
  return true;
}

Verdict classify_thrift(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (flow_is_http(c)) {
    const char* v;
    size_t n;
    if (!ndpi_content_type(b, v, n)) return Verdict::NeedMore;
    if (!value_ends(v, n, "application/vnd.apache.thrift.binary") && !value_ends(v, n, "application/vnd.apache.thrift.compact") &&
        !value_ends(v, n, "application/vnd.apache.thrift.json"))
      return Verdict::NeedMore;
    m.master = id(ProtoId::HTTP), m.app = id(ProtoId::Thrift);
    return Verdict::Match;
  }
  if (b.size() < kCompactHeader) return Verdict::No;
  uint8_t version, type;
  size_t name_at, name_len;
  if (b[0] == kStrict) {
    if (b.size() < kStrictHeader || c.p.l4_proto != kProtoTcp) return Verdict::No;
    name_at = kStrictHeader, name_len = load_be32(b.data() + 4);
    version = b[1], type = b[3];
  } else if (b[0] == kCompact) {
    if (c.p.l4_proto != kProtoUdp) return Verdict::No;
    name_at = kCompactHeader, name_len = b[5];
    version = b[1] & 0x1f, type = b[1] >> 5;
  } else {
    return Verdict::No;
  }
  if (b.size() - name_at < name_len || version > 1 || type >= kTypeLimit) return Verdict::No;
  if (!printable(b.subspan(name_at, name_len))) c.risk(Risk::InvalidCharacters);
  if (type == 0) c.risk(Risk::MalformedPacket);
  if (type == kException) c.risk(Risk::ErrorCode);
  m.app = id(ProtoId::Thrift);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(thrift, {"Thrift", id(ProtoId::Thrift), kL4Both, 1, classify_thrift});

}  // namespace fg
