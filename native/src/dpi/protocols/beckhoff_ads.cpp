// ④ Beckhoff ADS over TCP (Beckhoff Information System, "ADS/AMS
// specification": AMS/TCP port 48898). An AMS/TCP header (2 reserved
// octets, then the AMS message length, little-endian 32 bits) precedes the
// 32-octet AMS header: target and source AMS NetId (6 octets) and port (2),
// command id, state flags (16 bits each), data length, error code and
// invoke id (32 bits each), all little-endian, then the ADS data.
// nDPI reads the flow's first payload segment on any port: at least 38
// octets, reserved zero, the AMS length equal to the rest of the segment,
// the AMS data length equal to what follows the AMS header, state flags
// 0x0004 (request over TCP) or 0x0005 (response over TCP), a command id
// at most 9 (ReadWrite; 0 is "invalid" but accepted) and an error code at
// most 0x1e. A segment holding several AMS packets is not named.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kAmsTcpHeader = 6, kAmsHeader = 32;

Verdict classify_beckhoff_ads(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kAmsTcpHeader + kAmsHeader) return Verdict::No;
  const uint8_t* p = b.data();
  const size_t ams_len = b.size() - kAmsTcpHeader;
  if (load_le16(p) != 0 || load_le32(p + 2) != ams_len) return Verdict::No;
  const uint8_t* ams = p + kAmsTcpHeader;
  const uint16_t command = load_le16(ams + 16), flags = load_le16(ams + 18);
  const uint32_t data_len = load_le32(ams + 20), error = load_le32(ams + 24);
  if (data_len != ams_len - kAmsHeader) return Verdict::No;
  if ((flags != 0x0004 && flags != 0x0005) || command > 9 || error > 0x1e) return Verdict::No;
  m.app = id(ProtoId::BeckhoffADS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(beckhoff_ads, {"BeckhoffADS", id(ProtoId::BeckhoffADS), kL4Tcp, 1, classify_beckhoff_ads});

}  // namespace fg
