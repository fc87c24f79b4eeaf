// ④ FLUTE (RFC 6726, file delivery over ALC/LCT, RFC 5651 / 5775): each
// datagram opens with the LCT header — version 1 in the top nibble of the
// first byte, HDR_LEN (byte 2) its length in 32-bit words — then the FEC
// payload id (4 bytes for FEC encoding 0), then the data; the File Delivery
// Table, sent as transport object 0, is an XML document whose root is
// FDT-Instance (§3.4.2). As nDPI: UDP, any port, a datagram longer than 250
// bytes, first byte exactly 0x10 (version 1, no congestion-control or
// PSI bits), and, counted from the end of the LCT header, "<?xml" 4 bytes
// in and "<FDT" 43 bytes in — an FDT after a one-line XML declaration of
// 39 bytes with its line end. The flow's first payload packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_flute(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 250 || b[0] != 0x10) return Verdict::No;
  const size_t lct_len = size_t(b[2]) * 4;
  if (b.size() <= lct_len + 43) return Verdict::No;
  if (!has_at(b, lct_len + 4, "<?xml") || !has_at(b, lct_len + 43, "<FDT")) return Verdict::No;
  m.app = id(ProtoId::FLUTE);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(flute, {"FLUTE", id(ProtoId::FLUTE), kL4Udp, 1, classify_flute});

}  // namespace fg
