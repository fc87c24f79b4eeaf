// ④ WhatsApp chat over TCP: the client opens with the Noise prologue
// "ED\0\1" followed by 00 00 04|02 08 (clients often send the first four
// bytes alone in a segment of their own), or the very old "WA\1\5" header.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_whatsapp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool ok = false;
  if (b.size() > 4 && std::memcmp(b.data(), "WA\x01\x05", 4) == 0) ok = true;
  else if (b.size() == 4 && c.from_client && std::memcmp(b.data(), "ED\x00\x01", 4) == 0) ok = true;
  else if (b.size() >= 8 && std::memcmp(b.data(), "ED\x00\x01\x00\x00", 6) == 0 && (b[6] == 4 || b[6] == 2) && b[7] == 8)
    ok = true;
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::WhatsApp);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(whatsapp, {"WhatsApp", id(ProtoId::WhatsApp), kL4Tcp, 1, classify_whatsapp});

}  // namespace fg
