// ④ Ethereum, as nDPI recognises it (src/lib/protocols/ethereum.c). UDP:
// devp2p node discovery (discv4) on port 30303, 99 to 1279 bytes (a 97-byte
// hash + signature prefix, then a packet type PING … ENRRESPONSE, 1 to 6),
// not to 255.x.x.x / ff02::. TCP, over 10 bytes: an RLPx handshake (300–599
// bytes, byte 2 = 0x04) towards ports 30300–30305; otherwise mining-pool
// JSON (a "{" and "eth1.0" in quotes or "worker": before any NUL byte).
// Mining's dissector (mining.cpp) runs first and takes the eth_submitLogin
// requests, as nDPI's does; the other such messages are Ethereum's.
#include <cstring>
#include <string_view>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ethereum(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const Packet& p = c.p;
  if (p.l4_proto == kProtoUdp) {
    if (p.dst.is_v4() ? (p.dst.v4() >> 24) == 0xff : load_be32(p.dst.b) == 0xff020000) return Verdict::No;
    if (b.size() <= 98 || b.size() >= 1280 || (p.sport != 30303 && p.dport != 30303) || b[97] < 0x01 || b[97] > 0x06)
      return Verdict::No;
  } else {
    if (b.size() <= 10) return Verdict::No;
    if (b.size() > 300 && b.size() < 600 && b[2] == 0x04) {
      if (p.dport < 30300 || p.dport > 30305) return Verdict::No;
    } else {
      // nDPI's string search stops at the first NUL byte.
      const void* nul = std::memchr(b.data(), 0, b.size());
      Bytes s = b.first(nul ? size_t(static_cast<const uint8_t*>(nul) - b.data()) : b.size());
      if (!contains(s, "{") || !(contains(s, "\"eth1.0\"") || contains(s, "\"worker\":"))) return Verdict::No;
    }
  }
  m.app = id(ProtoId::ETHEREUM);
  c.clf->remember_mining(c, id(ProtoId::ETHEREUM));  // nDPI's mining cache (mining.cpp)
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ethereum, {"ETHEREUM", id(ProtoId::ETHEREUM), kL4Both, 1, classify_ethereum});

}  // namespace fg
