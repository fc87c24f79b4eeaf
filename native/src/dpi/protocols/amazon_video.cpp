// ④ Amazon Video (Prime Video) streaming sessions, as nDPI recognises them:
// no public document describes this framing; nDPI keys on a 4-byte magic at
// the start of the first payload packet, FE ED FA CE over TCP and DE AD BE EF
// over UDP, on a packet longer than 4 bytes, any port. The first payload
// packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_amazon_video(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 4) return Verdict::No;
  const uint32_t magic = c.p.l4_proto == kProtoTcp ? 0xfeedfaceu : 0xdeadbeefu;
  if (load_be32(b.data()) != magic) return Verdict::No;
  m.app = id(ProtoId::AmazonVideo);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(amazon_video, {"AmazonVideo", id(ProtoId::AmazonVideo), kL4Both, 1, classify_amazon_video});

}  // namespace fg
