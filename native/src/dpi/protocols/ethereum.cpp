// ④ Ethereum, as nDPI recognises it. UDP: devp2p node discovery on port
// 30303 (a 98-byte hash + signature prefix, then a packet type up to
// NODES = 4), not to broadcast / multicast. TCP: an RLPx handshake (300–599
// bytes, byte 2 = 0x04) towards ports 30300–30305. Mining-pool JSON-RPC
// ("eth1.0", "worker") is Mining (mining.cpp), as nDPI reports it.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_ethereum(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const Packet& p = c.p;
  if (p.l4_proto == kProtoUdp) {
    if (b.size() <= 98 || b.size() >= 1280 || (p.sport != 30303 && p.dport != 30303) || b[97] > 0x04)
      return Verdict::No;
    if (p.dst.is_v4() ? (p.dst.v4() >> 24) == 0xff : load_be32(p.dst.b) == 0xff020000) return Verdict::No;
  } else {
    if (b.size() <= 300 || b.size() >= 600 || b[2] != 0x04 || p.dport < 30300 || p.dport > 30305) return Verdict::No;
  }
  m.app = id(ProtoId::ETHEREUM);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ethereum, {"ETHEREUM", id(ProtoId::ETHEREUM), kL4Both, 1, classify_ethereum});

}  // namespace fg
