#include "decode/decode.h"

namespace fg {

// RFC 5415 CAPWAP data channel: preamble, HLEN (4-byte words), then either an
// 802.3 frame (T = 0) or a native 802.11 frame (T = 1, WBID = 1) whose
// LLC/SNAP header carries the ethertype (RFC 5416).
bool decode_capwap(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::CapwapTooShort);
  if ((b[0] >> 4) != 0) return false;  // preamble version 0; type 1 = DTLS (encrypted)
  size_t hlen = size_t(b[1] >> 3) * 4;
  uint8_t wbid = uint8_t((b[2] >> 1) & 0x1f);
  bool native = (b[2] & 0x01) != 0;  // T flag
  if (hlen < 8 || b.size() < hlen) return s.fail(DecodeError::CapwapTooShort);
  Bytes f = b.subspan(hlen);
  if (!native) {
    if (!enter_tunnel(Tunnel::Capwap, p, s)) return false;
    return decode_ethernet(f, p, s);
  }
  if (wbid != 1) return false;
  // Cisco APs send the frame control bytes swapped; the protocol-version bits
  // (always 0) of the first byte tell which order this one uses.
  uint16_t type;
  Bytes rest;
  if (f.size() < 2) return s.fail(DecodeError::CapwapTooShort);
  if (!ieee80211_payload(f, (f[0] & 0x03) != 0, p, s, DecodeError::CapwapTooShort, type, rest)) return false;
  if (!enter_tunnel(Tunnel::Capwap, p, s)) return false;
  return decode_ethertype(type, rest, p, s);
}

}  // namespace fg
