// ④ FastCGI (FastCGI Specification 1.0, Open Market: §3.3 record header —
// version 1, type, request id, content length, padding length, reserved —
// §3.4 name-value pairs, §5 the record types 1 BEGIN_REQUEST … 11
// UNKNOWN_TYPE), TCP between a web server and its application server, any
// port, as nDPI 4.11 reads it (fastcgi.c):
// - a packet must be exactly one record: version 1, type 1 to 11, content
//   and padding filling the packet; anything else rules FastCGI out;
// - a PARAMS record (type 4) with content decides: its pairs (both lengths
//   read as one byte, the 4-byte form not handled) must fill the packet to
//   its end, padding included, else it is FastCGI with the malformed-packet
//   risk; when they do, HTTP_HOST's value (the last one) is the flow's name
//   as nDPI keeps names, and a name a known application claims makes it
//   App.FastCGI; the name raises nDPI's risky-domain, punycode and (when
//   no application claims it and the flow has no master yet) DGA risks, and
//   the raw value with a byte other than a letter, digit, '.', '-', '_' or
//   ':' invalid characters and possible exploit;
// - an empty PARAMS record decides nothing; any other record names the
//   flow from its 3rd payload packet on.
// After the match nDPI reads the next 5 packets (with or without payload)
// the same way: a record of another type from the 3rd payload packet on
// names the flow plain FastCGI again, a PARAMS record with content names
// it again from its pairs (a missing HTTP_HOST empties the name), an empty
// PARAMS record ends the reading; a packet that is no record changes
// nothing. State after the match: FlowInfo::state[0], the flow's packets
// at the match.
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dga.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kHeader = 8;
constexpr uint8_t kParams = 4, kMaxType = 11;
constexpr uint32_t kExtraPackets = 5;

// The packet is one record, exactly.
bool one_record(Bytes b) {
  if (b.size() < kHeader || b[0] != 1 || b[1] < 1 || b[1] > kMaxType) return false;
  return b.size() == kHeader + load_be16(b.data() + 4) + b[6];
}

// The PARAMS pairs from the header to the end; false when one overruns the
// packet or they stop short of its end (a pair header needs a byte after it).
bool read_params(Bytes b, const uint8_t*& host, size_t& host_len) {
  size_t i = kHeader;
  while (i + 2 < b.size()) {
    const size_t kl = b[i], vl = b[i + 1];
    i += 2;
    if (i + kl + vl > b.size()) return false;
    if (kl == 9 && std::memcmp(b.data() + i, "HTTP_HOST", 9) == 0) host = b.data() + i + kl, host_len = vl;
    i += kl + vl;
  }
  return i == b.size();
}

// A PARAMS record with content, read for its name and risks; the
// application its name belongs to (the flow's master), 0 for none.
uint16_t read_name(DpiCtx& c, Bytes b) {
  const uint8_t* host = nullptr;
  size_t raw_len = 0;
  if (!read_params(b, host, raw_len)) {
    c.risk(Risk::MalformedPacket);
    return 0;
  }
  char name[80];
  const size_t n = ndpi_host_name(host, raw_len, name);
  c.set_host(name, n);
  const uint16_t app = n ? app_by_host(name, n) : 0;
  if (risky_domain(name, n)) c.risk(Risk::RiskyDomain);
  if (punycode(name, n)) c.risk(Risk::PunycodeIdn);
  if (!app && c.flow.l7_master == 0 && n && dga_suspicious(name, n)) c.risk(Risk::SuspDgaDomain);
  if (!valid_hostname(host, raw_len)) c.risk(Risk::InvalidCharacters), c.risk(Risk::PossibleExploit);
  return app;
}

uint8_t flow_packets(const Flow& f) {
  const uint32_t n = f.pkts[0] + f.pkts[1];
  return uint8_t(n > 255 ? 255 : n);
}

Verdict read_on(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  const uint32_t seen = uint32_t(flow_packets(c.flow)) - c.info->state[0];
  if (seen > kExtraPackets) return Verdict::No;  // packets without payload used the rest
  const Verdict more = seen >= kExtraPackets ? Verdict::No : Verdict::NeedMore;
  Bytes b = c.payload;
  if (!one_record(b)) return more;
  if (b[1] != kParams) {
    if (c.flow.dpi_packets > 2) c.clf->refine(c.flow, 0, id(ProtoId::FastCGI));
    return more;
  }
  if (load_be16(b.data() + 4) == 0) return Verdict::No;
  const uint16_t app = read_name(c, b);
  c.clf->refine(c.flow, app, id(ProtoId::FastCGI));
  return more;
}

Verdict classify_fastcgi(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  Bytes b = c.payload;
  if (!one_record(b)) return Verdict::No;
  if (b[1] != kParams) {
    if (c.flow.dpi_packets <= 2) return Verdict::NeedMore;
  } else {
    if (load_be16(b.data() + 4) == 0) return Verdict::NeedMore;
    m.master = read_name(c, b);
  }
  m.app = id(ProtoId::FastCGI);
  if (c.info) {
    c.info->state[0] = flow_packets(c.flow);
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(fastcgi, {"FastCGI", id(ProtoId::FastCGI), kL4Tcp, kMaxDpiPackets, classify_fastcgi});

}  // namespace fg
