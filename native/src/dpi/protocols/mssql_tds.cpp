// ④ MS SQL Server's TDS (MS-TDS 2.2.3.1 packet header), TCP: Type, Status,
// big-endian Length of the whole packet, SPID, PacketID, Window. As nDPI, on
// the flow's first payload: Type 1–8 or 14–18 (a little wider than MS-TDS's
// list: 5 and 15 are accepted too), Status one of 0x00 0x01 0x02 0x04 0x08
// 0x09 0x10 (no other combination of bits), Length equal to the payload and
// Window 0. A packet sent to port 102 is ruled out: ISO-TSAP's TPKT header
// looks alike there.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kHeader = 8;

Verdict classify_mssql_tds(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kHeader || c.p.dport == 102) return Verdict::No;
  const uint8_t type = b[0], status = b[1];
  const bool type_ok = (type >= 1 && type <= 8) || (type >= 14 && type <= 18);
  const bool status_ok = status == 0x00 || status == 0x01 || status == 0x02 || status == 0x04 || status == 0x08 ||
                         status == 0x09 || status == 0x10;
  if (!type_ok || !status_ok || load_be16(b.data() + 2) != b.size() || b[7] != 0) return Verdict::No;
  m.app = id(ProtoId::MsSQL_TDS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mssql_tds, {"MsSQL-TDS", id(ProtoId::MsSQL_TDS), kL4Tcp, 1, classify_mssql_tds});

}  // namespace fg
