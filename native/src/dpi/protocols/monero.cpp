// ④ Monero P2P (Levin protocol, TCP), as nDPI recognises it: the Levin
// signature 0x0121010101010101 opens the packet.
#include "dpi/classify.h"
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_monero(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || load_be32(b.data()) != 0x01210101 || load_be32(b.data() + 4) != 0x01010101) return Verdict::No;
  m.app = id(ProtoId::Monero);
  c.clf->remember_mining(c, id(ProtoId::Monero));  // nDPI's mining cache (mining.cpp)
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(monero, {"Monero", id(ProtoId::Monero), kL4Tcp, 1, classify_monero});

}  // namespace fg
