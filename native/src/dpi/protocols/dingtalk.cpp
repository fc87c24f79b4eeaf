// ④ DingTalk (Alibaba's messenger): its own binary framing on TCP, a first
// byte 0x10 then a fixed 14-byte header (87 80 01 00 01 00 02 00 02 64 6b 03
// 00 20 from offset 2), in a packet of more than 90 bytes, as nDPI matches it.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_dingtalk(DpiCtx& c, Match& m) {
  static constexpr uint8_t kHeader[] = {0x87, 0x80, 0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x02, 0x64, 0x6b, 0x03, 0x00, 0x20};
  Bytes b = c.payload;
  if (b.size() <= 90 || b[0] != 0x10 || std::memcmp(b.data() + 2, kHeader, sizeof(kHeader)) != 0) return Verdict::No;
  m.app = id(ProtoId::DingTalk);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dingtalk, {"DingTalk", id(ProtoId::DingTalk), kL4Tcp, 1, classify_dingtalk});

}  // namespace fg
