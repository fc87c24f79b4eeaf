// ④ Gnutella over TCP: the handshake line ("GNUTELLA CONNECT/…" or the
// answer "GNUTELLA/…"), or one of the TLS-looking hellos some servents
// send (SSLv2-style 46 and 49 bytes, TLS 1.0 hellos of 89 and 82 bytes
// with fixed random and cipher bytes). Registered before TLS, which would
// otherwise take those hellos. One-byte packets are skipped.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool servent_hello(Bytes b) {
  const uint8_t* p = b.data();
  switch (b.size()) {
    case 46:
      return load_be32(p) == 0x802c0103 && load_be32(p + 4) == 0x01000300 && load_be32(p + 8) == 0x00002000 && load_be16(p + 12) == 0x0034;
    case 49:
      return std::memcmp(p, "\x80\x2f\x01\x03\x01\x00\x06\x00\x00\x00\x20\x00\x00\x34\x00\x00\xff\x4d\x6c", 19) == 0;
    case 89:
      return std::memcmp(p, "\x16\x03\x01\x00\x54\x01\x00\x00\x50\x03\x01\x4d\x6c", 13) == 0 && std::memcmp(p + 43, "\x20\x4d\x6c", 3) == 0 &&
             std::memcmp(p + 76, "\x00\x02\x00\x34\x01\x00\x00\x05", 8) == 0;
    case 82:
      return load_be32(p) == 0x16030100 && load_be32(p + 4) == 0x4d010000 && load_be16(p + 8) == 0x4903 && load_be16(p + 76) == 0x0002 &&
             load_be32(p + 78) == 0x00340100;
    default:
      return false;
  }
}

Verdict classify_gnutella(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 2) return Verdict::NeedMore;
  if ((b.size() > 17 && has_at(b, 0, "GNUTELLA CONNECT/")) || (b.size() > 10 && has_at(b, 0, "GNUTELLA/")) || servent_hello(b)) {
    m.app = id(ProtoId::Gnutella);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(gnutella, {"Gnutella", id(ProtoId::Gnutella), kL4Tcp, 3, classify_gnutella});

}  // namespace fg
