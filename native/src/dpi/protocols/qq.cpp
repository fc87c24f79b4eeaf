// ④ QQ (Tencent's instant messenger, its UDP client–server transport; no
// public specification, the shapes are those nDPI recognises from
// captures): a datagram of a fixed size whose first four bytes are
// 02 00 48 00 (72 bytes), 02 00 40 00 (64), 02 00 42 00 (60), 02 00 5a 00
// (84), 02 00 38 00 (56), or, 39 bytes or more, 28 00 00 00. Ports are not
// required and either direction counts. As nDPI: any of the flow's first
// packets may carry it; nDPI stops looking once it has processed more than
// 4 packets, so the 5th payload packet is the last one read (nDPI counts
// every packet there; UDP datagrams without payload are rare).
#include "dpi/dpi.h"

namespace fg {
namespace {

bool qq_shape(Bytes b) {
  if (b.size() < 4) return false;
  const uint32_t head = load_be32(b.data());
  switch (b.size()) {
    case 72: if (head == 0x02004800) return true; break;
    case 64: if (head == 0x02004000) return true; break;
    case 60: if (head == 0x02004200) return true; break;
    case 84: if (head == 0x02005a00) return true; break;
    case 56: if (head == 0x02003800) return true; break;
    default: break;
  }
  return b.size() >= 39 && head == 0x28000000;
}

Verdict classify_qq(DpiCtx& c, Match& m) {
  if (qq_shape(c.payload)) {
    m.app = id(ProtoId::QQ);
    return Verdict::Match;
  }
  return c.flow.dpi_packets > 4 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(qq, {"QQ", id(ProtoId::QQ), kL4Udp, 5, classify_qq});

}  // namespace fg
