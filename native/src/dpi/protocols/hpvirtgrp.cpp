// ④ HP Virtual Machine Group Management (TCP), as nDPI recognises it: the
// flow's first payload packet starts with 0x16, a 16-bit length equal to
// the packet's, and a zero byte. (A TLS record also starts with 0x16 but
// its length field at offset 3 excludes the 5-byte header, so they differ.)
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_hpvirtgrp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets != 1 || b.size() < 4 || b[0] != 0x16 || b[3] != 0x00 ||
      load_be16(b.data() + 1) != b.size())
    return Verdict::No;
  m.app = id(ProtoId::HP_VIRTGRP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(hpvirtgrp, {"HP_VIRTGRP", id(ProtoId::HP_VIRTGRP), kL4Tcp, 1, classify_hpvirtgrp});

}  // namespace fg
