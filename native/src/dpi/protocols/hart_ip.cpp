// ④ HART-IP (Highway Addressable Remote Transducer over IP), TCP or UDP:
// an 8-byte header — version 1 or 2, message type (request, response,
// publish, NAK), message id (session initiate .. read audit log), status,
// sequence number and a big-endian length equal to the whole payload. As
// nDPI reads it, an unknown type or an unknown id alone is still HART-IP.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_hart_ip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || (b[0] != 1 && b[0] != 2)) return Verdict::No;
  uint8_t type = b[1] & 0x0f;
  // nDPI refuses only an unknown type together with an unknown message id
  if (type > 2 && type != 15 && b[2] > 5) return Verdict::No;
  if (load_be16(b.data() + 6) != b.size()) return Verdict::No;
  m.app = id(ProtoId::HART_IP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(hart_ip, {"HART-IP", id(ProtoId::HART_IP), kL4Both, 1, classify_hart_ip});

}  // namespace fg
