// ④ SMPP over TCP: one or more PDUs filling the segment exactly, each a
// 16-byte header (length, command id, status, sequence). The first PDU's
// command must be a known one and its length plausible for that command;
// requests carry a zero status.
#include "dpi/dpi.h"

namespace fg {
namespace {

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

bool plausible(uint32_t cmd, uint32_t len, uint32_t status) {
  const bool resp = cmd & 0x80000000u;
  const uint32_t req = cmd & 0x00ffffffu;
  if (!resp && status) return false;
  switch (req) {
    case 0x00: return resp && len == 16;                   // generic_nack
    case 0x01: case 0x02: case 0x09: return len >= (resp ? 18u : 26u);  // bind_*
    case 0x03: return len >= (resp ? 21u : 20u);           // query_sm
    case 0x04: return resp ? (status ? len == 16 : len >= 18) : len >= 33;  // submit_sm
    case 0x05: return len >= (resp ? 17u : 33u);           // deliver_sm
    case 0x06: case 0x15: return len == 16;                // unbind, enquire_link
    case 0x07: return resp ? len == 16 : len >= 25;        // replace_sm
    case 0x08: return resp ? len == 16 : len >= 24;        // cancel_sm
    case 0x0b: return !resp && len >= 20;                  // outbind
    case 0x21: return len >= (resp ? 26u : 33u);           // submit_multi
    case 0x102: return !resp && len >= 22;                 // alert_notification
    case 0x103: return len >= (resp ? 18u : 26u);          // data_sm
    default: return false;
  }
}

Verdict classify_smpp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 16 || (b[4] != 0x00 && b[4] != 0x80)) return Verdict::No;
  const uint32_t len = be32(b.data());
  if (len < 16) return Verdict::No;
  // The PDUs must tile the segment; otherwise try a later segment.
  size_t off = 0;
  while (off + 4 <= b.size()) {
    uint32_t l = be32(b.data() + off);
    if (l < 16 || l > b.size() - off) return Verdict::NeedMore;
    off += l;
  }
  if (off != b.size()) return Verdict::NeedMore;
  if (!plausible(be32(b.data() + 4), len, be32(b.data() + 8))) return Verdict::No;
  m.app = id(ProtoId::SMPP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(smpp, {"SMPP", id(ProtoId::SMPP), kL4Tcp, 3, classify_smpp});

}  // namespace fg
