// ④ MGCP (RFC 3435, UDP): a command verb (AUEP, AUCX, CRCX, DLCX, EPCF, MDCX,
// NTFY, RQNT, RSIP) and later "MGCP " with the version, the line ending
// with a line break (CR alone is seen too), as nDPI checks.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_mgcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || (b[b.size() - 1] != '\n' && b[b.size() - 1] != '\r')) return Verdict::No;
  static const char* const kVerbs[] = {"AUEP ", "AUCX ", "CRCX ", "DLCX ", "EPCF ", "MDCX ", "NTFY ", "RQNT ", "RSIP "};
  bool verb = false;
  for (const char* v : kVerbs) verb |= std::memcmp(b.data(), v, 5) == 0;
  if (!verb) return Verdict::No;
  for (size_t i = 5; i + 5 < b.size(); i++) {
    if (std::memcmp(b.data() + i, "MGCP ", 5) == 0) {
      m.app = id(ProtoId::MGCP);
      return Verdict::Match;
    }
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(mgcp, {"MGCP", id(ProtoId::MGCP), kL4Udp, 1, classify_mgcp});

}  // namespace fg
