// ④ BitTorrent: the peer-wire handshake ("\x13BitTorrent protocol", BEP 3),
// also inside a uTP packet (BEP 29, 20-byte header first); the DHT's
// bencoded queries and answers (BEP 5), which open with the sender's 20-byte
// node id; and local peer discovery ("BT-SEARCH * HTTP/1.1", BEP 14).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr char kHandshake[] = "\x13" "BitTorrent protocol";
constexpr size_t kHandshakeLen = sizeof(kHandshake) - 1;

bool utp_header(Bytes b) {
  if (b.size() < 20) return false;
  uint8_t type = b[0] >> 4, version = b[0] & 0x0f;
  return version == 1 && type <= 4 && (b[1] == 0 || b[1] == 1 || b[1] == 2);
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
  } else if (utp_header(b)) {
    if (has_at(b, 20, std::string_view(kHandshake, kHandshakeLen))) found = true;
    else return Verdict::NeedMore;  // a uTP SYN / state packet: the handshake follows
  }
  if (!found) return Verdict::No;
  m.app = id(ProtoId::BitTorrent);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bittorrent, {"BitTorrent", id(ProtoId::BitTorrent), kL4Both, 4, classify_bittorrent});

}  // namespace fg
