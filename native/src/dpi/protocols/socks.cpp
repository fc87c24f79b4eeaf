// ④ SOCKS 4 and 5 (RFC 1928): the client's request, then the proxy's
// answer in the other direction. SOCKS4: "04 01|02 port addr user… 00"
// answered by 8 bytes "00 5a..5d …"; SOCKS5: the greeting "05 01 00" (one
// method, no authentication) answered by "05 00". A request not followed
// by its answer is no SOCKS (nDPI's stages). The greeting may also offer
// two methods, "05 02 00 01".
// nDPI keeps a stage per version and takes a request on any of the flow's
// first nine payload packets, in either direction, starting over when the
// other direction answers something else; no scratch slot is free for the
// stages, so here the request must be the flow's first payload packet,
// from the client, and a wrong answer excludes.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool socks_request(Bytes b) {
  if (b.size() >= 9 && b[0] == 0x04 && (b[1] == 0x01 || b[1] == 0x02) && b[b.size() - 1] == 0x00) return true;
  // SOCKS5 greetings nDPI knows: one method (none), or two (none, GSSAPI)
  return (b.size() == 3 && b[0] == 0x05 && b[1] == 0x01 && b[2] == 0x00) ||
         (b.size() == 4 && b[0] == 0x05 && b[1] == 0x02 && b[2] == 0x00 && b[3] == 0x01);
}

bool socks_answer(Bytes b) {
  if (b.size() == 8 && b[0] == 0x00 && b[1] >= 0x5a && b[1] <= 0x5d) return true;
  return b.size() == 2 && b[0] == 0x05 && b[1] == 0x00;
}

Verdict classify_socks(DpiCtx& c, Match& m) {
  // The flow's first payload is the request; asked again only after it.
  if (c.flow.dpi_packets <= 1) return c.from_client && socks_request(c.payload) ? Verdict::NeedMore : Verdict::No;
  if (c.from_client) return Verdict::NeedMore;
  if (!socks_answer(c.payload)) return Verdict::No;
  m.app = id(ProtoId::SOCKS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(socks, {"SOCKS", id(ProtoId::SOCKS), kL4Tcp, 4, classify_socks});

}  // namespace fg
