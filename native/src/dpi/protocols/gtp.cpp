// ④ GTP over UDP, told apart by port and header: GTP-U (2152: version 1,
// protocol type 1, length within the datagram), GTP-C (2123: v1 with an
// exact length and a message type up to 129, or v2 with an exact length)
// and GTP' (3386: protocol type 0, spare bits set, charging message types),
// each reported under GTP as nDPI does.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool on_port(const DpiCtx& c, uint16_t port) { return c.cli_port == port || c.srv_port == port; }

Verdict classify_gtp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 4) return Verdict::No;
  const uint8_t version = b[0] >> 5, pt = (b[0] >> 4) & 1, type = b[1];
  const size_t len = load_be16(b.data() + 2);
  uint16_t app = 0;
  if (on_port(c, 2152) && version == 1 && pt == 1 && b.size() >= 8 && len <= b.size() - 8) {
    app = id(ProtoId::GTP_U);
  } else if (on_port(c, 2123) &&
             ((version == 1 && b.size() >= 8 && len == b.size() - 8 && len >= ((b[0] & 7) ? 4u : 0u) && type > 0 && type <= 129) ||
              (version == 2 && len == b.size() - 4))) {
    app = id(ProtoId::GTP_C);
  } else if (on_port(c, 3386) && pt == 0 && ((b[0] >> 1) & 7) == 7 && b.size() >= 6 && len <= b.size() - 6 &&
             ((type > 0 && type <= 7) || type == 240 || type == 241)) {
    app = id(ProtoId::GTP_PRIME);
  }
  if (!app) return Verdict::No;
  m.master = id(ProtoId::GTP), m.app = app;
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(gtp, {"GTP", id(ProtoId::GTP), kL4Udp, 1, classify_gtp});

}  // namespace fg
