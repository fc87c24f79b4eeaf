// ④ TRDP, the Train Real-time Data Protocol (IEC 61375-2-3 Annex A; UDP
// 17224 process data, UDP/TCP 17225 message data). Both headers open with
// sequence counter, protocol version, message type (2 ASCII letters: "Pd",
// "Pr"… for process data, "Mn", "Mr"… for message data), ComId, topography
// counters and the dataset length (big-endian 32 bits); the header closes
// with its FCS, a CRC-32 (IEEE 802.3) over the header before it, stored
// little-endian. A process-data header is 40 octets, a message-data one 116.
// nDPI reads the flow's first payload packet on any port, looking at the
// message type's first letter only:
// - 'P', UDP only: at least 40 octets, the dataset length equal to what
//   follows the header, the reserved word at 24 zero, a valid header FCS;
// - 'M', TCP or UDP: at least 116 octets, the dataset length plus its
//   padding to 4 octets equal to what follows the header (compared in 32
//   bits as nDPI does), a valid FCS.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kPdHeader = 40, kMdHeader = 116;

uint32_t crc32_ieee(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
  }
  return ~crc;
}

bool fcs_ok(Bytes b, size_t header) { return crc32_ieee(b.data(), header - 4) == load_le32(b.data() + header - 4); }

Verdict classify_trdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kPdHeader) return Verdict::No;
  const uint32_t dataset = load_be32(b.data() + 20);
  bool ok = false;
  if (b[6] == 'P') {
    ok = c.p.l4_proto == kProtoUdp && b.size() - kPdHeader == dataset && load_be32(b.data() + 24) == 0 &&
         fcs_ok(b, kPdHeader);
  } else if (b[6] == 'M' && b.size() >= kMdHeader) {
    const uint32_t padding = (4 - dataset % 4) % 4;
    // in 32 bits, as nDPI subtracts the padding from the length
    ok = uint32_t(b.size() - kMdHeader - padding) == dataset && fcs_ok(b, kMdHeader);
  }
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::TRDP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(trdp, {"TRDP", id(ProtoId::TRDP), kL4Both, 1, classify_trdp});

}  // namespace fg
