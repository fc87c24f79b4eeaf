// ④ MGCP (RFC 3435, UDP), as nDPI reads a command line: a verb (AUEP, AUCX,
// CRCX, DLCX, EPCF, MDCX, NTFY, RQNT, RSIP) and a space, the transaction id,
// a space, the endpoint, a space, then "MGCP " — in a datagram ending with
// a line break (CR alone is seen too). nDPI's searches for those spaces
// stop at a NUL byte. The endpoint's host (after '@', else all of it) is
// the flow's name.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

// The first space at or after `from`, before the payload's first NUL; n when none.
size_t space_from(Bytes b, size_t from) {
  for (size_t i = from; i < b.size(); i++) {
    if (b[i] == 0) break;
    if (b[i] == ' ') return i;
  }
  return b.size();
}

Verdict classify_mgcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n < 8 || (b[n - 1] != '\n' && b[n - 1] != '\r')) return Verdict::No;
  static const char* const kVerbs[] = {"AUEP ", "AUCX ", "CRCX ", "DLCX ", "EPCF ", "MDCX ", "NTFY ", "RQNT ", "RSIP "};
  bool verb = false;
  for (const char* v : kVerbs) verb |= std::memcmp(b.data(), v, 5) == 0;
  if (!verb) return Verdict::No;
  const size_t sp1 = space_from(b, 5);
  if (sp1 >= n) return Verdict::No;
  const size_t endpoint = sp1 + 1;
  const size_t sp2 = space_from(b, endpoint);
  if (sp2 >= n) return Verdict::No;
  const size_t version = sp2 + 1;
  // the line ends with CR / LF, so "MGCP " must fit whole before it
  if (n - version < 5 || std::memcmp(b.data() + version, "MGCP ", 5) != 0) return Verdict::No;
  size_t host = endpoint;
  for (size_t i = endpoint; i < sp2; i++) {
    if (b[i] == 0) break;
    if (b[i] == '@') {
      host = i + 1;
      break;
    }
  }
  c.set_host(reinterpret_cast<const char*>(b.data() + host), sp2 - host);
  m.app = id(ProtoId::MGCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mgcp, {"MGCP", id(ProtoId::MGCP), kL4Udp, 1, classify_mgcp});

}  // namespace fg
