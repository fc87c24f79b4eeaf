// ④ Modbus/TCP (port 502, as nDPI requires): the MBAP header — protocol id
// 0, a length counting the unit id and PDU — then a function code; function
// 0x5A is Schneider's UMAS carried in Modbus (Modbus.UMAS).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_modbus(DpiCtx& c, Match& m) {
  if (c.srv_port != 502 && c.cli_port != 502) return Verdict::No;
  Bytes b = c.payload;
  // nDPI gives up on the first packet that is not Modbus (short ones too)
  // and reads the function code as is: 0x5a alone is UMAS, any other code
  // (0 and exception answers included) plain Modbus.
  if (b.size() < 8) return Verdict::No;
  if (load_be16(b.data() + 2) != 0 || load_be16(b.data() + 4) != b.size() - 6) return Verdict::No;
  if (b[7] == 0x5a) {
    m.master = id(ProtoId::Modbus), m.app = id(ProtoId::UMAS);
  } else {
    m.app = id(ProtoId::Modbus);
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(modbus, {"Modbus", id(ProtoId::Modbus), kL4Tcp, 1, classify_modbus});

}  // namespace fg
