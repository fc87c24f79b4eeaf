// ④ Elasticsearch transport protocol (node-to-node and transport-client
// traffic, default port 9300; Elasticsearch's TcpHeader): every message
// opens with the marker bytes "ES" and a 32-bit big-endian length of what
// follows; a ping is "ES" with length -1 (0xFFFFFFFF) and nothing after.
// As nDPI: the flow's packet must open with "ES" and hold at least the
// announced length + 6 bytes, that sum taken modulo 2^32 as nDPI computes it
// (so the 6-byte ping passes). One packet decides; no port required.
// Elasticsearch's REST API is plain HTTP: nDPI names it HTTP, not this.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_elastic_search(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 6 || !has_at(b, 0, "ES")) return Verdict::No;
  const uint32_t need = load_be32(b.data() + 2) + 6u;  // wraps like nDPI's u32 sum
  if (b.size() < need) return Verdict::No;
  m.app = id(ProtoId::Elasticsearch);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(elastic_search, {"Elasticsearch", id(ProtoId::Elasticsearch), kL4Tcp, 1, classify_elastic_search});

}  // namespace fg
