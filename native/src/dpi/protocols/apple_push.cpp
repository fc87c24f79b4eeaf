// ④ Apple Push Notification service, as nDPI names it: TCP payload to or
// from Apple's push addresses (17.0.0.0/8; 2620:149:a44::/48,
// 2403:300:a42::/48, 2403:300:a51::/48, and 2a0a:b740:a42::/48 — nDPI's
// code tests 2a0a:…, though its comment names 2a01:b740:…) on port 5223 or
// 2197. Registered after TLS: a TLS record whole in the first segment makes
// the flow TLS first, as in nDPI's dissector order.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool apple_push_addr(const IpAddr& a) {
  if (a.is_v4()) return (a.v4() >> 24) == 17;
  const uint32_t hi = load_be32(a.b);
  const uint16_t third = load_be16(a.b + 4);
  return (hi == 0x26200149u && third == 0x0a44) || (hi == 0x24030300u && (third == 0x0a42 || third == 0x0a51)) ||
         (hi == 0x2a0ab740u && third == 0x0a42);
}

Verdict classify_apple_push(DpiCtx& c, Match& m) {
  auto port = [](uint16_t p) { return p == 5223 || p == 2197; };
  if (!port(c.p.sport) && !port(c.p.dport)) return Verdict::No;
  if (!apple_push_addr(c.p.src) && !apple_push_addr(c.p.dst)) return Verdict::No;
  m.app = id(ProtoId::ApplePush);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(apple_push, {"ApplePush", id(ProtoId::ApplePush), kL4Tcp, 1, classify_apple_push});

}  // namespace fg
