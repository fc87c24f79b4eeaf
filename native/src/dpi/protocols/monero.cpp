// ④ Monero P2P (its Levin protocol, TCP), as nDPI's monero.c: the first
// payload packet of 8 bytes or more opens with the Levin signature
// 0x0121010101010101, else Monero is ruled out. A match also enters the
// flow's client and server in nDPI's mining cache (Classifier::
// remember_mining): a later flow between them that nothing names is Monero
// by that cache when it is given up.
#include "dpi/classify.h"
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint64_t kLevinSignature = 0x0121010101010101ull;

Verdict classify_monero(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || (uint64_t(load_be32(b.data())) << 32 | load_be32(b.data() + 4)) != kLevinSignature) return Verdict::No;
  c.clf->remember_mining(c.flow, id(ProtoId::Monero));
  m.app = id(ProtoId::Monero);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(monero, {"Monero", id(ProtoId::Monero), kL4Tcp, 1, classify_monero});

}  // namespace fg
