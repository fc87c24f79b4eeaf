// ④ Citrix ICA / CGP (Independent Computing Architecture on TCP 1494, its
// Common Gateway Protocol on 2598; Wireshark's "cgp" and ICA notes). An ICA
// session's server opens with the 6-byte detection string 7F 7F "ICA" 00;
// a session-reliability (CGP) connection opens with its 0x1A "CGP/01"
// signature. nDPI decides on the flow's first TCP payload packet, either
// direction, any port: exactly those 6 bytes, or a packet longer than 22
// bytes that opens with the CGP signature or names "Citrix.TcpProxyService"
// (searched, as nDPI does, only up to the packet's first NUL byte).
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr std::string_view kIca{"\x7f\x7f" "ICA\0", 6};
constexpr std::string_view kCgp{"\x1a" "CGP/01", 7};
constexpr std::string_view kProxyService{"Citrix.TcpProxyService"};

Verdict classify_citrix(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool hit = false;
  if (b.size() == kIca.size()) {
    hit = has_at(b, 0, kIca);
  } else if (b.size() > 22) {
    // nDPI's substring search treats the payload as a C string.
    const void* nul = std::memchr(b.data(), 0, b.size());
    const size_t text = nul ? size_t(static_cast<const uint8_t*>(nul) - b.data()) : b.size();
    hit = has_at(b, 0, kCgp) || contains(b.first(text), kProxyService);
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Citrix);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(citrix, {"Citrix", id(ProtoId::Citrix), kL4Tcp, 1, classify_citrix});

}  // namespace fg
