// ④ NoMachine NX remote desktop (NoMachine's knowledge base, "ports used by
// NoMachine": the nxd service on TCP/UDP 4000). A session opens with a short
// text handshake, the client's "NXSH-<version>" and the server's
// "NXD-<version>", before TLS takes over; its multimedia goes over UDP in
// frames whose header carries a little-endian 1 at bytes 2–3 and the
// datagram's own length at bytes 4–5. As nDPI, on any port, the flow's first
// payload packet decides: over TCP 11 to 14 bytes opening "NXSH-" or
// "NXD-"; over UDP at least 10 bytes with those two header fields and bytes
// 8–9 zero. A match raises the desktop / file sharing risk.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_nomachine(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool hit;
  if (c.p.l4_proto == kProtoTcp) {
    hit = b.size() > 10 && b.size() < 15 && (has_at(b, 0, "NXSH-") || has_at(b, 0, "NXD-"));
  } else {
    hit = b.size() > 9 && load_le16(b.data() + 2) == 1 && load_le16(b.data() + 4) == b.size() && b[8] == 0 && b[9] == 0;
  }
  if (!hit) return Verdict::No;
  c.risk(Risk::DesktopFileSharing);
  m.app = id(ProtoId::NoMachine);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(nomachine, {"NoMachine", id(ProtoId::NoMachine), kL4Both, 1, classify_nomachine});

}  // namespace fg
