// ④ KakaoTalk voice calls (UDP over IPv4): a packet of at least 4 bytes
// with 0x81 first, 0xc8 second, 0x00 third or 0x0c fourth (the RTCP-like
// control packets) to or from the call servers' 1.201.0.0/16. Registered
// before RTP, which would otherwise take the control packets as RTCP.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool call_server(const IpAddr& a) { return a.is_v4() && (a.v4() & 0xffff0000u) == 0x01c90000u; }

Verdict classify_kakaotalk_voice(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.ip_version != 4 || b.size() < 4) return Verdict::No;
  if (b[0] != 0x81 && b[1] != 0xc8 && b[2] != 0x00 && b[3] != 0x0c) return Verdict::No;
  if (!call_server(c.p.src) && !call_server(c.p.dst)) return Verdict::No;
  m.app = id(ProtoId::KakaoTalk_Voice);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(kakaotalk_voice, {"KakaoTalk_Voice", id(ProtoId::KakaoTalk_Voice), kL4Udp, 1, classify_kakaotalk_voice});

}  // namespace fg
