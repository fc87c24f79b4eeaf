// ④ Dropbox LAN sync discovery ("db-lsp-disc", UDP 17500): each Dropbox
// client broadcasts a JSON announcement ({"host_int": …, "version": …,
// "displayname": …, "port": 17500, "namespaces": […]}) from and to port
// 17500. As nDPI: UDP towards 17500; when the source port is 17500 too, a
// datagram over 10 bytes whose text holds "host_int" in quotes; from another
// source port, one holding "Bus17Cmd" (the LAN-sync bus command). The text
// is searched as a C string, so it ends at the first NUL byte, as in nDPI.
// Anything else rules the flow out on its first datagram. The TCP LAN-sync
// transfers (TLS on 17500) are left to TLS, as nDPI does.
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kLanSyncPort = 17500;

// `needle` within the payload read up to its first NUL (or its end).
bool in_text(Bytes b, std::string_view needle) {
  const void* nul = std::memchr(b.data(), 0, b.size());
  const size_t n = nul ? size_t(static_cast<const uint8_t*>(nul) - b.data()) : b.size();
  for (size_t i = 0; i + needle.size() <= n; i++)
    if (std::memcmp(b.data() + i, needle.data(), needle.size()) == 0) return true;
  return false;
}

Verdict classify_dropbox(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (c.p.dport != kLanSyncPort || b.size() <= 10) return Verdict::No;
  const std::string_view needle = c.p.sport == kLanSyncPort ? std::string_view("\"host_int\"") : std::string_view("Bus17Cmd");
  if (!in_text(b, needle)) return Verdict::No;
  m.app = id(ProtoId::Dropbox);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dropbox, {"Dropbox", id(ProtoId::Dropbox), kL4Udp, 1, classify_dropbox});

}  // namespace fg
