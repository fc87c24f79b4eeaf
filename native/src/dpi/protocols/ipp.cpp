// ④ IPP, the Internet Printing Protocol (RFC 8010 §4: operations are HTTP
// POST requests whose body is application/ipp; RFC 7472 / CUPS put printers
// under the "/ipp/" path, e.g. "POST /ipp/print HTTP/1.1").
// nDPI treats it as a sub-protocol of HTTP, asked on the packet that made
// the flow plain HTTP (no application named by the host): the request line
// must be complete ("POST <url> HTTP/1.x" ended by CRLF), the method POST
// and the URL start with "/ipp/" (case as written) → HTTP.IPP. In any other
// state it rules IPP out for good. A Content-Type "application/ipp" is
// matched by http.cpp itself (nDPI's content match), not here.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ipp(DpiCtx& c, Match& m) {
  if (c.flow.l7_app != id(ProtoId::HTTP)) return Verdict::No;
  Bytes b = c.payload;
  constexpr size_t kUrl = 5;  // after "POST "
  if (!has_at(b, 0, "POST ")) return Verdict::No;
  // The first line, up to its CRLF (nDPI reads only CRLF-ended lines).
  size_t eol = 0;
  while (eol + 1 < b.size() && !(b[eol] == '\r' && b[eol + 1] == '\n')) eol++;
  if (eol + 1 >= b.size()) return Verdict::No;
  // "<url> HTTP/1.x": the version takes the line's last 9 bytes.
  if (eol < kUrl + 9 || !has_at(b, eol - 9, " HTTP/1.")) return Verdict::No;
  const size_t url_len = eol - 9 - kUrl;
  if (url_len < 5 || !has_at(b, kUrl, "/ipp/")) return Verdict::No;
  m.master = id(ProtoId::HTTP), m.app = id(ProtoId::IPP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ipp, {"IPP", id(ProtoId::IPP), kL4Tcp, kMaxDpiPackets, classify_ipp});

}  // namespace fg
