// ④ CAPWAP, Control And Provisioning of Wireless Access Points (RFC 5415),
// over UDP: the control channel on port 5246, the data channel on 5247.
// Every datagram opens with the preamble (§4.1: version 0 in the high
// nibble, type 0 = plain CAPWAP header, 1 = a CAPWAP DTLS header, §4.2).
// The plain header (§4.3) is 8 bytes plus optional fields: byte 8 starts the
// Radio MAC Address field (its length, 6 for a MAC, M flag) or the Wireless
// Specific Information (its length, 4 for IEEE 802.11's, RFC 5416 §4.1, W
// flag) or, with neither, the control header (§4.5.1: message type (4),
// sequence number (1), message element length (2, counting the bytes after
// the sequence number), flags (1)) or the data frame. The DTLS header is 4
// bytes, then a DTLS record (type, version, epoch, 48-bit sequence, 16-bit
// length at byte 15).
//
// nDPI decides on the flow's first datagram, from this packet's ports and
// destination address, and claims it when one of these holds:
//  1. to 5246, sent to a discovery address (§3.3: 255.255.255.255 or
//     224.0.1.140; IPv6, see below), at least 16 bytes, preamble 0 and
//     byte 8 = 6 (a radio MAC follows the 8-byte header);
//  2. from or to 5246, preamble byte 0 and total length = 13 + message
//     element length (the control header right after an 8-byte header),
//     or preamble byte 1 and total length = 17 + the DTLS record length
//     (one record after the 4-byte DTLS header);
//  3. from 5247, or to 5247 when not sent to a discovery address, at least
//     16 bytes and preamble byte 0, and: from 5247, the 802.11 type bits of
//     byte 9 say Data (2); to 5247 (checked when the former fails), byte 8
//     is 1, 4 or 6, or the total length = 15 + the 16-bit value at byte 13.
// Anything else, at once: not CAPWAP. No state across packets.
//
// The IPv6 discovery address: nDPI means FF0X::18C (All ACs), but its test,
// run on a little-endian host (as nDPI's results are), byte-swaps the
// comparison's result instead of the address word, so what it actually
// accepts is FF00:0X00:0:0:0:0:8C01:0 (X any: the nibble it frees is byte
// 2's, not the scope). We keep what it accepts: a real FF02::18C datagram
// is not a discovery one for nDPI either.
//
// The data channel's tunnelled frames are unwrapped by the decoder
// (decode/capwap.cpp) before any dissector runs: only those it leaves on
// the outer flow (keep-alives, non-IP frames, other bindings) reach here.
#include "dpi/dpi.h"
#include "util/bytes.h"

namespace fg {
namespace {

constexpr uint16_t kControlPort = 5246;
constexpr uint16_t kDataPort = 5247;
constexpr uint32_t kBroadcast = 0xffffffff;
constexpr uint32_t kCapwapGroup = 0xe000018c;  // 224.0.1.140

bool discovery_address(const Packet& p) {
  if (p.ip_version == 4) return p.dst.v4() == kBroadcast || p.dst.v4() == kCapwapGroup;
  if (p.ip_version != 6) return false;
  const uint8_t* a = p.dst.b;
  for (size_t i = 4; i < 12; i++)
    if (a[i]) return false;
  return a[0] == 0xff && a[1] == 0 && (a[2] & 0xf0) == 0 && a[3] == 0 && a[12] == 0x8c && a[13] == 0x01 && a[14] == 0 &&
         a[15] == 0;
}

bool capwap_shaped(const DpiCtx& c) {
  const Bytes b = c.payload;
  const size_t n = b.size();
  const uint16_t sport = c.p.sport, dport = c.p.dport;
  if (n == 0) return false;
  const bool discovery = discovery_address(c.p);
  // 1. discovery request carrying the WTP's radio MAC
  if (dport == kControlPort && discovery && n >= 16 && b[0] == 0 && b[8] == 6) return true;
  // 2. control message or one DTLS record, its length field filling the datagram
  if ((sport == kControlPort || dport == kControlPort) && (b[0] == 0 || b[0] == 1)) {
    const size_t at = b[0] == 0 ? 13 : 15, extra = b[0] == 0 ? 13 : 17;
    if (n >= at + 2 && size_t(load_be16(b.data() + at)) + extra == n) return true;
  }
  // 3. data channel
  if (((dport == kDataPort && !discovery) || sport == kDataPort) && n >= 16 && b[0] == 0) {
    const uint8_t frame_type = (b[9] & 0x0c) >> 2;
    if (sport == kDataPort && frame_type == 2) return true;
    if (dport == kDataPort)
      return b[8] == 1 || b[8] == 4 || b[8] == 6 || size_t(load_be16(b.data() + 13)) + 15 == n;
  }
  return false;
}

Verdict classify_capwap(DpiCtx& c, Match& m) {
  if (!capwap_shaped(c)) return Verdict::No;
  m.app = id(ProtoId::CAPWAP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(capwap, {"CAPWAP", id(ProtoId::CAPWAP), kL4Udp, 1, classify_capwap});

}  // namespace fg
