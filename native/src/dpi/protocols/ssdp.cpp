// ④ SSDP (UPnP discovery): HTTP-over-UDP requests to port 1900
// ("M-SEARCH * HTTP/1.1", "NOTIFY * HTTP/1.1") and the unicast
// "HTTP/1.1 200 OK" answers to them.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ssdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (has_at(b, 0, "M-SEARCH * HTTP/1.1") || has_at(b, 0, "NOTIFY * HTTP/1.1")) {
    m.app = id(ProtoId::SSDP);
    return Verdict::Match;
  }
  if ((c.srv_port == 1900 || c.cli_port == 1900) && has_at(b, 0, "HTTP/1.1 200 OK")) {
    m.app = id(ProtoId::SSDP);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(ssdp, {"SSDP", id(ProtoId::SSDP), kL4Udp, 2, classify_ssdp});

}  // namespace fg
