// ④ OpenWire (Apache ActiveMQ's native wire format, activemq.apache.org
// "OpenWire" v2+ spec), TCP: with size prefixing on, each command is a
// 32-bit big-endian size then the command; the first one each side sends is
// WIREFORMAT_INFO (data type 1), whose body starts with the magic
// "ActiveMQ". As nDPI: more than 22 bytes, the size equal to the payload
// minus 4, type 1 and "ActiveMQ" right after. One packet decides; no port
// required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint8_t kWireFormatInfo = 1;

Verdict classify_openwire(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 22 || load_be32(b.data()) != uint32_t(b.size() - 4) || b[4] != kWireFormatInfo) return Verdict::No;
  if (!has_at(b, 5, "ActiveMQ")) return Verdict::No;
  m.app = id(ProtoId::OpenWire);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(openwire, {"OpenWire", id(ProtoId::OpenWire), kL4Tcp, 1, classify_openwire});

}  // namespace fg
