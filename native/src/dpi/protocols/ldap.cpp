// ④ LDAP (RFC 4511), as nDPI's ldap.c, over TCP or UDP on any port, on the
// flow's first payload packet (anything else excludes): a BER SEQUENCE
// (0x30) with a non-zero definite length (its value is not compared with
// the packet), an INTEGER messageID, then a protocolOp byte that is a
// constructed application tag (0x60 bits set) of number 25 or less.
// Primitive ops (unbindRequest 0x42, delRequest 0x4a, abandon 0x50) are not
// LDAP to nDPI.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ldap(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n <= 1 || b[0] != 0x30) return Verdict::No;
  size_t ll = 0;
  if (ber_length(b, 1, ll) <= 0) return Verdict::No;
  if (n <= ll + 2 || b[1 + ll] != 0x02) return Verdict::No;
  const size_t id_len = b[2 + ll];
  if (n <= 3 + ll + id_len) return Verdict::No;
  const uint8_t op = b[3 + ll + id_len];
  if ((op & 0x60) != 0x60 || (op & 0x1f) > 25) return Verdict::No;
  m.app = id(ProtoId::LDAP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ldap, {"LDAP", id(ProtoId::LDAP), kL4Both, 1, classify_ldap});

}  // namespace fg
