// ④ Mumble UDP ping: the client sends 12 bytes, four zero bytes then an
// 8-byte ident; the server answers 24 bytes (version, the same ident, user
// counts, bandwidth). nDPI also compares the echoed ident; with no
// per-dissector state we require the exact request / answer shapes in
// that order instead.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_mumble(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets == 1) {
    if (!c.from_client || b.size() != 12 || load_be32(b.data()) != 0) return Verdict::No;
    return Verdict::NeedMore;
  }
  if (c.from_client) return b.size() == 12 && load_be32(b.data()) == 0 ? Verdict::NeedMore : Verdict::No;
  if (b.size() != 24) return Verdict::No;
  m.app = id(ProtoId::Mumble);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mumble, {"Mumble", id(ProtoId::Mumble), kL4Udp, 3, classify_mumble});

}  // namespace fg
