// ④ SLP, the Service Location Protocol, TCP or UDP (port 427 usually, not
// required): version 1 (RFC 2165 §7, 12-byte header: version, function,
// 16-bit length, flags, dialect, language, encoding, XID) and version 2
// (RFC 2608 §8, header: version, function, 24-bit length, flags, 24-bit
// next extension offset, XID, language tag length and tag).
// nDPI's rule, kept, on the first payload packet (anything else rules SLP
// out): version 1 or 2; the header's length equal to the payload's; a
// function id from 1 to 10 (v1: SrvRqst … SrvTypeRply) or 1 to 11 (v2 adds
// SAAdvert). A v1 payload must hold its 12-byte header; for v2 nDPI wants
// 16 bytes (the fixed fields and a 2-byte language tag, "en").
// Also as nDPI: a v2 SrvRply whose URL entries do not hold together (none,
// or one running past the payload) raises the malformed-packet risk.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kV1Header = 12, kV2Header = 16;
constexpr uint8_t kSrvRply = 2;
constexpr size_t kMaxUrls = 4;  // nDPI keeps (and reads) at most this many URLs

// RFC 2608 §8.2 / §4.3: error code, URL entry count, then per entry a
// reserved byte, lifetime, URL length, URL, number of auth blocks, blocks
// (§9.2: BSD, block length …). True when at least one entry was read whole.
bool url_entries_hold(Bytes b, size_t off) {
  if (b.size() <= off + 2) return false;
  const size_t count = load_be16(b.data() + off);
  off += 2;
  size_t read = 0;
  for (size_t i = 0; i < count && i < kMaxUrls; i++) {
    if (b.size() < off + 5) return false;
    const size_t url_len = load_be16(b.data() + off + 3);
    off += 5;
    if (b.size() < off + url_len + 1) return false;
    off += url_len;
    read++;
    const uint8_t auths = b[off++];
    for (size_t j = 0; j < auths; j++) {
      // A block: 2-byte descriptor, then its 2-byte length (all of it).
      const size_t at = off + 2;
      if (b.size() <= at + 2) return false;
      const size_t blen = load_be16(b.data() + at);
      if (b.size() < at + blen) return false;
      off += blen;
    }
  }
  return read != 0;
}

Verdict classify_slp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.empty()) return Verdict::No;
  const uint8_t version = b[0];
  size_t len;
  uint8_t max_fid;
  if (version == 1) {
    if (b.size() < kV1Header) return Verdict::No;
    len = load_be16(b.data() + 2);
    max_fid = 10;
  } else if (version == 2) {
    if (b.size() < kV2Header) return Verdict::No;
    len = size_t(b[2]) << 16 | size_t(b[3]) << 8 | b[4];
    max_fid = 11;
  } else {
    return Verdict::No;
  }
  const uint8_t fid = b[1];
  if (len != b.size() || fid == 0 || fid > max_fid) return Verdict::No;
  // nDPI reads a reply's entries from offset 16 + 2, after the error code.
  if (version == 2 && fid == kSrvRply && b.size() > kV2Header + 4 && !url_entries_hold(b, kV2Header + 2))
    c.risk(Risk::MalformedPacket);
  m.app = id(ProtoId::Service_Location_Protocol);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(service_location, {"Service_Location_Protocol", id(ProtoId::Service_Location_Protocol), kL4Both, 1, classify_slp});

}  // namespace fg
