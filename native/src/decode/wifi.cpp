#include <cstring>
#include <utility>

#include "capture/source.h"
#include "decode/decode.h"

namespace fg {

// IEEE 802.11-2020 §9.2–9.3: a data frame's MAC header, then (unprotected)
// an LLC/SNAP header naming the ethertype (RFC 1042; 802.1H bridge tunnel).
// Management and control frames, null-data subtypes and protected
// (encrypted) bodies carry no packet to decode: not IP, no error.
bool ieee80211_payload(Bytes f, bool swapped_fc, Packet& p, DecodeStats& s, DecodeError short_error, uint16_t& ethertype, Bytes& rest) {
  if (f.size() < 24) return s.fail(short_error);
  uint8_t fc0 = f[0], fc1 = f[1];
  if (swapped_fc) std::swap(fc0, fc1);
  if ((fc0 & 0x03) != 0) return false;        // protocol version 0 only
  if (((fc0 >> 2) & 0x3) != 2) return false;  // type 2: data
  uint8_t subtype = fc0 >> 4;
  if (subtype & 0x4) return false;            // null-data subtypes: no body
  if (fc1 & 0x40) return false;               // protected frame: encrypted body
  const bool to_ds = fc1 & 0x01, from_ds = fc1 & 0x02;
  size_t h = 24;
  if (to_ds && from_ds) h += 6;               // fourth address
  if (subtype & 0x8) {                        // QoS data: QoS control, HT control when Order is set
    h += 2;
    if (fc1 & 0x80) h += 4;
  }
  if (f.size() < h + 8) return s.fail(short_error);
  // addresses by the DS bits: destination and source of the MSDU
  const uint8_t* a1 = f.data() + 4, *a2 = f.data() + 10, *a3 = f.data() + 16, *a4 = f.data() + 24;
  const uint8_t* da = to_ds ? a3 : a1;
  const uint8_t* sa = from_ds ? (to_ds ? a4 : a3) : a2;
  Bytes llc = f.subspan(h);
  // RFC 1042 SNAP (00-00-00) or 802.1H bridge tunnel (00-00-f8)
  if (!(llc[0] == 0xaa && llc[1] == 0xaa && llc[2] == 0x03 && llc[3] == 0x00 && llc[4] == 0x00 && (llc[5] == 0x00 || llc[5] == 0xf8))) return false;
  if (!p.has_mac) {
    std::memcpy(p.dst_mac, da, 6);
    std::memcpy(p.src_mac, sa, 6);
    p.has_mac = true;
  }
  ethertype = load_be16(llc.data() + 6);
  rest = llc.subspan(8);
  return true;
}

// LINKTYPE_IEEE802_11 (105): the frame as sent, without FCS.
bool decode_ieee80211(Bytes b, Packet& p, DecodeStats& s) {
  uint16_t type;
  Bytes rest;
  if (!ieee80211_payload(b, false, p, s, DecodeError::WifiTooShort, type, rest)) return false;
  return decode_ethertype(type, rest, p, s);
}

// LINKTYPE_IEEE802_11_RADIOTAP (127): radiotap header (radiotap.org: version 0,
// pad, little-endian length and present bitmaps, fields aligned to their size),
// then the 802.11 frame. Only the Flags field (present bit 1) matters here: a
// frame with a failed FCS (0x40) is not decoded; a trailing FCS (0x10) is cut.
bool decode_radiotap(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::RadiotapTooShort);
  if (b[0] != 0) return false;  // only version 0 exists
  size_t len = load_le16(b.data() + 2);
  if (len < 8 || len > b.size()) return s.fail(DecodeError::RadiotapTooShort);
  uint32_t present = load_le32(b.data() + 4);
  size_t o = 8;
  for (uint32_t word = present; word & 0x80000000u;) {  // extended bitmaps
    if (o + 4 > len) return s.fail(DecodeError::RadiotapTooShort);
    word = load_le32(b.data() + o);
    o += 4;
  }
  uint8_t flags = 0;
  if (present & 0x2) {
    if (present & 0x1) o = ((o + 7) & ~size_t(7)) + 8;  // TSFT: 8 bytes, 8-aligned
    if (o + 1 > len) return s.fail(DecodeError::RadiotapTooShort);
    flags = b[o];
  }
  if (flags & 0x40) return false;  // bad FCS: not a frame to trust
  Bytes f = b.subspan(len);
  if (flags & 0x10) {
    if (f.size() < 4) return s.fail(DecodeError::RadiotapTooShort);
    f = f.first(f.size() - 4);
  }
  return decode_ieee80211(f, p, s);
}

// LINKTYPE_PPI (192): Per-Packet Information header (version 0, flags,
// little-endian header length, the inner link type), then the packet.
bool decode_ppi(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::PpiTooShort);
  if (b[0] != 0) return false;
  size_t len = load_le16(b.data() + 2);
  uint32_t dlt = load_le32(b.data() + 4);
  if (len < 8 || len > b.size()) return s.fail(DecodeError::PpiTooShort);
  Bytes inner = b.subspan(len);
  switch (dlt) {
    case kLinkEthernet: return decode_ethernet(inner, p, s);
    case kLinkIeee80211: return decode_ieee80211(inner, p, s);
    case kLinkRadiotap: return decode_radiotap(inner, p, s);
    default: return false;  // other inner link types: not decoded
  }
}

}  // namespace fg
