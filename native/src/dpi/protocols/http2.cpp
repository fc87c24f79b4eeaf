// ④ HTTP/2 with prior knowledge (cleartext h2c), as nDPI's
// src/lib/protocols/http2.c reads it: the flow's first payload packet (TCP)
// opens with the client connection preface "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
// (RFC 9113 §3.4, 24 bytes); anything else rules HTTP2 out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_http2(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 24 || b[0] != 'P' || !has_at(b, 0, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")) return Verdict::No;
  m.app = id(ProtoId::HTTP2);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(http2, {"HTTP2", id(ProtoId::HTTP2), kL4Tcp, 1, classify_http2});

}  // namespace fg
