// ④ rsync daemon protocol (rsyncd, rsync(1) "CONNECTING TO AN RSYNC DAEMON";
// the exchange opens with each side sending the greeting line
// "@RSYNCD: <version>\n", the server's also "@RSYNCD: OK" / "@RSYNCD: EXIT").
// nDPI's rule, kept: any TCP packet of either side that starts with
// "@RSYNCD:" names the flow, on any port; after the 5th payload packet
// without one it gives up.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_rsync(DpiCtx& c, Match& m) {
  if (has_at(c.payload, 0, "@RSYNCD:")) {
    m.app = id(ProtoId::RSYNC);
    return Verdict::Match;
  }
  return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(rsync, {"RSYNC", id(ProtoId::RSYNC), kL4Tcp, 6, classify_rsync});

}  // namespace fg
