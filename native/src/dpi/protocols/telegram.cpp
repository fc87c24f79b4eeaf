// ④ Telegram, as nDPI recognises it. TCP: MTProto's abridged transport opens
// with 0xef towards 443, 80 or 25 (first packet over 56 bytes), followed by
// 0x7f or a length (in 4-byte words) that fits the packet. UDP: calls to
// the low ports 500–600 whose packet holds a run of exactly 12 0xff bytes
// at its first 0xff.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_telegram(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const Packet& p = c.p;
  if (p.l4_proto == kProtoTcp) {
    if (b.size() <= 56 || b[0] != 0xef) return Verdict::No;
    if (p.dport != 443 && p.dport != 80 && p.dport != 25) return Verdict::No;
    if (b[1] != 0x7f && size_t(b[1]) * 4 > b.size() - 1) return Verdict::NeedMore;
    m.app = id(ProtoId::Telegram);
    return Verdict::Match;
  }
  auto low = [](uint16_t port) { return port >= 500 && port <= 600; };
  if (b.size() < 40 || !(low(p.sport) || low(p.dport))) return Verdict::No;
  size_t i = 0;
  while (i < b.size() && b[i] != 0xff) i++;
  if (i == b.size()) return Verdict::NeedMore;  // nDPI keeps looking then
  size_t run = 1;
  while (i + run < b.size() && b[i + run] == 0xff) run++;
  if (run != 12) return Verdict::No;
  m.app = id(ProtoId::Telegram);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(telegram, {"Telegram", id(ProtoId::Telegram), kL4Both, 4, classify_telegram});

}  // namespace fg
