// ④ Ookla Speedtest's own TCP/UDP test protocol (the line-based
// "speedtest server" protocol on port 8080: the client greets with "HI",
// the server answers "HELLO <version> …", then PING / DOWNLOAD / UPLOAD
// commands). As nDPI: 8080 on either side is required; the flow's first
// payload packet must open with "HI" and its second with "HELLO", whichever
// side sends them; anything else rules the flow out. Stateless: being asked
// on the second packet means the first one was "HI".
// Not here, decided by nDPI from other flows or other dissectors: HTTP
// requests for Ookla's speedtest paths/hosts and TLS names (*.ookla.com,
// speedtest.net …, Ookla in host lists) name their flow Ookla and put the
// client address into an LRU cache (1024 entries, 120 s); at give-up, an
// unknown flow to server port 8080 from a cached client is Ookla with
// partial-cache confidence. flowgate has no such cache yet.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kOoklaPort = 8080;

Verdict classify_ookla(DpiCtx& c, Match& m) {
  if (c.cli_port != kOoklaPort && c.srv_port != kOoklaPort) return Verdict::No;
  const uint8_t n = c.flow.dpi_packets;
  if (n == 1 && has_at(c.payload, 0, "HI")) return Verdict::NeedMore;
  if (n == 2 && has_at(c.payload, 0, "HELLO")) {
    m.app = id(ProtoId::Ookla);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(ookla, {"Ookla", id(ProtoId::Ookla), kL4Both, 2, classify_ookla});

}  // namespace fg
