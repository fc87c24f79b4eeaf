// ④ Jabber (XMPP, unencrypted): a packet opening "<?xml version=" or
// "<stream:stream " that declares the etherx.jabber.org streams namespace.
// A stream addressed to im.truphone.com is TruPhone. After the TCP
// handshake the first payload packet decides; without one (or over UDP)
// the first three may.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_jabber(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if ((b.size() > 13 && has_at(b, 0, "<?xml version=")) || has_at(b, 0, "<stream:stream ")) {
    Bytes rest(b.data() + 13, b.size() - 13);
    if (contains(rest, "xmlns:stream='http://etherx.jabber.org/streams'") ||
        contains(rest, "xmlns:stream=\"http://etherx.jabber.org/streams\"")) {
      const bool truphone = contains(rest, "='im.truphone.com'") || contains(rest, "=\"im.truphone.com\"");
      m.app = truphone ? id(ProtoId::TruPhone) : id(ProtoId::Jabber);
      return Verdict::Match;
    }
  }
  if ((c.p.l4_proto == kProtoTcp && c.flow.saw_syn) || c.flow.dpi_packets >= 3) return Verdict::No;
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(jabber, {"Jabber", id(ProtoId::Jabber), kL4Both, 3, classify_jabber});

}  // namespace fg
