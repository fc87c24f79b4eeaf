// ④ SOME/IP (automotive RPC), UDP or TCP: a 16-byte header whose length
// field counts the rest of the message (payload size − 8), protocol
// version 1, a known message type (request, fire-and-forget, notification,
// response, error, their acknowledgements and their segmented "TP" forms)
// and a return code below 0x40.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_someip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 16 || b[12] != 1 || b[4] || b[5]) return Verdict::No;
  if (load_be32(b.data() + 4) + 8u != b.size()) return Verdict::No;
  const uint8_t type = b[14] & uint8_t(~0x20);  // TP flag cleared
  const uint8_t base = type & 0x3f;              // 0x40: ack, 0x80: response
  if (base > 2 || ((type & 0x80) && base > 1)) return Verdict::No;
  if (b[15] >= 0x40) return Verdict::No;
  // The magic cookies (message id 0xffff0000, its ack 0xffff8000) have one
  // fixed header: length 8, request id 0xdeadbeef, interface version 1,
  // fire-and-forget request, return code OK; any other is refused.
  const uint32_t msg_id = load_be32(b.data());
  if ((msg_id == 0xffff0000u || msg_id == 0xffff8000u) &&
      (load_be32(b.data() + 4) != 8 || load_be32(b.data() + 8) != 0xdeadbeefu || b[13] != 1 || type != 1 || b[15] != 0))
    return Verdict::No;
  m.app = id(ProtoId::SOMEIP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(someip, {"SOMEIP", id(ProtoId::SOMEIP), kL4Both, 1, classify_someip});

}  // namespace fg
