// ④ DNSCrypt (v1 and v2), as nDPI recognises it: a resolver's answer opens
// with the v1 resolver magic "r6fnvWj8"; the certificate query every client
// starts with asks for TXT "2.dnscrypt-cert.<provider>", whose first two
// labels sit right after the 12-byte DNS header (TCP and UDP alike, on 443
// and elsewhere). Encrypted queries alone say nothing, so the dissector
// waits for the answer, within a few packets.
#include <strings.h>

#include <cstring>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"

namespace fg {
namespace {

constexpr char kResolverMagic[] = "r6fnvWj8";
// Label "2" (length 1), then a 13-byte label ("\r") starting "dnscrypt".
constexpr char kCertQuery[] = "2\rdnscrypt";

Verdict classify_dnscrypt(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const char* s = reinterpret_cast<const char*>(b.data());
  if (b.size() >= 64 && std::memcmp(s, kResolverMagic, sizeof kResolverMagic - 1) == 0) {
    m.app = id(ProtoId::DNScrypt);
    return Verdict::Match;
  }
  constexpr size_t kq = sizeof kCertQuery - 1;
  if (b.size() > 13 + kq && strncasecmp(s + 13, kCertQuery, kq) == 0) {
    m.app = id(ProtoId::DNScrypt);
    return Verdict::Match;
  }
  // nDPI's dnscrypt.c gives up once each nDPI direction (ndpi_direction.h)
  // carried a payload packet, this one included, or on the flow's 8th
  // payload packet (still checked). The directions are bits 5-6 of
  // kScratchDnsCrypt; without a scratch byte the flow is ruled out.
  uint8_t* seen = c.scratch(kScratchDnsCrypt);
  if (!seen) return Verdict::No;
  *seen |= uint8_t(0x20u << ndpi_direction(c.p));
  if ((*seen & 0x60u) == 0x60u || c.flow.dpi_packets >= 8) return Verdict::No;
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(dnscrypt, {"DNScrypt", id(ProtoId::DNScrypt), kL4Both, 8, classify_dnscrypt});

}  // namespace fg
