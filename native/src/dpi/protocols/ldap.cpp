// ④ LDAP (RFC 4511), as nDPI's ldap.c, over TCP or UDP on any port, on the
// flow's first payload packet (anything else excludes): a BER SEQUENCE
// (0x30) with a non-zero definite length (its value is not compared with
// the packet), an INTEGER messageID, then a protocolOp byte that is a
// constructed application tag (0x60 bits set) of number 25 or less.
// Primitive ops (unbindRequest 0x42, delRequest 0x4a, abandon 0x50) are not
// LDAP to nDPI.
#include "dpi/dpi.h"

namespace fg {
namespace {

// nDPI's BER length reading at b[at]: the value, or -1; `n` gets the
// length's own size. 0x80 reads as a short length of 128, as nDPI does.
int64_t ber_length(Bytes b, size_t at, size_t& n) {
  if (at >= b.size()) return -1;
  const size_t avail = b.size() - at;
  const uint8_t first = b[at];
  if (first == 0xff) return -1;
  if (first <= 0x80) {
    n = 1;
    return first;
  }
  const size_t k = first & 0x7f;
  if (k > 4 || avail <= k + 1) return -1;
  uint64_t v = 0;
  for (size_t i = 1; i <= k; i++) v = v << 8 | b[at + i];
  n = k + 1;
  return int64_t(v);
}

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
