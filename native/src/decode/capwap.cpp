#include <utility>

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
  // IEEE 802.11 data frame: FC, duration, 3 addresses, sequence; +6 with
  // ToDS and FromDS (4th address); +2 for QoS subtypes.
  if (f.size() < 24) return s.fail(DecodeError::CapwapTooShort);
  uint8_t fc0 = f[0], fc1 = f[1];
  // Cisco APs send the frame control bytes swapped; the protocol-version bits
  // (always 0) of the first byte tell which order this one uses.
  if ((fc0 & 0x03) != 0) std::swap(fc0, fc1);
  if (((fc0 >> 2) & 0x3) != 2) return false;  // not a data frame
  size_t h = 24;
  if ((fc1 & 0x03) == 0x03) h += 6;
  if (fc0 & 0x80) h += 2;
  if (f.size() < h + 8) return s.fail(DecodeError::CapwapTooShort);
  Bytes llc = f.subspan(h);
  if (!(llc[0] == 0xaa && llc[1] == 0xaa && llc[2] == 0x03)) return false;
  if (!enter_tunnel(Tunnel::Capwap, p, s)) return false;
  return decode_ethertype(load_be16(llc.data() + 6), llc.subspan(8), p, s);
}

}  // namespace fg
