// ④ Telegram, as nDPI 4.11 recognises it (src/lib/protocols/telegram.c).
// UDP: calls to the low ports 500–600 whose packet (40 bytes or more) holds
// a run of exactly 12 0xff bytes at its first 0xff; a packet without 0xff
// waits. TCP: MTProto 2.0 has nothing recognisable, so nDPI names a TCP
// flow whose address (server first, then client) is in Telegram's lists on
// its first payload packet that reaches the dissector, with confidence
// "Match by IP" (Telegram's web client over TLS is named by TLS first, then
// TLS.Telegram by nDPI's reconcile step: classify.cpp).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_telegram(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const Packet& p = c.p;
  if (p.l4_proto == kProtoTcp) {
    if (app_by_flow_ip(c.flow) != id(ProtoId::Telegram)) return Verdict::No;
    m.app = id(ProtoId::Telegram), m.by_ip = true;
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

FG_DISSECTOR(telegram, {"Telegram", id(ProtoId::Telegram), kL4Both, kMaxDpiPackets, classify_telegram});

}  // namespace fg
