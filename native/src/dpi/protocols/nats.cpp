// ④ NATS (messaging, TCP): a packet opening with one of the protocol's
// verbs ("INFO {", "CONNECT {", "PUB ", "SUB ", "UNSUB ", "MSG ", "PING",
// "PONG") and holding a CRLF. The server speaks first (INFO), so this names
// the flow before HTTP could read the client's CONNECT as a proxy request.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr std::string_view kVerbs[] = {"INFO {", "CONNECT {", "PUB ", "SUB ", "UNSUB ", "MSG ", "PING", "PONG"};

Verdict classify_nats(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 4) return Verdict::No;  // nDPI gives up on a short packet
  // nDPI looks for the CRLF as in a C string: before the first NUL only.
  size_t text = 0;
  while (text < b.size() && b[text]) text++;
  for (std::string_view v : kVerbs) {
    // A shorter payload only has to agree with the verb's start.
    std::string_view want = v.substr(0, b.size() < v.size() ? b.size() : v.size());
    if (!has_at(b, 0, want)) continue;
    if (!contains(Bytes(b.data(), text), "\r\n")) break;
    m.app = id(ProtoId::Nats);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(nats, {"Nats", id(ProtoId::Nats), kL4Tcp, 1, classify_nats});

}  // namespace fg
