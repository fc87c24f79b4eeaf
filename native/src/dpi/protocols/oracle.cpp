// ④ Oracle TNS (Transparent Network Substrate, as Wireshark's packet-tns
// reads it), TCP: an 8-byte header (16-bit packet length, packet checksum,
// type, reserved byte, header checksum) then the packet; type 1 is CONNECT,
// the client's first message. As nDPI, which finds this test weak and so
// asks for the listener's default port 1521 on either side: the flow's
// packet must be a CONNECT whose length field is the payload's length and
// whose checksums and reserved byte are zero. Anything else rules it out
// (the port guess may still name it). One packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kTnsPort = 1521;
constexpr uint8_t kTnsConnect = 1;

Verdict classify_oracle(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.srv_port != kTnsPort && c.cli_port != kTnsPort) return Verdict::No;
  if (b.size() < 8 || load_be16(b.data()) != b.size()) return Verdict::No;
  const bool zero_checksums = b[2] == 0 && b[3] == 0 && b[6] == 0 && b[7] == 0;
  if (!zero_checksums || b[4] != kTnsConnect || b[5] != 0) return Verdict::No;
  m.app = id(ProtoId::Oracle);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(oracle, {"Oracle", id(ProtoId::Oracle), kL4Tcp, 1, classify_oracle});

}  // namespace fg
