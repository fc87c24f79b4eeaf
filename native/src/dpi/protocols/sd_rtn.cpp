// ④ SD-RTN (Agora's Software Defined Real-time Network), UDP, as nDPI's
// src/lib/protocols/sd_rtn.c recognises it (no public format): the flow's
// first datagram, any port, at least 20 bytes, byte 6 is 0x21 and the tag
// "\x04SNI" sits at offset 12; a 16-bit big-endian length at 16, a zero
// byte at 18, then that many bytes of server name, which must fit in the
// datagram. It names the flow and its name (normalised as nDPI's
// ndpi_hostname_sni_set: payload.h ndpi_host_name); anything else rules it out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_sd_rtn(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 20 || b[6] != 0x21 || load_be32(b.data() + 12) != 0x04534e49) return Verdict::No;
  const size_t len = load_be16(b.data() + 16);
  if (len + 19 > b.size() || b[18] != 0) return Verdict::No;
  char name[80];
  c.set_host(name, ndpi_host_name(b.data() + 19, len, name));
  m.app = id(ProtoId::SD_RTN);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(sd_rtn, {"SD-RTN", id(ProtoId::SD_RTN), kL4Udp, 1, classify_sd_rtn});

}  // namespace fg
