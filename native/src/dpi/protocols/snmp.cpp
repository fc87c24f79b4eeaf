// ④ SNMP (RFC 1157, 3416, 3412): on ports 161/162 a BER SEQUENCE whose
// first element is the version, INTEGER 0 (v1), 1 (v2c) or 3 (v3).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_snmp(DpiCtx& c, Match& m) {
  bool port = c.srv_port == 161 || c.srv_port == 162 || c.cli_port == 161 || c.cli_port == 162;
  Bytes b = c.payload;
  if (!port || b.size() < 5 || b[0] != 0x30) return Verdict::No;
  // SEQUENCE length: short form, or long form in 1 or 2 bytes.
  size_t off = 2, len = b[1];
  if (len & 0x80) {
    size_t n = len & 0x7f;
    if (n < 1 || n > 2 || b.size() < 2 + n + 3) return Verdict::No;
    len = n == 1 ? b[2] : load_be16(b.data() + 2);
    off = 2 + n;
  }
  if (off + len != b.size()) return Verdict::No;
  if (b[off] != 0x02 || b[off + 1] != 0x01) return Verdict::No;
  uint8_t version = b[off + 2];
  if (version != 0 && version != 1 && version != 3) return Verdict::No;
  m.app = id(ProtoId::SNMP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(snmp, {"SNMP", id(ProtoId::SNMP), kL4Udp, 2, classify_snmp});

}  // namespace fg
