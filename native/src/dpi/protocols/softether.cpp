// ④ SoftEther VPN over UDP (SoftEther VPN source, Mayaqua/Pack.c: the PACK
// serialisation; Cedar's NAT-traversal / UDP acceleration helpers). nDPI
// names a UDP flow SoftEther on one of three datagram shapes:
//  - a single byte 0x41 is a keep-alive: it lets the flow through (no
//    verdict) within its first two packets, later or any other single byte
//    rules it out;
//  - 10 to 29 bytes of text "IP=<addr>,PORT=<port>" (the address report of
//    the NAT-traversal server);
//  - 99 bytes or more holding exactly one PACK: a big-endian element count
//    (non-zero, at most an eighth of the datagram), then per element its name
//    (u32 length + 1, then the name's bytes), value type (0 int, 1 data,
//    2 str, 3 unistr, 4 int64) and value count, then the values. nDPI walks
//    it with a fixed model: after the first name, per element two "type"
//    words (type and count, both ≤ 4), then one value read by each (the
//    count word 1 reads the next element's name as data); the datagram must
//    end exactly where the last element does.
// Anything else rules the flow out. nDPI keeps reading later packets for the
// host name / FQDN / IP metadata it stores; we keep only the classification.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint8_t kKeepAlive = 0x41;
enum : uint32_t { kInt = 0, kData = 1, kStr = 2, kUniStr = 3, kInt64 = 4 };

// Bytes one value of PACK type `t` takes at `b` as nDPI counts them (a
// length-prefixed name or data counts one byte less, its "+1"), 0 when it
// does not fit.
size_t value_len(uint32_t t, Bytes b) {
  switch (t) {
    case kInt: return b.size() >= 4 ? 4 : 0;
    case kInt64: return b.size() >= 8 ? 8 : 0;
    default: {
      if (b.size() < 4) return 0;
      const uint64_t n = load_be32(b.data());
      if (n == 0 || b.size() - 4 < n) return 0;
      return size_t(n) + (t == kData ? 3 : 4);
    }
  }
}

bool pack_shaped(Bytes b) {
  if (b.size() < 4) return false;
  uint64_t left = load_be32(b.data());
  if (left == 0 || left * 8 > b.size()) return false;
  b = b.subspan(4);
  const size_t name = value_len(kData, b);  // the first element's name
  if (!name) return false;
  b = b.subspan(name);
  for (; left > 0; --left) {
    if (b.size() < 8) break;
    const uint32_t t1 = load_be32(b.data()), t2 = load_be32(b.data() + 4);
    if (t1 > kInt64 || t2 > kInt64) break;
    b = b.subspan(8);
    b = b.subspan(value_len(t1, b));
    b = b.subspan(value_len(t2, b));
  }
  return left == 0 && b.empty();
}

// "IP=" then ",PORT=" somewhere after it, searched (as nDPI does) only up
// to the first NUL byte.
bool ip_port_shaped(Bytes b) {
  if (!has_at(b, 0, "IP=")) return false;
  Bytes rest = b.subspan(3);
  size_t text = 0;
  while (text < rest.size() && rest[text]) text++;
  return contains(rest.first(text), ",PORT=");
}

Verdict classify_softether(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() == 1) return b[0] == kKeepAlive && c.flow.dpi_packets <= 2 ? Verdict::NeedMore : Verdict::No;
  const bool hit = (b.size() > 9 && b.size() < 30 && ip_port_shaped(b)) || (b.size() >= 99 && pack_shaped(b));
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Softether);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(softether, {"Softether", id(ProtoId::Softether), kL4Udp, 3, classify_softether});

}  // namespace fg
