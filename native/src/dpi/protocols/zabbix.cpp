// ④ Zabbix (agent / proxy / server protocol, Zabbix manual "Header and
// data length"), TCP: every message opens with the "ZBXD" signature, then a
// flags byte (0x01 Zabbix protocol, | 0x02 compressed, | 0x04 large), the
// little-endian data and reserved lengths and the JSON or text body. As
// nDPI: the flow's first payload must start with "ZBXD"; the flags and the
// lengths are not looked at. One packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_zabbix(DpiCtx& c, Match& m) {
  if (!has_at(c.payload, 0, "ZBXD")) return Verdict::No;
  m.app = id(ProtoId::Zabbix);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(zabbix, {"Zabbix", id(ProtoId::Zabbix), kL4Tcp, 1, classify_zabbix});

}  // namespace fg
