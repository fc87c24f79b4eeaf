// ④ SSDP (UPnP discovery), as nDPI's ssdp.c: a UDP payload of 19 bytes or
// more, on any port, opening with "M-SEARCH * HTTP/1.1", "NOTIFY *
// HTTP/1.1" or "HTTP/1.1 200 OK\r\n"; the flow's first payload packet
// decides. The Host header's value (nDPI's line reading: CR LF lines, the
// name without regard to case, spaces trimmed, the last one kept) names the
// flow.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// The last "Host:" line's value, as nDPI's line parser leaves it.
Bytes host_header(Bytes b) {
  Bytes host;
  if (b.size() < 3) return host;
  size_t start = 0, lines = 0;
  bool any = false;
  auto take = [&](Bytes l) {
    if (l.size() > 5 && has_at_upper(l, 0, "HOST:")) {
      size_t s = 5, e = l.size();
      while (s < e && l[s] == ' ') s++;
      while (e > s && l[e - 1] == ' ') e--;
      host = l.subspan(s, e - s);
    }
  };
  for (size_t a = 0; a + 1 < b.size(); a++) {
    if (b[a] != '\r' || b[a + 1] != '\n') continue;
    take(b.subspan(start, a - start));
    any = true;
    if (++lines >= 64) return host;
    start = a + 2;
    a++;
  }
  if (any) take(b.subspan(start, b.size() - start));
  return host;
}

Verdict classify_ssdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 19) return Verdict::No;
  if (!has_at(b, 0, "M-SEARCH * HTTP/1.1") && !has_at(b, 0, "NOTIFY * HTTP/1.1") && !has_at(b, 0, "HTTP/1.1 200 OK\r\n"))
    return Verdict::No;
  const Bytes host = host_header(b);
  if (!host.empty()) c.set_host(reinterpret_cast<const char*>(host.data()), host.size());
  m.app = id(ProtoId::SSDP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ssdp, {"SSDP", id(ProtoId::SSDP), kL4Udp, 1, classify_ssdp});

}  // namespace fg
