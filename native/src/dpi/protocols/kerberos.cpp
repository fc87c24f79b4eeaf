// ④ Kerberos v5 (RFC 4120): messages are DER with an application tag —
// AS-REQ 0x6a, AS-REP 0x6b, TGS-REQ 0x6c, TGS-REP 0x6d, KRB-ERROR 0x7e —
// wrapping a SEQUENCE whose first field is pvno = 5 ([1] in requests, [0]
// in replies and errors). Over TCP each message carries a 4-byte length.
#include "dpi/dpi.h"

namespace fg {
namespace {

// Skips a DER length at b[i]; false when malformed or truncated.
bool der_len(Bytes b, size_t& i) {
  if (i >= b.size()) return false;
  uint8_t l = b[i++];
  if (l & 0x80) {
    size_t k = l & 0x7f;
    if (k == 0 || k > 3) return false;
    i += k;
  }
  return i < b.size();
}

bool krb_message(Bytes b, size_t i) {
  if (i >= b.size()) return false;
  uint8_t tag = b[i++];
  uint8_t pvno_field;
  switch (tag) {
    case 0x6a: case 0x6c: pvno_field = 0xa1; break;
    case 0x6b: case 0x6d: case 0x7e: pvno_field = 0xa0; break;
    default: return false;
  }
  if (!der_len(b, i) || b[i++] != 0x30 || !der_len(b, i)) return false;
  if (i + 5 > b.size()) return false;
  return b[i] == pvno_field && b[i + 1] == 3 && b[i + 2] == 2 && b[i + 3] == 1 && b[i + 4] == 5;
}

Verdict classify_kerberos(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool tcp = c.p.l4_proto == kProtoTcp;
  if (tcp) {
    if (b.size() < 4 + 10) return Verdict::No;
    uint32_t len = load_be32(b.data());
    if (len < b.size() - 4 || len > 65535) return Verdict::No;
  }
  if (!krb_message(b, tcp ? 4 : 0)) return Verdict::No;
  m.app = id(ProtoId::Kerberos);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(kerberos, {"Kerberos", id(ProtoId::Kerberos), kL4Both, 2, classify_kerberos});

}  // namespace fg
