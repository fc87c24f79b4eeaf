// ④ Nano cryptocurrency node protocol (docs.nano.org, "Protocol Design —
// Networking": every message opens with an 8-byte header: magic 'R', the
// network id ('C' = live), version_max, version_using, version_min, message
// type, 2 bytes of extensions; nodes talk TCP on 7075). As nDPI, any port,
// the flow's first TCP payload packet decides: more than 32 bytes, "RC",
// version_max 20, version_using 18–20, version_min 18–19 and a message
// type up to 0x0F.
#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint8_t kMinVersion = 18, kMaxVersion = 20;  // nDPI's window of node releases

Verdict classify_nano(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 32 || !has_at(b, 0, "RC")) return Verdict::No;
  const uint8_t vmax = b[2], vuse = b[3], vmin = b[4], type = b[5];
  if (vmax != kMaxVersion || vuse < kMinVersion || vuse > kMaxVersion || vmin < kMinVersion || vmin >= kMaxVersion ||
      type > 0x0f)
    return Verdict::No;
  m.app = id(ProtoId::Nano);
  c.clf->remember_mining(c, id(ProtoId::Nano));  // nDPI's mining cache (mining.cpp)
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(nano, {"Nano", id(ProtoId::Nano), kL4Tcp, 1, classify_nano});

}  // namespace fg
