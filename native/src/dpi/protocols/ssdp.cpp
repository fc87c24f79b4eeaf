// ④ SSDP (UPnP discovery): HTTP-over-UDP requests to port 1900
// ("M-SEARCH * HTTP/1.1", "NOTIFY * HTTP/1.1") and the unicast
// "HTTP/1.1 200 OK" answers to them.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

bool starts_with(Bytes b, const char* s) {
  size_t n = std::strlen(s);
  return b.size() >= n && std::memcmp(b.data(), s, n) == 0;
}

Verdict classify_ssdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (starts_with(b, "M-SEARCH * HTTP/1.1") || starts_with(b, "NOTIFY * HTTP/1.1")) {
    m.app = id(ProtoId::SSDP);
    return Verdict::Match;
  }
  if ((c.srv_port == 1900 || c.cli_port == 1900) && starts_with(b, "HTTP/1.1 200 OK")) {
    m.app = id(ProtoId::SSDP);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(ssdp, {"SSDP", id(ProtoId::SSDP), kL4Udp, 2, classify_ssdp});

}  // namespace fg
