// ④ NFS and its helpers over ONC RPC (RFC 5531): a call (message type 0)
// of RPC version 2 to program 100003 (NFS), 100005 (mountd) or 100000
// (portmapper), version ≤ 4; over TCP behind a last-fragment record mark
// equal to the segment's remaining length.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_nfs(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t off = c.p.l4_proto == kProtoTcp ? 4 : 0;
  if (b.size() < 40 + off) return Verdict::No;
  if (off && load_be32(b.data()) != 0x80000000u + uint32_t(b.size() - 4)) return Verdict::No;
  const uint8_t* r = b.data() + off;
  if (load_be32(r + 4) != 0 || load_be32(r + 8) != 2) return Verdict::No;
  const uint32_t prog = load_be32(r + 12);
  if (prog != 100003 && prog != 100005 && prog != 100000) return Verdict::No;
  if (load_be32(r + 16) > 4) return Verdict::No;
  m.app = id(ProtoId::NFS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(nfs, {"NFS", id(ProtoId::NFS), kL4Both, 1, classify_nfs});

}  // namespace fg
