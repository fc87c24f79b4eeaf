// ④ GTP over UDP as nDPI's gtp.c tells it apart, by port and header, on the
// flow's first datagram (4 bytes or fewer: not GTP), each form under GTP:
// GTP-U on 2152 (version 1, PT 1, a length at most what follows the 8-byte
// header; the decoder has already opened G-PDUs as tunnels), else GTP-C on
// 2123 (version 1: a length exactly what follows the 8 bytes, at least 4
// when S, PN or E is set, a message type 1–129, the PT bit not read;
// version 2: a length exactly what follows the 4 bytes, any type), else
// GTP' on 3386 (PT 0, the three spare bits set, a length at most what
// follows the 6-byte header, types 1–7, 240 or 241; the version not read).
// A datagram between two of these ports falls through the checks in that
// order.
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
