// ④ STUN (RFC 5389 / 8489, and classic RFC 3489): a 20-byte header whose
// length field covers exactly the rest of the packet, in 4-byte attributes.
// With the magic cookie the header alone is enough; the classic form, which
// has none, only on the registered port 3478. Some attributes name the
// application behind it (STUN.WhatsAppCall …), as nDPI reads them.
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr uint32_t kMagicCookie = 0x2112A442;

bool classic_type(uint16_t t) {
  switch (t) {
    case 0x0001: case 0x0101: case 0x0111:  // binding request / response / error
    case 0x0002: case 0x0102: case 0x0112:  // shared secret
    case 0x0003: case 0x0103: case 0x0113:  // allocate (TURN)
    case 0x0004: case 0x0104: case 0x0114:  // refresh
    case 0x0016: case 0x0017:               // send / data indication
      return true;
    default:
      return false;
  }
}

// The application an attribute gives away, 0 when none does.
uint16_t app_by_attributes(Bytes b) {
  for (size_t off = 20; off + 4 <= b.size();) {
    uint16_t type = load_be16(b.data() + off), len = load_be16(b.data() + off + 2);
    if (off + 4 + len > b.size()) break;
    const uint8_t* v = b.data() + off + 4;
    switch (type) {
      case 0x4000: case 0x4001: case 0x4002: case 0x4003: case 0x4004: case 0x4007:
        return id(ProtoId::WhatsAppCall);
      case 0x0101: case 0x0103:
        return id(ProtoId::Zoom);
      case 0xff03:
        return id(ProtoId::GoogleCall);
      case 0x8054: case 0x24df: case 0x3802: case 0x8036: case 0x8095:
      case 0x0800: case 0x8006: case 0x8070: case 0x8055:
        return id(ProtoId::Skype_TeamsCall);
      case 0x0014: {  // REALM: a realm with a '?' is junk to nDPI, which names nothing from it
        const Bytes text(v, len);
        if (contains(text, "?")) break;
        if (contains(text, "google.com")) return id(ProtoId::GoogleCall);
        if (contains(text, "whispersystems.org") || contains(text, "signal.org")) return id(ProtoId::SignalVoip);
        if (contains(text, "facebook")) return id(ProtoId::FacebookVoip);
        if (contains(text, "stripcdn.com")) return id(ProtoId::AdultContent);
        if (contains(text, "telegram")) return id(ProtoId::TelegramVoip);
        if (contains(text, "viber")) return id(ProtoId::ViberVoip);
        break;
      }
      default:
        break;
    }
    off += 4 + ((size_t(len) + 3) & ~size_t(3));
  }
  return 0;
}

// Google's STUN/TURN servers for Meet (support.google.com/a/answer/1279090):
// ports 19302–19309 or 3478 on 74.125.250.0/24, 142.250.82.0/24,
// 2001:4860:4864:5::/64 and :6::/64, as nDPI names them.
bool google_call_server(const DpiCtx& c) {
  auto port = [](uint16_t p) { return (p >= 19302 && p <= 19309) || p == 3478; };
  if (!port(c.cli_port) && !port(c.srv_port)) return false;
  for (const IpAddr* ip : {&c.p.src, &c.p.dst}) {
    if (ip->is_v4()) {
      const uint32_t net = ip->v4() & 0xffffff00u;
      if (net == 0x4a7dfa00u || net == 0x8efa5200u) return true;
    } else if (load_be32(ip->b) == 0x20014860u && load_be16(ip->b + 4) == 0x4864 &&
               (load_be16(ip->b + 6) == 5 || load_be16(ip->b + 6) == 6)) {
      return true;
    }
  }
  return false;
}

// nDPI names STUN to the big messaging networks' servers by their address.
uint16_t app_by_server(const DpiCtx& c) {
  for (const IpAddr* ip : {&c.p.dst, &c.p.src}) {
    const uint16_t owner = app_by_ip(*ip);
    if (owner == id(ProtoId::Facebook) || owner == id(ProtoId::WhatsApp)) return id(ProtoId::WhatsAppCall);
  }
  return 0;
}

// What names a STUN packet's application, in nDPI's order: the packet's
// attributes, Google Meet's servers, else an endpoint an earlier STUN flow
// was named on (nDPI's cache). A name found here names both endpoints for
// later flows.
uint16_t stun_app(const DpiCtx& c, Bytes b, bool& cached) {
  cached = false;
  uint16_t app = app_by_attributes(b);
  if (!app && google_call_server(c)) app = id(ProtoId::GoogleCall);
  if (app) {
    c.clf->stun_remember(c.p.src, c.p.sport, app);
    c.clf->stun_remember(c.p.dst, c.p.dport, app);
    return app;
  }
  app = c.clf->stun_cached(c.p.src, c.p.sport);
  if (!app) app = c.clf->stun_cached(c.p.dst, c.p.dport);
  cached = app != 0;
  return app;
}

