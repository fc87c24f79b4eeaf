// ④ Munin node protocol (munin-node, port 4949, "Protocol" in Munin's
// guide), TCP: the node greets the master with "# munin node at <host>\n".
// nDPI's rule (src/lib/protocols/munin.c), on the flow's first payload
// segment, any port, either direction: it opens with "# munin node at ",
// else Munin is ruled out. The greeting names the flow; the host after the
// prefix, up to the final byte, is the flow's name (normalised as nDPI's
// ndpi_hostname_sni_set: payload.h ndpi_host_name). A greeting not ending with a
// newline, or with nothing between the prefix and the newline, raises the
// malformed-packet risk instead.
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
    char name[80];
    c.set_host(name, ndpi_host_name(b.data() + kGreeting.size(), name_len - 1, name));
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(munin, {"Munin", id(ProtoId::Munin), kL4Tcp, 1, classify_munin});

}  // namespace fg
