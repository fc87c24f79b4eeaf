// ④ Steam In-Home Streaming / Remote Play discovery (Valve's
// steammessages_remoteclient_discovery.proto; the packets broadcast on UDP
// 27036): every datagram opens with an 8-byte signature, 0xFFFFFFFF then
// the magic 0xA05F4C21 (read as one little-endian 64-bit word: bytes
// FF FF FF FF 21 4C 5F A0), then the header length, the protobuf
// CMsgRemoteClientBroadcastHeader, the body length and the body. As nDPI:
// UDP only, on any port, the datagram at least 40 bytes and the signature
// in place; anything else rules the flow out on its first datagram (nDPI
// has no Remote Play stream detection either).
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint64_t kDiscoverySignature = 0xA05F4C21FFFFFFFFull;
constexpr size_t kMinDiscovery = 40;  // nDPI's floor: signature + a minimal header and body

Verdict classify_steam(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (b.size() < kMinDiscovery || load_le64(b.data()) != kDiscoverySignature) return Verdict::No;
  m.app = id(ProtoId::Steam);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(steam, {"Steam", id(ProtoId::Steam), kL4Udp, 1, classify_steam});

}  // namespace fg
