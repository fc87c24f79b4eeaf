// ④ Cisco Skinny Client Control Protocol (SCCP), TCP port 2000 on either
// side as nDPI requires. Wireshark's packet-skinny.c frame: a little-endian
// data length (counting from the message id on, so the segment is 8 bytes
// longer), a header version (basic 0 or CM 10, 11, 15..22), then the
// message id, which nDPI checks loosely (0x00..0x9F, 0x100..0x160, 0x8000,
// 0x8100..0x8101). The first payload packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool known_version(uint32_t v) { return v == 0 || v == 0x0a || v == 0x0b || (v >= 0x0f && v <= 0x16); }

bool known_message(uint32_t id) {
  return id <= 0x9f || (id >= 0x100 && id <= 0x160) || id == 0x8000 || id == 0x8100 || id == 0x8101;
}

Verdict classify_skinny(DpiCtx& c, Match& m) {
  if (c.cli_port != 2000 && c.srv_port != 2000) return Verdict::No;
  Bytes b = c.payload;
  if (b.size() < 12) return Verdict::No;
  const uint64_t length = load_le32(b.data());
  if (length + 8 != b.size() || !known_version(load_le32(b.data() + 4)) || !known_message(load_le32(b.data() + 8)))
    return Verdict::No;
  m.app = id(ProtoId::CiscoSkinny);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(skinny, {"CiscoSkinny", id(ProtoId::CiscoSkinny), kL4Tcp, 1, classify_skinny});

}  // namespace fg
