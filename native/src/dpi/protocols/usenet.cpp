// ④ Usenet (NNTP, TCP), as nDPI's usenet.c: the flow's first inspected
// payload packet is a greeting "200 " or "201 " (posting allowed or not) of
// more than 10 bytes, from either side; the next one, from the other side,
// is "AUTHINFO USER …" (more than 20 bytes), exactly "MODE READER\r\n" or
// exactly "HELP\r\n". Anything else rules Usenet out. nDPI reads no packet
// count here, only that state: a retransmitted greeting (never inspected)
// does not use up the command's turn, so the budget is the whole window.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_usenet(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* keep = c.scratch(kScratchUsenet);  // bits 0-1: direction of the greeting + 1
  if (!keep) return Verdict::No;
  const uint8_t dir = c.from_client ? 1 : 2, greeted = *keep & 3;
  if (!greeted) {
    if (b.size() <= 10 || !(has_at(b, 0, "200 ") || has_at(b, 0, "201 "))) return Verdict::No;
    *keep = uint8_t((*keep & ~3) | dir);
    return Verdict::NeedMore;
  }
  if (greeted == dir) return Verdict::No;
  const bool hit = (b.size() > 20 && has_at(b, 0, "AUTHINFO USER ")) || (b.size() == 13 && has_at(b, 0, "MODE READER\r\n")) ||
                   (b.size() == 6 && has_at(b, 0, "HELP\r\n"));
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Usenet);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(usenet, {"Usenet", id(ProtoId::Usenet), kL4Tcp, kMaxDpiPackets, classify_usenet});

}  // namespace fg
