// ④ Cryptocurrency mining over TCP, following nDPI's
// src/lib/protocols/mining.c: the flow's first payload packet decides. It
// must open with '{' (a JSON object) and hold, before any NUL byte, one of:
// a Stratum v1 subscribe or configure call ("mining.subscribe",
// "mining.configure", quoted: Bitcoin-style pools, Zcash ones too), the
// xmr-stak-cpu miner's agent string ("agent":"xmr-stak-cpu: Monero/Zcash),
// or an Ethereum pool login ("method": "eth_submitLogin", with the space
// after the colon that miners send). Anything else rules Mining out; other
// JSON-RPC methods are left to json_rpc.cpp and ethereum.cpp.
// A match remembers the flow's client and server addresses in nDPI's mining
// cache (Classifier::remember_mining): a later flow between them that ends
// unnamed is named Mining at give-up ("DPI (partial cache)").
// Not kept: the currency nDPI notes (ZCash, ZCash/Monero, Ethereum), which
// only its flow metadata shows.
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_mining(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.empty() || b[0] != '{') return Verdict::No;
  // nDPI's string searches end at the first NUL byte
  if (const void* nul = std::memchr(b.data(), 0, b.size())) b = b.first(size_t(static_cast<const uint8_t*>(nul) - b.data()));
  if (contains(b, "\"mining.subscribe\"") || contains(b, "\"mining.configure\"") || contains(b, "\"agent\":\"xmr-stak-cpu") ||
      contains(b, "\"method\": \"eth_submitLogin")) {
    c.clf->remember_mining(c.flow, id(ProtoId::Mining));  // nDPI's mining cache (classify.h)
    m.app = id(ProtoId::Mining);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(mining, {"Mining", id(ProtoId::Mining), kL4Tcp, 1, classify_mining});

}  // namespace fg
