// ④ Xiaomi push (TCP), as nDPI recognises it: a 12-byte header, 0xc2fe0005,
// a 32-bit length covering the rest, then 0x00020016. On a packet to port
// 5222 (the client's), nDPI also reads the TLV list from offset 16 (type,
// 8-bit length, value; types 0x28 and 0x08 are taken as two bytes alone):
// type 0x3a is the server's "domain[:port]", kept as the flow's name
// without the port.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

void read_client_tlvs(DpiCtx& c, Bytes b) {
  size_t off = 16;
  while (off + 1 < b.size()) {
    const uint8_t type = b[off], len = b[off + 1];
    off += 2;
    if (type == 0x28 || type == 0x08) continue;
    if (off + len >= b.size()) break;
    if (type == 0x3a) {
      // up to a ':' (nDPI's search for it stops at a NUL byte)
      size_t n = len;
      for (size_t i = 0; i < len; i++) {
        if (b[off + i] == 0) break;
        if (b[off + i] == ':') {
          n = i;
          break;
        }
      }
      c.set_host(reinterpret_cast<const char*>(b.data() + off), n);
    }
    off += len;
  }
}

Verdict classify_xiaomi(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 12 || load_be32(b.data()) != 0xc2fe0005 || load_be32(b.data() + 8) != 0x00020016 ||
      uint64_t(load_be32(b.data() + 4)) + 12 != b.size())
    return Verdict::No;
  if (c.p.dport == 5222) read_client_tlvs(c, b);
  m.app = id(ProtoId::Xiaomi);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(xiaomi, {"Xiaomi", id(ProtoId::Xiaomi), kL4Tcp, 1, classify_xiaomi});

}  // namespace fg
