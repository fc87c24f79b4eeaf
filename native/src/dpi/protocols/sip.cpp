// ④ SIP (RFC 3261), UDP or TCP, as nDPI reads it (src/lib/protocols/sip.c)
// on each of the flow's first 7 payload packets: a TURN ChannelData prefix
// (4 bytes whose length field is the rest) is skipped; a packet over 4
// bytes whose first byte is not printable ends the flow's turn. A "hello"
// (5 bytes) names the flow, as does a message of at least 14 bytes opening
// with a request line "METHOD sip:" (all upper or all lower case; ACK,
// CANCEL and OPTIONS also with "tel:") or "SIP/2.0 ". Anything else waits.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// `word` (upper case, with its trailing space) at 0 as written in upper or
// in lower case, then one of the URI schemes nDPI takes.
bool request(Bytes b, const char* word, bool tel) {
  const size_t n = std::strlen(word);
  char lower[12] = {};
  for (size_t i = 0; i < n && i < sizeof lower - 1; i++) lower[i] = char(word[i] >= 'A' && word[i] <= 'Z' ? word[i] + 32 : word[i]);
  if (!has_at(b, 0, std::string_view(word, n)) && !has_at(b, 0, std::string_view(lower, n))) return false;
  return has_at(b, n, "SIP:") || has_at(b, n, "sip:") || (tel && (has_at(b, n, "TEL:") || has_at(b, n, "tel:")));
}

Verdict classify_sip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() > 4) {
    if (load_be16(b.data() + 2) == b.size() - 4) b = Bytes(b.data() + 4, b.size() - 4);
    if (b[0] < 0x20 || b[0] > 0x7e) return Verdict::No;
  }
  bool ok = b.size() == 5 && has_at(b, 0, "hello");
  if (!ok && b.size() >= 14) {
    static const struct {
      const char* word;
      bool tel;
    } kMethods[] = {{"NOTIFY ", false}, {"REGISTER ", false}, {"INVITE ", false}, {"BYE ", false},     {"ACK ", true},
                    {"CANCEL ", true},  {"PUBLISH ", false},  {"SUBSCRIBE ", false}, {"MESSAGE ", false}, {"OPTIONS ", true},
                    {"REFER ", false},  {"PRACK ", false},    {"INFO ", false}};
    ok = has_at(b, 0, "SIP/2.0 ") || has_at(b, 0, "sip/2.0 ");
    for (const auto& k : kMethods) ok = ok || request(b, k.word, k.tel);
  }
  if (!ok) return Verdict::NeedMore;
  m.app = id(ProtoId::SIP);
  return Verdict::Match;
}

}  // namespace

// nDPI gives up on the 8th payload packet.
FG_DISSECTOR(sip, {"SIP", id(ProtoId::SIP), kL4Both, 7, classify_sip});

}  // namespace fg
