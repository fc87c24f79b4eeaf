// ④ RTP and RTCP, after nDPI's heuristic. Over UDP (not from or to
// Ethereum's 30303, not towards LLMNR, mDNS, FINS or a port below 1024) or
// over TCP with RFC 4571's 16-bit length framing the whole segment. A few
// packets of something else may come first: the search ends at the fourth
// packet if nothing RTP-like was seen by then. Version 2 with a media
// payload type (0–34, 96–127), room for the CSRC list and extension header,
// is RTP: the third such packet names the flow, unless it repeats the
// first one's sequence number (one direction replaying itself). RTCP
// (packet types 192–213, its length fitting) four times before any RTP is
// RTCP. A packet of neither kind once the count began ends the search
// unless nDPI's STUN header test answers a plain "not STUN" (or it is DTLS).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/rtp_shape.h"

namespace fg {
namespace {

enum Kind { kNone, kRtp, kRtcp };

Kind rtp_or_rtcp(const uint8_t* p, size_t n, uint16_t& seq) {
  switch (rtp_shape(p, n)) {
    case RtpShape::Rtp: seq = load_be16(p + 2); return kRtp;
    case RtpShape::Rtcp: return kRtcp;
    default: return kNone;
  }
}

Verdict classify_rtp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t* p = b.data();
  size_t n = b.size();
  if (c.p.l4_proto == kProtoTcp) {
    if (n < 4 || size_t(load_be16(p)) + 2 != n) return Verdict::No;
    p += 2, n -= 2;
  } else {
    const uint16_t dport = c.p.dport;
    if (c.p.sport == 30303 || dport == 30303 || dport == 5355 || dport == 5353 || dport == 9600 || dport <= 1023) return Verdict::No;
  }
  uint8_t* st = c.scratch(kScratchRtp);
  if (!st) return Verdict::No;
  // st[0]: RTP stage (low nibble), RTCP stage (high); st[1]: first sequence
  // number seen, per direction (bits); st[2..5]: those numbers.
  uint8_t rtp = st[0] & 0x0f, rtcp = st[0] >> 4;
  if (c.flow.dpi_packets > 3 && rtp == 0 && rtcp == 0) return Verdict::No;
  const int dir = c.from_client ? 0 : 1;
  uint16_t seq = 0;
  const Kind k = rtp_or_rtcp(p, n, seq);
  if (k == kRtp) {
    if (rtp == 2) {
      uint16_t first;
      std::memcpy(&first, st + 2 + 2 * dir, 2);
      if ((st[1] >> dir & 1) && first == seq) return Verdict::No;
      m.app = id(ProtoId::RTP);
      return Verdict::Match;
    }
    if (rtp == 0) {
      std::memcpy(st + 2 + 2 * dir, &seq, 2);
      st[1] |= uint8_t(1 << dir);
    }
    rtp++;
  } else if (k == kRtcp && rtp == 0) {
    if (rtcp == 3) {
      m.app = id(ProtoId::RTCP);
      return Verdict::Match;
    }
    rtcp++;
  } else if (k == kNone && (rtp || rtcp)) {
    // Something else after RTP/RTCP: nDPI gives up unless STUN's header
    // test says "not STUN" (0, not -1: a classic type whose attributes do
    // not fit, a TCP segment without the cookie) or it is a DTLS record.
    Bytes msg;
    if (stun_message(c.p.l4_proto == kProtoTcp, b, msg) != 0 && !dtls_shape(b)) return Verdict::No;
  }
  st[0] = uint8_t(rtp | rtcp << 4);
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(rtp, {"RTP", id(ProtoId::RTP), kL4Both, 12, classify_rtp});

}  // namespace fg
