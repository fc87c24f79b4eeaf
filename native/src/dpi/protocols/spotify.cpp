// ④ Spotify: LAN discovery over UDP between port 57621 on both ends
// ("SpotUdp" magic), and the client's TCP hello (00 04 00 00 .. .. 52 0e|0f 50).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_spotify(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.l4_proto == 17) {
    if (c.cli_port != 57621 || c.srv_port != 57621 || b.size() < 7) return Verdict::No;
    if (std::memcmp(b.data(), "SpotUdp", 7) != 0) return Verdict::No;
  } else {
    if (b.size() < 9 || b[0] != 0x00 || b[1] != 0x04 || b[2] || b[3] || b[6] != 0x52 ||
        (b[7] != 0x0e && b[7] != 0x0f) || b[8] != 0x50)
      return Verdict::No;
  }
  m.app = id(ProtoId::Spotify);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(spotify, {"Spotify", id(ProtoId::Spotify), kL4Both, 1, classify_spotify});

}  // namespace fg
