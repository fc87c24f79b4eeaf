// ④ SIP (RFC 3261), UDP or TCP: a request line "METHOD sip:…" / "sips:"
// or a status line "SIP/2.0 NNN".
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_sip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool ok = false;
  if (has_at(b, 0, "SIP/2.0 ")) {
    ok = b.size() >= 11 && b[8] >= '1' && b[8] <= '6' && b[9] >= '0' && b[9] <= '9' && b[10] >= '0' && b[10] <= '9';
  } else {
    static const char* const kMethods[] = {"INVITE ", "REGISTER ", "OPTIONS ", "ACK ", "BYE ", "CANCEL ", "NOTIFY ", "SUBSCRIBE ",
                                           "MESSAGE ", "INFO ", "PUBLISH ", "REFER ", "PRACK ", "UPDATE "};
    for (const char* k : kMethods)
      if (has_at(b, 0, k)) {
        size_t at = std::strlen(k);
        ok = has_at(b, at, "sip:") || has_at(b, at, "sips:") || has_at(b, at, "SIP:") || has_at(b, at, "tel:");
        break;
      }
  }
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::SIP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(sip, {"SIP", id(ProtoId::SIP), kL4Both, 3, classify_sip});

}  // namespace fg
