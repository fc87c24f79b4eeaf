// ④ IPP, the Internet Printing Protocol (RFC 8010 §4: operations are HTTP
// POST requests whose body is application/ipp; RFC 7472 / CUPS put printers
// under the "/ipp/" path, e.g. "POST /ipp/print HTTP/1.1").
// nDPI treats it as a sub-protocol of HTTP, asked on the packet that made
// the flow plain HTTP (no application named by the host): the request line
// must be complete ("<method> <url> HTTP/1.x" ended by CRLF, the version's
// letters in any case), the method POST as nDPI codes it (ndpi_http_str2method:
// "PO" upper case, the rest in any case), and the URL (after the spaces
// following the method) start with "/ipp/" (case as written) → HTTP.IPP. In
// any other state it rules IPP out for good. A Content-Type
// "application/ipp" alone names nothing (nDPI 4.11 has no content match).
#include <strings.h>

#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ipp(DpiCtx& c, Match& m) {
  if (c.flow.l7_app != id(ProtoId::HTTP)) return Verdict::No;
  Bytes b = c.payload;
  const char* s = reinterpret_cast<const char*>(b.data());
  if (b.size() < 5 || s[0] != 'P' || s[1] != 'O' || strncasecmp(s, "POST ", 5) != 0) return Verdict::No;
  size_t url = 5;  // http.c's URL offset: past the spaces after the method (2048 at most)
  while (url < b.size() && url < 5 + 2048 && s[url] == ' ') url++;
  // The first line, up to its CRLF (nDPI reads only CRLF-ended lines).
  size_t eol = 0;
  while (eol + 1 < b.size() && !(b[eol] == '\r' && b[eol + 1] == '\n')) eol++;
  if (eol + 1 >= b.size()) return Verdict::No;
  // "<url> HTTP/1.x": the version takes the line's last 9 bytes.
  if (eol < url + 9 || strncasecmp(s + eol - 9, " HTTP/1.", 8) != 0) return Verdict::No;
  const size_t url_len = eol - 9 - url;
  if (url_len < 5 || !has_at(b, url, "/ipp/")) return Verdict::No;
  m.master = id(ProtoId::HTTP), m.app = id(ProtoId::IPP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ipp, {"IPP", id(ProtoId::IPP), kL4Tcp, kMaxDpiPackets, classify_ipp});

}  // namespace fg
