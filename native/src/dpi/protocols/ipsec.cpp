// ④ IPSec key exchange (IKE, RFC 2408 / 7296) over UDP, as nDPI's ipsec.c,
// on the flow's first payload packet (anything else excludes): the 28-byte
// ISAKMP header, after a 4-byte zero non-ESP marker when the datagram
// starts with one; version byte exactly 0x10 or 0x20; a length covering
// the datagram from the header on. Then next payload, exchange type and
// flags must hold values the version allows; when they do not, the flow is
// still IPSec with a malformed-packet risk if either port is 500 or 4500,
// and is excluded otherwise. SPIs are not read.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool v1_fields_ok(const uint8_t* h) {
  if (h[16] >= 14 && h[16] <= 127) return false;  // next payload
  if (h[18] >= 6 && h[18] < 31) return false;     // exchange type
  return h[19] < 8;                               // flags
}

bool v2_fields_ok(const uint8_t* h) {
  if ((h[16] > 0 && h[16] <= 32) || (h[16] >= 49 && h[16] <= 127)) return false;
  if (h[18] <= 33 || (h[18] >= 38 && h[18] <= 239)) return false;
  return (h[19] & 0xc7) == 0;
}

Verdict classify_ipsec(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 28) return Verdict::No;
  size_t off = 0;
  if (load_be32(b.data()) == 0) {
    off = 4;
    if (b.size() < 32) return Verdict::No;
  }
  const uint8_t* h = b.data() + off;
  if (h[17] != 0x20 && h[17] != 0x10) return Verdict::No;
  if (load_be32(h + 24) != b.size() - off) return Verdict::No;
  if (!(h[17] == 0x10 ? v1_fields_ok(h) : v2_fields_ok(h))) {
    const Packet& p = c.p;
    if (p.sport != 500 && p.dport != 500 && p.sport != 4500 && p.dport != 4500) return Verdict::No;
    c.risk(Risk::MalformedPacket);
  }
  m.app = id(ProtoId::IPSec);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ipsec, {"IPSec", id(ProtoId::IPSec), kL4Udp, 1, classify_ipsec});

}  // namespace fg
