// ④ Munin node protocol (munin-node, port 4949, "Protocol" in Munin's
// guide), TCP: the node greets the master with "# munin node at <host>\n".
// As nDPI: the packet must open with "# munin node at " (one packet
// decides, so the greeting has to be the flow's first payload). The host
// name after it, up to the final newline, is the flow's name; a greeting
// not ending with a newline, or with no name, raises the malformed-packet
// risk. No port required.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr std::string_view kGreeting = "# munin node at ";

Verdict classify_munin(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!has_at(b, 0, kGreeting)) return Verdict::No;
  m.app = id(ProtoId::Munin);
  const size_t name_len = b.size() - kGreeting.size();  // includes the newline
  if (b.back() != '\n' || name_len <= 1) {
    c.risk(Risk::MalformedPacket);
  } else {
    c.set_host(reinterpret_cast<const char*>(b.data()) + kGreeting.size(), name_len - 1);
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(munin, {"Munin", id(ProtoId::Munin), kL4Tcp, 1, classify_munin});

}  // namespace fg
