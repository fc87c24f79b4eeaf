// ④ FastCGI (FastCGI Specification 1.0, Open Market: §3.3 record header —
// version 1, type, request id, content length, padding length, reserved —
// §3.4 name-value pairs, §5 the record types 1 BEGIN_REQUEST … 11
// UNKNOWN_TYPE), TCP between a web server and its application server.
// As nDPI: every packet must be exactly one record, version 1, type 1 to
// 11, content and padding filling the packet, else the flow is not FastCGI.
// A PARAMS record (type 4) with content decides: its pairs (nDPI reads both
// lengths as one byte, the 4-byte form not handled) must fill the packet
// to the end, padding included; if they do, HTTP_HOST's value is the
// flow's name, and a name a known application claims gives App.FastCGI
// (nDPI sets FastCGI as the upper protocol over the name's application),
// with nDPI's risks for a machine-looking or invalid name; if they do not,
// it is FastCGI with the malformed-packet risk. An empty PARAMS record
// decides nothing; any other valid record decides from the 3rd payload
// packet on. No port required.
#include <cstring>

#include "dpi/dga.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kHeader = 8;
constexpr uint8_t kParams = 4, kMaxType = 11;

// nDPI's test of a host name: printable, no space, no punctuation but . - _ :
bool valid_hostname(const uint8_t* s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const uint8_t ch = s[i];
    if (ch == '.' || ch == '-' || ch == '_' || ch == ':') continue;
    const bool alnum = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    if (!alnum) return false;  // control, space, other punctuation, not ASCII
  }
  return true;
}

// The PARAMS pairs from the header to the end; false when one overruns the
// packet or they stop short of its end.
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

Verdict classify_fastcgi(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kHeader || b[0] != 1 || b[1] < 1 || b[1] > kMaxType) return Verdict::No;
  const size_t content = load_be16(b.data() + 4);
  if (b.size() != kHeader + content + b[6]) return Verdict::No;
  m.app = id(ProtoId::FastCGI);
  if (b[1] != kParams) return c.flow.dpi_packets > 2 ? Verdict::Match : Verdict::NeedMore;
  if (content == 0) return Verdict::NeedMore;
  const uint8_t* host = nullptr;
  size_t len = 0;
  if (!read_params(b, host, len)) {
    c.risk(Risk::MalformedPacket);
    return Verdict::Match;
  }
  if (len) {
    const char* name = reinterpret_cast<const char*>(host);
    c.set_host(name, len);
    if (uint16_t app = app_by_host(name, len)) m.master = app;
    else if (dga_suspicious(name, len)) c.risk(Risk::SuspDgaDomain);
    if (!valid_hostname(host, len)) c.risk(Risk::InvalidCharacters), c.risk(Risk::PossibleExploit);
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(fastcgi, {"FastCGI", id(ProtoId::FastCGI), kL4Tcp, 24, classify_fastcgi});

}  // namespace fg
