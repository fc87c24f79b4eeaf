// ④ SIP (RFC 3261), UDP or TCP, as nDPI reads it (src/lib/protocols/sip.c)
// on each of the flow's first 7 payload packets: a TURN ChannelData prefix
// (4 bytes whose length field is the rest) is skipped; a packet over 4
// bytes whose first byte is not printable ends the flow's turn. A "hello"
// (5 bytes) names the flow, as does a message of at least 14 bytes opening
// with a request line "METHOD sip:" (all upper or all lower case; ACK,
// CANCEL and OPTIONS also with "tel:") or "SIP/2.0 ". Anything else waits.
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// A request line: the method as written in upper or in lower case (with
// its trailing space), then one of the URI schemes nDPI takes.
struct Method {
  std::string_view upper, lower;
  bool tel;  // "tel:" URIs too
};
constexpr Method kMethods[] = {
    {"NOTIFY ", "notify ", false},   {"REGISTER ", "register ", false},   {"INVITE ", "invite ", false}, {"BYE ", "bye ", false},
    {"ACK ", "ack ", true},          {"CANCEL ", "cancel ", true},        {"PUBLISH ", "publish ", false},
    {"SUBSCRIBE ", "subscribe ", false}, {"MESSAGE ", "message ", false}, {"OPTIONS ", "options ", true},
    {"REFER ", "refer ", false},     {"PRACK ", "prack ", false},         {"INFO ", "info ", false}};

bool request(Bytes b, const Method& k) {
  if (!has_at(b, 0, k.upper) && !has_at(b, 0, k.lower)) return false;
  const size_t n = k.upper.size();
  return has_at(b, n, "SIP:") || has_at(b, n, "sip:") || (k.tel && (has_at(b, n, "TEL:") || has_at(b, n, "tel:")));
}

Verdict classify_sip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() > 4) {
    if (load_be16(b.data() + 2) == b.size() - 4) b = Bytes(b.data() + 4, b.size() - 4);
    if (b[0] < 0x20 || b[0] > 0x7e) return Verdict::No;
  }
  bool ok = b.size() == 5 && has_at(b, 0, "hello");
  if (!ok && b.size() >= 14) {
    ok = has_at(b, 0, "SIP/2.0 ") || has_at(b, 0, "sip/2.0 ");
    for (const Method& k : kMethods) ok = ok || ((b[0] | 0x20) == k.lower[0] && request(b, k));
  }
  if (!ok) return Verdict::NeedMore;
  m.app = id(ProtoId::SIP);
  return Verdict::Match;
}

}  // namespace

// nDPI gives up on the 8th payload packet.
FG_DISSECTOR(sip, {"SIP", id(ProtoId::SIP), kL4Both, 7, classify_sip});

}  // namespace fg
