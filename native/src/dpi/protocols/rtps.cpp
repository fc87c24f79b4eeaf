// ④ RTPS, the DDS wire protocol (OMG DDSI-RTPS 2.5 §9.4.4.1: the message
// header is the magic "RTPS", the protocol version major.minor, vendor id
// and a 12-byte GUID prefix, 20 bytes), UDP on any port. nDPI accepts the
// magic "RTPS" or "RTPX", major version 2 and minor up to 5, on a datagram
// of at least 16 bytes; the first payload packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_rtps(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 16 || !(has_at(b, 0, "RTPS") || has_at(b, 0, "RTPX"))) return Verdict::No;
  if (b[4] != 2 || b[5] > 5) return Verdict::No;
  m.app = id(ProtoId::RTPS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rtps, {"RTPS", id(ProtoId::RTPS), kL4Udp, 1, classify_rtps});

}  // namespace fg
