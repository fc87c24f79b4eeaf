// ④ Telegram, as nDPI 4.11 recognises it (src/lib/protocols/telegram.c).
// UDP: calls to the low ports 500–600 whose packet (40 bytes or more) holds
// a run of exactly 12 0xff bytes at its first 0xff; a packet without 0xff
// waits. TCP: nDPI has no payload test (MTProto 2.0 is not recognisable);
// it names a TCP flow whose address is one of Telegram's, confidence
// "Match by IP". A match here can only carry DPI confidence, so TCP is left
// to the classifier's guess by address (Match by IP) when inspection ends.
// Kept difference: that guess comes after the guess by port, so a flow to
// Telegram's addresses on a port with a guess (443: TLS) is named by port.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_telegram(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const Packet& p = c.p;
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

FG_DISSECTOR(telegram, {"Telegram", id(ProtoId::Telegram), kL4Udp, kMaxDpiPackets, classify_telegram});

}  // namespace fg
