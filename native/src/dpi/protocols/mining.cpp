// ④ Cryptocurrency mining over TCP, as nDPI 4.11 knows it: a JSON object
// (the payload's first byte '{') holding a Stratum v1 subscribe or
// configure call ("mining.subscribe", "mining.configure"), the xmr-stak-cpu
// miner's agent string, or an Ethereum pool login ("method":
// "eth_submitLogin", spaced as the miners send it). Any other packet rules
// it out: a JSON-RPC call with another method is not mining (json_rpc.cpp,
// ethereum.cpp). One packet decides.
#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_mining(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.empty() || b[0] != '{') return Verdict::No;
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
