// ④ STUN (RFC 5389 / 8489, and classic RFC 3489): a 20-byte header whose
// length field covers exactly the rest of the packet, in 4-byte attributes.
// With the magic cookie the header alone is enough; the classic form, which
// has none, only on the registered port 3478. Some attributes name the
// application behind it (STUN.WhatsAppCall …), as nDPI reads them.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint32_t kMagicCookie = 0x2112A442;

bool classic_type(uint16_t t) {
  switch (t) {
    case 0x0001: case 0x0101: case 0x0111:  // binding request / response / error
    case 0x0002: case 0x0102: case 0x0112:  // shared secret
    case 0x0003: case 0x0103: case 0x0113:  // allocate (TURN)
    case 0x0004: case 0x0104: case 0x0114:  // refresh
    case 0x0016: case 0x0017:               // send / data indication
      return true;
    default:
      return false;
  }
}

// The application an attribute gives away, 0 when none does.
uint16_t app_by_attributes(Bytes b) {
  for (size_t off = 20; off + 4 <= b.size();) {
    uint16_t type = load_be16(b.data() + off), len = load_be16(b.data() + off + 2);
    if (off + 4 + len > b.size()) break;
    const uint8_t* v = b.data() + off + 4;
    switch (type) {
      case 0x4000: case 0x4001: case 0x4002: case 0x4003: case 0x4004: case 0x4007:
        return id(ProtoId::WhatsAppCall);
      case 0x0101: case 0x0103:
        return id(ProtoId::Zoom);
      case 0xff03:
        return id(ProtoId::GoogleCall);
      case 0x8054: case 0x24df: case 0x3802: case 0x8036: case 0x8095:
      case 0x0800: case 0x8006: case 0x8070: case 0x8055:
        return id(ProtoId::Skype_TeamsCall);
      case 0x0014: {  // REALM
        const Bytes text(v, len);
        if (contains(text, "google.com")) return id(ProtoId::GoogleCall);
        if (contains(text, "whispersystems.org") || contains(text, "signal.org")) return id(ProtoId::SignalVoip);
        if (contains(text, "facebook")) return id(ProtoId::FacebookVoip);
        if (contains(text, "telegram")) return id(ProtoId::TelegramVoip);
        break;
      }
      default:
        break;
    }
    off += 4 + ((size_t(len) + 3) & ~size_t(3));
  }
  return 0;
}

Verdict classify_stun(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 20) return Verdict::No;
  uint16_t type = load_be16(b.data()), len = load_be16(b.data() + 2);
  if ((type & 0xc000) || (len & 3) || size_t(len) + 20 != b.size()) return Verdict::No;
  bool cookie = load_be32(b.data() + 4) == kMagicCookie;
  if (!cookie && !(classic_type(type) && (c.srv_port == 3478 || c.cli_port == 3478))) return Verdict::No;
  if (uint16_t app = app_by_attributes(b)) {
    m.master = id(ProtoId::STUN);
    m.app = app;
    return Verdict::Match;
  }
  // The answer may still name the application; a lone request stays unnamed
  // (then guessed by port).
  if (c.flow.dpi_packets < 2) return Verdict::NeedMore;
  m.app = id(ProtoId::STUN);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(stun, {"STUN", id(ProtoId::STUN), kL4Both, 4, classify_stun});

}  // namespace fg
