// ④ RTP or RTCP, by header shape only (RFC 3550 §5.1 and §6.4), the way
// nDPI's helper tells them apart for the dissectors that look for RTP
// inside their own framing (Zoom) or must step around it (Viber, LINE):
// version 2; a media payload type (0–34, 96–127) with room for 12 bytes,
// the CSRC list and the extension header is RTP; a packet type 192–213 with
// room for 8 bytes and its own length is RTCP (rtp.cpp reads it too).
#pragma once
#include <cstddef>
#include <cstdint>

#include "util/bytes.h"

namespace fg {

enum class RtpShape : uint8_t { None, Rtp, Rtcp };

// STUN's header test as nDPI's RTP heuristic calls it (dpi/protocols/stun.cpp):
// 1 STUN, 0 or -1 not; `msg` the message's bytes. And its DTLS record test.
int stun_message(bool tcp, Bytes in, Bytes& msg);
bool dtls_shape(Bytes b);

inline RtpShape rtp_shape(const uint8_t* p, size_t n) {
  if (n < 2 || (p[0] & 0xc0) != 0x80) return RtpShape::None;
  const uint8_t pt = p[1] & 0x7f;
  if ((pt <= 34 || pt >= 96) && n >= 12) {
    const size_t csrc = p[0] & 0x0f;
    const bool ext = p[0] & 0x10;
    size_t need = 12 + 4 * csrc + (ext ? 4 : 0);
    if (ext) {
      if (need > n) return RtpShape::None;
      need += 4 * size_t(load_be16(p + need - 2));
    }
    return need > n ? RtpShape::None : RtpShape::Rtp;
  }
  if (p[1] >= 192 && p[1] <= 213 && n >= 8) return (size_t(load_be16(p + 2)) + 1) * 4 <= n ? RtpShape::Rtcp : RtpShape::None;
  return RtpShape::None;
}

}  // namespace fg
