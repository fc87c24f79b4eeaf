// ④ BitTorrent: the peer-wire handshake ("\x13BitTorrent protocol", BEP 3),
// uTP packets (BEP 29) by their header; the DHT's
// bencoded queries and answers (BEP 5), which open with the sender's 20-byte
// node id; and local peer discovery ("BT-SEARCH * HTTP/1.1", BEP 14).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr char kHandshake[] = "\x13" "BitTorrent protocol";
constexpr size_t kHandshakeLen = sizeof(kHandshake) - 1;

// A uTP (BEP 29) packet: version 1, type up to 4 (SYN), a well-formed
// extension chain (types up to 2, at most 4 links), non-zero connection id
// and timestamp; a SYN carries nothing and no timestamp difference, a DATA
// packet carries something, a zero window only on a bare header. 0 = not
// uTP, 1 = a control packet, 2 = DATA (weaker evidence).
int utp_kind(Bytes b) {
  if (b.size() < 20) return 0;
  const uint8_t type = b[0] >> 4, version = b[0] & 0x0f;
  size_t off = 20;
  uint8_t ext = b[1];
  for (int links = 0; ext != 0 && off + 1 < b.size();) {
    ext = b[off];
    if (ext > 2 || ++links > 4) return 0;
    off += 2 + size_t(b[off + 1]);
  }
  if (ext != 0) return 0;
  const bool bare = b.size() == off;
  if (version != 1 || type > 4 || b[1] > 2) return 0;
  if (type == 4 && (load_be32(b.data() + 8) != 0 || !bare)) return 0;
  if (type == 0 && bare) return 0;
  if (load_be16(b.data() + 2) == 0 || load_be32(b.data() + 4) == 0) return 0;
  if (load_be32(b.data() + 12) == 0 && !bare) return 0;
  return type == 0 ? 2 : 1;
}

Verdict classify_bittorrent(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool found = false;
  if (has_at(b, 0, std::string_view(kHandshake, kHandshakeLen))) {
    found = true;
  } else if (c.p.l4_proto == kProtoTcp) {
    // A handshake split after its first bytes is still possible.
    if (b.size() < kHandshakeLen && std::memcmp(b.data(), kHandshake, b.size()) == 0) return Verdict::NeedMore;
    return Verdict::No;
  } else if (has_at(b, 0, "d1:ad2:id20:") || has_at(b, 0, "d1:rd2:id20:") ||
             has_at(b, 0, "BT-SEARCH * HTTP/1.1")) {
    found = true;
  } else if (has_at(b, 0, "d2:ip6:") || has_at(b, 0, "d2:ip18:")) {
    // An answer that first tells the querier its outside address.
    static const char kR[] = "1:rd2:id20:";
    for (size_t i = 7; !found && i + sizeof(kR) - 1 <= b.size() && i < 40; i++) found = has_at(b, i, std::string_view(kR, sizeof(kR) - 1));
  } else if (int utp = utp_kind(b)) {
    // A control packet is enough; DATA needs the handshake or a third packet.
    if (utp == 1 || contains(Bytes(b.data() + 20, b.size() - 20), "BitTorrent protocol") || c.flow.dpi_packets > 2) found = true;
    else return Verdict::NeedMore;
  }
  if (!found) return Verdict::No;
  m.app = id(ProtoId::BitTorrent);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bittorrent, {"BitTorrent", id(ProtoId::BitTorrent), kL4Both, 4, classify_bittorrent});

}  // namespace fg
