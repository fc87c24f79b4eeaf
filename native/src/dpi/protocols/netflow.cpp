// ④ NetFlow v1/v5/v7/v9 and IPFIX (v10) export datagrams over UDP: the
// version, a record count that fits (fixed-size records for v1/v5/v7, the
// whole length for IPFIX) and an export time between 2000 and now (v1 may
// send 0). "Now" is the clock of the machine classifying, as in nDPI (its
// gettimeofday), not the packet's time: a capture read later accepts export
// times after its own. A header that fits with an export time out of range
// rules nothing out: nDPI reads the flow's next datagram the same way.
#include <ctime>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_netflow(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 24 || b[0] != 0) return Verdict::No;
  const uint8_t version = b[1];
  const uint16_t n = load_be16(b.data() + 2);
  size_t at;
  if (version == 10) {
    if (n != b.size()) return Verdict::No;
    at = 4;
  } else {
    if (version != 1 && version != 5 && version != 7 && version != 9) return Verdict::No;
    if (n == 0 || n > 30) return Verdict::No;
    size_t expected = version == 1 ? 16 + n * 48u : version == 5 ? 24 + n * 48u : version == 7 ? 24 + n * 52u : 0;
    if (expected && expected != b.size()) return Verdict::No;
    at = 8;
  }
  const uint32_t when = load_be32(b.data() + at);
  const uint32_t now = uint32_t(std::time(nullptr));
  if ((version == 1 && when == 0) || (when >= 946684800u && when <= now)) {
    m.app = id(ProtoId::NetFlow);
    return Verdict::Match;
  }
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(netflow, {"NetFlow", id(ProtoId::NetFlow), kL4Udp, kMaxDpiPackets, classify_netflow});

}  // namespace fg
