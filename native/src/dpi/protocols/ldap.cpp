// ④ LDAP (RFC 4511): every message is a BER SEQUENCE holding an INTEGER
// messageID and an application-tagged protocolOp — bindRequest 0x60,
// bindResponse 0x61, unbindRequest 0x42, searchRequest 0x63, searchResEntry
// 0x64, searchResDone 0x65, extendedReq 0x77 (StartTLS) … The SEQUENCE length
// must not exceed what follows (a message may span segments) when on the
// LDAP ports, and must match it exactly elsewhere.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool ldap_op(uint8_t t) {
  switch (t) {
    case 0x60: case 0x61: case 0x42: case 0x63: case 0x64: case 0x65:
    case 0x66: case 0x67: case 0x68: case 0x69: case 0x4a: case 0x6b:
    case 0x6c: case 0x6d: case 0x6e: case 0x6f: case 0x50: case 0x73:
    case 0x77: case 0x78: case 0x79:
      return true;
    default:
      return false;
  }
}

Verdict classify_ldap(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 7 || b[0] != 0x30) return Verdict::No;
  size_t i = 1, len;
  uint8_t l = b[i++];
  if (l & 0x80) {
    size_t k = l & 0x7f;
    if (k == 0 || k > 4 || i + k > b.size()) return Verdict::No;
    len = 0;
    while (k--) len = (len << 8) | b[i++];
  } else {
    len = l;
  }
  bool port = c.srv_port == 389 || c.cli_port == 389 || c.srv_port == 3268 || c.cli_port == 3268;
  if (port ? i + len < b.size() : i + len != b.size()) return Verdict::No;
  if (i + 2 > b.size() || b[i] != 0x02) return Verdict::No;
  uint8_t idlen = b[i + 1];
  if (idlen < 1 || idlen > 4) return Verdict::No;
  i += 2 + idlen;
  if (i >= b.size() || !ldap_op(b[i])) return Verdict::No;
  m.app = id(ProtoId::LDAP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ldap, {"LDAP", id(ProtoId::LDAP), kL4Both, 2, classify_ldap});

}  // namespace fg
