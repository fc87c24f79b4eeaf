// ④ Zoom's UDP media transport, as described by the Princeton
// "zoom-analysis" work (Michel et al., "Enabling Passive Measurement of Zoom
// Performance in Production Networks", IMC 2022) and Citizen Lab's 2020
// report: towards Zoom's servers (multimedia router ports UDP 8801–8810,
// Zoom support KB0060548) every datagram carries an 8-byte "SFU
// encapsulation" (type, sequence, 4 unknown bytes, direction); type 5 wraps
// a "media encapsulation" (type, 8 unknown bytes, sequence, timestamp: 15
// bytes) whose type says what follows: 13 screen share (RTP from byte 27),
// 30 P2P screen share (RTP at 20), 15 audio (RTP at 19), 16 video (RTP at
// 24), 33–35 RTCP (at 16). Peer-to-peer calls carry media encapsulation
// only, opened by a 0x1f packet listing an address and an id.
// What nDPI decides from the flow's own packets, and we too:
//  - 8801–8810 on either side, over 8 bytes: SFU types 1/2 opening with
//    01 00 02|03 or 02 00 02|03 are Zoom at once; types 3/4 are Zoom only
//    from the flow's fourth payload packet (weak, others get time first);
//    type 5 with a recognised media type and its RTP/RTCP is Zoom, and
//    SRTP.Zoom when it is audio, video or screen share with RTP inside;
//    anything else there rules the flow out.
//  - elsewhere (or 8 bytes or fewer): a P2P opening, over 36 bytes,
//    1f 02 01, a 24-byte header, a 32-bit length and that many bytes (an
//    address as text), a 32-bit length and an id, then 4 zero bytes, the
//    lengths adding up to the datagram exactly.
//  - after a match without a master, up to 4 further packets are read
//    (nDPI's zoom max_packets_extra_dissection default): one carrying
//    audio/video/screen-share media (SFU type 5, or bare media
//    encapsulation on a P2P flow) turns the flow into SRTP.Zoom.
// nDPI also names Zoom from outside the flow's packets: its Zoom IP lists
// (match by IP, done by the classifier) and host names (zoom.us … in SNI /
// DNS, done by TLS/DNS/HTTP); neither is this dissector's.
#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/protocols/rtp_shape.h"

namespace fg {
namespace {

constexpr size_t kSfuHeader = 8;
constexpr size_t kMediaHeader = 15;
constexpr uint8_t kMaxExtra = 4;
// FlowInfo::state after the match: [0] P2P flow, [1] extra packets read.
constexpr size_t kStateP2p = 0, kStateExtra = 1;

enum class Media : uint8_t { None, Plain, Multimedia };

bool rtp_at(const uint8_t* p, size_t n, size_t at) { return n > at && rtp_shape(p + at, n - at) == RtpShape::Rtp; }

// A media encapsulation at p (n bytes): is it one, and does it carry media.
Media media_encap(const uint8_t* p, size_t n) {
  if (n <= kMediaHeader) return Media::None;
  switch (p[0]) {
    case 13:  // screen share: RTP may come later in the flow, still Zoom
      if (n <= 27) return Media::None;
      return rtp_at(p, n, 27) ? Media::Multimedia : Media::Plain;
    case 30: return n > 20 && rtp_at(p, n, 20) ? Media::Multimedia : Media::None;
    case 15: return n > 19 && rtp_at(p, n, 19) ? Media::Multimedia : Media::None;
    case 16: return n > 24 && rtp_at(p, n, 24) ? Media::Multimedia : Media::None;
    case 33:
    case 34:
    case 35: return n > 16 && rtp_shape(p + 16, n - 16) == RtpShape::Rtcp ? Media::Plain : Media::None;
    default: return Media::None;
  }
}

Media sfu_type5(Bytes b) {
  if (b.size() <= kSfuHeader + kMediaHeader || b[0] != 0x05) return Media::None;
  return media_encap(b.data() + kSfuHeader, b.size() - kSfuHeader);
}

bool zoom_port(uint16_t port) { return port >= 8801 && port <= 8810; }

bool p2p_opening(Bytes b) {
  const size_t n = b.size();
  if (n <= 36 || b[0] != 0x1f || b[1] != 0x02 || b[2] != 0x01 || load_be32(b.data() + n - 4) != 0) return false;
  const uint64_t ip_len = load_be32(b.data() + 24);
  if (24 + 4 + ip_len + 4 >= n) return false;
  const uint64_t uuid_len = load_be32(b.data() + 28 + ip_len);
  return n == 24 + 4 + ip_len + 4 + uuid_len + 4;
}

Verdict found(DpiCtx& c, Match& m, Media media, bool p2p) {
  m.app = id(ProtoId::Zoom);
  if (media == Media::Multimedia) {
    m.master = id(ProtoId::SRTP);
  } else if (c.info) {  // read on for the media that names SRTP
    c.info->state[kStateP2p] = p2p;
    c.info->state[kStateExtra] = 0;
    m.more = true;
  }
  return Verdict::Match;
}

Verdict read_on(DpiCtx& c) {
  uint8_t* st = c.info->state;
  const Media media = st[kStateP2p] ? media_encap(c.payload.data(), c.payload.size()) : sfu_type5(c.payload);
  if (media == Media::Multimedia) {
    c.clf->refine(c.flow, id(ProtoId::SRTP), id(ProtoId::Zoom));
    return Verdict::Match;
  }
  return ++st[kStateExtra] >= kMaxExtra ? Verdict::No : Verdict::NeedMore;
}

Verdict classify_zoom(DpiCtx& c, Match& m) {
  if (c.extra) return c.info ? read_on(c) : Verdict::No;
  const Bytes b = c.payload;
  if ((zoom_port(c.cli_port) || zoom_port(c.srv_port)) && b.size() > kSfuHeader) {
    if ((b[0] == 0x01 || b[0] == 0x02) && b[1] == 0x00 && (b[2] == 0x02 || b[2] == 0x03)) return found(c, m, Media::Plain, false);
    if (b[0] == 0x03 || b[0] == 0x04) return c.flow.dpi_packets < 4 ? Verdict::NeedMore : found(c, m, Media::Plain, false);
    const Media media = sfu_type5(b);
    if (media != Media::None) return found(c, m, media, false);
    return Verdict::No;
  }
  if (p2p_opening(b)) return found(c, m, Media::Plain, true);
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(zoom, {"Zoom", id(ProtoId::Zoom), kL4Udp, kMaxDpiPackets, classify_zoom});

}  // namespace fg
