// ④ World of Warcraft (TCP). Read from Wireshark's WoW dissector for the
// login (authentication) protocol on port 3724: AUTH_LOGON_CHALLENGE and
// AUTH_RECONNECT_CHALLENGE from the client are command, error, 16-bit
// size, then the game name "WoW\0", version, build, platform, OS, country,
// time zone, address, name length and the account name (41..69 bytes for
// the names nDPI accepts). The rest follows nDPI's observed forms, which no
// public document describes:
// - an HTTP "GET /" from the Blizzard downloader: User-Agent longer than and
//   starting with "Blizzard Downloader", Host longer than and ending with
//   "worldofwarcraft.com" (as a sub-protocol of HTTP too);
// - a 50-byte packet with "WORLD OF WARCRAFT CONNECTION" at offset 2 (the
//   world server's greeting banner);
// - a logon challenge: sent to port 3724, 41..69 bytes, "WoW" at offset 4
//   (or 5);
// - from port 3724, an 8-byte packet opening 00 06 EC 01;
// - to port 1119 (Battle.net), at least 77 bytes opening
//   40 00 0A ED EA 07 0A ED, while no staged pattern below began;
// - a staged exchange: the first packet from a WoW port (3724, 6112-6114,
//   4000, 1119), at least 14 bytes, its 16-bit big-endian length equal to
//   the rest, with EC 01 01 00 next (stage 2) or, at 41 bytes, 00 85,
//   00 34 or 19 60 next (stage 1). In stage 1 the next packet names the flow
//   at 325 bytes with nDPI's fixed trailer, or moves to stage 2 when it is
//   a length-framed packet over 32 bytes with 00 00 at offset 4 or
//   12 05 00 00 at offset 2. In stage 2 a 4-byte packet, or one of 5..16
//   bytes with 0x0C at offset 4, names it; a packet fitting neither is
//   waited through only while it is one of the flow's first two payload
//   packets.
// A packet fitting none of these rules the flow out (nDPI's
// world_of_warcraft.c, TCP only, IPv4 and IPv6). The stage lives in
// kScratchWow; without it every packet reads stage 0.
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr ScratchSlot kStageSlot = kScratchWow;
constexpr uint16_t kLoginPort = 3724, kBnetPort = 1119;
constexpr uint8_t kTrailer[18] = {0x94, 0xec, 0xff, 0xfd, 0x67, 0x62, 0xd4, 0x67, 0xfb,
                                  0xf9, 0xdd, 0xbd, 0xfd, 0x01, 0xc0, 0x8f, 0xf9, 0x81};

bool wow_port(uint16_t port) {
  return port == 3724 || port == 6112 || port == 6113 || port == 6114 || port == 4000 || port == 1119;
}

// The Blizzard downloader: its User-Agent and Host values as nDPI's line
// parser keeps them (http_sub.h). Only asked of a "GET /" request, whose
// first line is never a header.
bool blizzard_download(Bytes b) {
  constexpr std::string_view kAgent = "Blizzard Downloader", kHost = "worldofwarcraft.com";
  HeaderValue h[] = {{"User-agent:"}, {"Host:"}};
  ndpi_header_values(b, h);
  const std::string_view ua(h[0].value, h[0].len), host(h[1].value, h[1].len);
  return ua.size() > kAgent.size() && ua.substr(0, kAgent.size()) == kAgent && host.size() > kHost.size() &&
         host.substr(host.size() - kHost.size()) == kHost;
}

Verdict hit(Match& m) {
  m.app = id(ProtoId::WorldOfWarcraft);
  return Verdict::Match;
}

Verdict classify_wow(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t* p = b.data();
  const size_t n = b.size();
  const uint16_t sport = c.p.sport, dport = c.p.dport;
  if (n > 5 && has_at(b, 0, "GET /") && blizzard_download(b)) return hit(m);
  if (n == 50 && has_at(b, 2, "WORLD OF WARCRAFT CONNECTION")) return hit(m);
  if (dport == kLoginPort && n > 40 && n < 70 && (has_at(b, 4, "WoW") || has_at(b, 5, "WoW"))) return hit(m);
  if (sport == kLoginPort && n == 8 && load_be32(p) == 0x0006ec01) return hit(m);

  // Without a scratch byte (pool full) the stage reads 0 on every packet.
  uint8_t no_slot = 0;
  uint8_t* stage = c.scratch(kStageSlot);
  if (!stage) stage = &no_slot;
  const bool framed = n >= 2 && load_be16(p) == n - 2;  // length prefix counting what follows
  if (*stage == 0 && wow_port(sport) && n >= 14 && framed) {
    if (load_be32(p + 2) == 0xec010100) {
      *stage = 2;
      return Verdict::NeedMore;
    }
    const uint16_t kind = load_be16(p + 2);
    if (n == 41 && (kind == 0x0085 || kind == 0x0034 || kind == 0x1960)) {
      *stage = 1;
      return Verdict::NeedMore;
    }
  }
  if (*stage == 1) {
    if (n == 325 && framed && load_be16(p + 4) == 0 && (load_be16(p + n - 3) == 0x2331 || load_be16(p + 67) == 0x2331) &&
        (std::memcmp(p + n - 18, kTrailer, sizeof(kTrailer)) == 0 || std::memcmp(p + n - 30, kTrailer, sizeof(kTrailer)) == 0))
      return hit(m);
    if (n > 32 && framed && (load_be16(p + 4) == 0 || load_be32(p + 2) == 0x12050000)) {
      *stage = 2;
      return Verdict::NeedMore;
    }
  }
  if (*stage == 2) {
    if (n == 4 || (n > 4 && n <= 16 && p[4] == 0x0c)) return hit(m);
    if (c.flow.dpi_packets < 3) return Verdict::NeedMore;
  }
  if (*stage == 0 && dport == kBnetPort && n >= 77 && load_be32(p) == 0x40000aed && load_be32(p + 4) == 0xea070aed)
    return hit(m);
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(world_of_warcraft, {"WorldOfWarcraft", id(ProtoId::WorldOfWarcraft), kL4Tcp, kMaxDpiPackets, classify_wow});

}  // namespace fg
