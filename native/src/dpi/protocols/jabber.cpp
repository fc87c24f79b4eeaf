// ④ Jabber (XMPP, TCP), as nDPI reads it, packet by packet:
//  - old-style XMPP over SSL: byte 1 is 0 and byte 2 the payload's length;
//    from the fourth payload packet such a record names the flow, before
//    that one opening 0x25, 0x26 or 0x30 waits and any other gives up;
//  - "<presence " declaring a jabber.org/protocol/ namespace, "<iq type='"
//    declaring jabber.org/protocol/commands, or exactly "</stream:stream>";
//  - "<?xml version=" or "<stream:stream " declaring the etherx.jabber.org
//    streams namespace (after byte 13): Jabber, or TruPhone when the
//    stream is addressed to im.truphone.com; without the namespace it waits.
// Any other packet gives up. Texts are searched as nDPI's C strings: up to
// the first NUL byte.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// `s` in `b` from offset `at`, before the first NUL byte.
bool c_contains(Bytes b, size_t at, std::string_view s) {
  if (at > b.size()) return false;
  size_t end = at;
  while (end < b.size() && b[end]) end++;
  return contains(Bytes(b.data() + at, end - at), s);
}

Verdict classify_jabber(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n >= 3 && b[1] == 0 && b[2] == n) {
    if (c.flow.dpi_packets > 3) {
      m.app = id(ProtoId::Jabber);
      return Verdict::Match;
    }
    return b[0] == 0x25 || b[0] == 0x26 || b[0] == 0x30 ? Verdict::NeedMore : Verdict::No;
  }
  if ((has_at(b, 0, "<presence ") && c_contains(b, 0, "xmlns='http://jabber.org/protocol/")) ||
      (has_at(b, 0, "<iq type='") && c_contains(b, 0, "xmlns='http://jabber.org/protocol/commands'")) ||
      (n == 16 && has_at(b, 0, "</stream:stream>"))) {
    m.app = id(ProtoId::Jabber);
    return Verdict::Match;
  }
  if (has_at(b, 0, "<?xml version=") || has_at(b, 0, "<stream:stream ")) {
    if (!c_contains(b, 13, "xmlns:stream='http://etherx.jabber.org/streams'") &&
        !c_contains(b, 13, "xmlns:stream=\"http://etherx.jabber.org/streams\""))
      return Verdict::NeedMore;
    const bool truphone = c_contains(b, 13, "='im.truphone.com'") || c_contains(b, 13, "=\"im.truphone.com\"");
    m.app = truphone ? id(ProtoId::TruPhone) : id(ProtoId::Jabber);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(jabber, {"Jabber", id(ProtoId::Jabber), kL4Tcp, kMaxDpiPackets, classify_jabber});

}  // namespace fg