// Classic STUN (no cookie) is taken, as nDPI does, on a known message type
// whose attributes (4-byte aligned) end exactly with the packet.
bool classic_attributes(Bytes b) {
  size_t off = 20;
  while (off + 4 < b.size()) off += 4 + ((size_t(load_be16(b.data() + off + 2)) + 3) & ~size_t(3));
  return off == b.size();
}

bool stun_shape(const DpiCtx& c, Bytes b) {
  (void)c;
  if (b.size() < 20) return false;
  uint16_t type = load_be16(b.data()), len = load_be16(b.data() + 2);
  if ((type & 0xc000) || size_t(len) + 20 != b.size()) return false;
  if (load_be32(b.data() + 4) == kMagicCookie) return true;  // unpadded lengths too (WhatsApp's attributes)
  return !(len & 3) && classic_type(type) && classic_attributes(b);
}

// Applications of their own (not STUN's transports): nDPI's "real"
// sub-classification, kept when the flow turns to DTLS or SRTP.
bool real_app(uint16_t app) {
  return app && app != id(ProtoId::STUN) && app != id(ProtoId::RTP) && app != id(ProtoId::RTCP) &&
         app != id(ProtoId::SRTP) && app != id(ProtoId::DTLS) && app != id(ProtoId::Telegram);
}

// nDPI reads a STUN flow's next 6 packets after the match; DTLS showing up
// in them gives 10 more for its handshake.
constexpr uint8_t kStunReadUpTo = 7;
constexpr uint8_t kDtlsReadMore = 10;

// After the match: the flow multiplexes STUN, DTLS and (S)RTP by the first
// byte (RFC 7983). STUN may still name the application; DTLS makes the flow
// DTLS (keeping a real application, or taking the certificate's); RTP makes
// STUN.RTP, or SRTP.App under a real application.
Verdict stun_extra(DpiCtx& c) {
  Bytes b = c.payload;
  const uint16_t master = c.flow.l7_master, app = c.flow.l7_app;
  const bool dtls = master == id(ProtoId::DTLS) || (master == 0 && app == id(ProtoId::DTLS));
  if (c.flow.dpi_packets > kStunReadUpTo + (dtls ? kDtlsReadMore : 0)) return Verdict::No;
  if (b.size() < 2) return Verdict::NeedMore;
  const uint8_t first = b[0];
  if (first <= 3) {
    if (!stun_shape(c, b)) return Verdict::NeedMore;
    bool cached = false;
    const uint16_t named = stun_app(c, b, cached);
    if (named && named != app) {
      const uint16_t m = dtls ? id(ProtoId::DTLS) : master == id(ProtoId::SRTP) ? master : id(ProtoId::STUN);
      c.clf->refine(c.flow, m, named, cached ? Confidence::DpiCache : Confidence::Dpi);
    }
  } else if (first >= 20 && first <= 63) {
    if (!dtls_record(b)) return Verdict::NeedMore;
    const FlowMeta* fm = c.meta(MetaKind::Tls);
    if (fm && (fm->tls.flags & kTlsCert)) return Verdict::NeedMore;  // its handshake already read
    if (!dtls) {
      if (master == id(ProtoId::STUN) && real_app(app)) c.clf->refine(c.flow, id(ProtoId::DTLS), app);
      else c.clf->refine(c.flow, 0, id(ProtoId::DTLS));
    }
    dtls_read_records(c);
  } else if (first >= 128 && first <= 191) {
    if (!rtp_shaped(b) || dtls || app == id(ProtoId::RTP) || master == id(ProtoId::SRTP)) return Verdict::NeedMore;
    if (master == id(ProtoId::STUN) && real_app(app)) c.clf->refine(c.flow, id(ProtoId::SRTP), app);
    else if (master == 0 && app == id(ProtoId::STUN)) c.clf->refine(c.flow, id(ProtoId::STUN), id(ProtoId::RTP));
  }
  return Verdict::NeedMore;
}

Verdict classify_stun(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return stun_extra(c);
  if (!stun_shape(c, b)) return Verdict::No;
  bool cached = false;
  if (uint16_t app = stun_app(c, b, cached)) {
    m.master = id(ProtoId::STUN);
    m.app = app;
    m.cached = cached;
    m.more = c.info != nullptr;
    return Verdict::Match;
  }
  // The answer may still name the application; a lone request stays unnamed
  // (then guessed by port).
  if (c.flow.dpi_packets < 2) return Verdict::NeedMore;
  // Else the server's address may (not remembered: weaker than attributes).
  if (uint16_t app = app_by_server(c)) m.master = id(ProtoId::STUN), m.app = app;
  else m.app = id(ProtoId::STUN);
  m.more = c.info != nullptr;
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(stun, {"STUN", id(ProtoId::STUN), kL4Both, 4, classify_stun});

}  // namespace fg
