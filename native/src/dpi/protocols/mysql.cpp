// ④ MySQL, as nDPI's mysql.c: the flow's first payload packet, either
// direction, is the server's handshake or the flow is not MySQL. 71 to 119
// bytes; a 3-byte little-endian length covering all but the 4-byte header
// (the sequence byte is not read); protocol byte 10; a server version
// starting "5.5.5-" (MariaDB's prefix) or with a digit 4 to 8; and the
// packet ends with an authentication plugin name of nDPI's list
// ("…_password", "…_kerberos", "…_windows", "…_simple", "…_gssapi",
// "…_pam", each followed by one last byte, its NUL).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool ends_with_plugin(Bytes b) {
  const size_t n = b.size();
  return has_at(b, n - 10, "_password") || has_at(b, n - 10, "_kerberos") || has_at(b, n - 9, "_windows") ||
         has_at(b, n - 8, "_simple") || has_at(b, n - 8, "_gssapi") || has_at(b, n - 5, "_pam");
}

Verdict classify_mysql(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 70 || b.size() >= 120) return Verdict::No;
  const size_t len = b[0] | (size_t(b[1]) << 8) | (size_t(b[2]) << 16);
  if (len + 4 != b.size() || b[4] != 0x0a) return Verdict::No;
  if (!has_at(b, 5, "5.5.5-") && (b[5] <= 0x33 || b[5] >= 0x39)) return Verdict::No;
  if (!ends_with_plugin(b)) return Verdict::No;
  m.app = id(ProtoId::MySQL);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mysql, {"MySQL", id(ProtoId::MySQL), kL4Tcp, 1, classify_mysql});

}  // namespace fg
