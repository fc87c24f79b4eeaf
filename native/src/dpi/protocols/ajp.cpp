// ④ AJP13 (Apache JServ Protocol 1.3, Tomcat's "AJPv13" reference), TCP:
// packets from the web server to the container open with 0x12 0x34, those
// back with "AB" (0x41 0x42); then a 16-bit length and the type byte.
// As nDPI, one packet decides: a non-zero length and, after 0x1234, a
// server-to-container type (2 Forward Request, 7 Shutdown, 8 Ping,
// 10 CPing), or after "AB" a container-to-server type (3 Send Body Chunk,
// 4 Send Headers, 5 End Response, 6 Get Body Chunk, 9 CPong Reply).
// Direction is not checked, only the magic. No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kToContainer = 0x1234, kToServer = 0x4142;

Verdict classify_ajp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 5) return Verdict::No;
  const uint16_t magic = load_be16(b.data()), len = load_be16(b.data() + 2);
  const uint8_t type = b[4];
  bool ok = false;
  if (len > 0 && magic == kToContainer) ok = type == 2 || type == 7 || type == 8 || type == 10;
  else if (len > 0 && magic == kToServer) ok = (type >= 3 && type <= 6) || type == 9;
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::AJP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ajp, {"AJP", id(ProtoId::AJP), kL4Tcp, 1, classify_ajp});

}  // namespace fg
