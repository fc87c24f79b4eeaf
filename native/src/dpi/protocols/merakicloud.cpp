// ④ Meraki Cloud (Cisco Meraki devices' cloud tunnel, UDP port 7351), as
// nDPI recognises it: the packet opens with 0xfef72891.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_merakicloud(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if ((c.cli_port != 7351 && c.srv_port != 7351) || b.size() <= 4 || load_be32(b.data()) != 0xfef72891)
    return Verdict::No;
  m.app = id(ProtoId::MerakiCloud);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(merakicloud, {"MerakiCloud", id(ProtoId::MerakiCloud), kL4Udp, 1, classify_merakicloud});

}  // namespace fg
