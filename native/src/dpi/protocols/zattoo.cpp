// ④ Zattoo (Swiss IPTV service; no public specification of its own
// protocol), as nDPI 4.11 reads it (zattoo.c), TCP or UDP, any port but
// 5003 for UDP:
// - HTTP requests over 50 bytes (nDPI asks Zattoo as an HTTP sub-protocol,
//   on the packet that named the flow HTTP): opening "GET /frontdoor/fd?
//   brand=Zattoo&v=" or "GET /ZattooAdRedirect/redirect.jsp?user="; or
//   "POST /channelserver/player/channel/update HTTP/1.1" / "GET /epg/query"
//   with a CRLF line opening "User-Agent: Zattoo"; or another "GET /" /
//   "POST /" whose User-Agent value is exactly 111 bytes with "Zattoo/4" 25
//   bytes before its end; or (IPv4) "POST http://" + the packet's
//   destination address, in 4 CRLF lines with a Host header, and after the
//   last empty line 03 04 00 04 0A 00. A packet opening one of these
//   prefixes and failing its test rules Zattoo out.
// - its binary TCP stream: a first packet over 50 bytes opening 03 04 00 04
//   0A 00, then one over 50 bytes opening 03 04 from the other nDPI
//   direction (ndpi_direction.h: by port, not client/server); the first
//   direction may send anything meanwhile, and after one of its packets
//   over 500 bytes opening 00 00 only the other direction's 03 04 packet
//   is waited for (then a packet of the first direction rules it out).
//   Stage as nDPI's zattoo_stage: kScratchZattooTcp.
// - UDP port 5003 (either side): two datagrams over 20 bytes opening 03 7A,
//   03 78, 03 05, 03 04 00 04 or 03 01 00 05; any other datagram rules it
//   out (so every datagram seen has matched: no state).
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr size_t kMinTcp = 51, kMinUdp = 21, kMinZeroes = 501;

// A CRLF line (nDPI's split, as many as its dissectors loop over) opening
// "User-Agent: Zattoo", case as written.
bool ua_line_zattoo(Bytes b) {
  const NdpiLines& t = ndpi_lines(b);
  const size_t n = ndpi_line_count(t, b);
  for (size_t i = 0; i < n; i++)
    if (t.len[i] >= 18 && has_at(b, t.off[i], "User-Agent: Zattoo")) return true;
  return false;
}

// nDPI's User-Agent value (the last header, spaces around it dropped) is
// 111 bytes with "Zattoo/4" 25 bytes before its end.
bool ua_zattoo_111(Bytes b) {
  const char* v;
  size_t n;
  return ndpi_header_value(b, "User-agent:", v, n) && n == 111 && std::string_view(v + n - 25, 8) == "Zattoo/4";
}

// nDPI's dotted address (ndpi_bytestream_to_ipv4) at b[at]: four decimal
// numbers up to 255, dots between, the last followed by a byte; 0 if not.
uint32_t dotted_ipv4(Bytes b, size_t at) {
  uint32_t ip = 0;
  for (int part = 0; part < 4; part++) {
    const size_t from = at;
    uint32_t v = 0;
    while (at < b.size() && b[at] >= '0' && b[at] <= '9') v = v * 10 + uint32_t(b[at++] - '0');
    if (v > 255 || at == from || at == b.size() || (part < 3 && b[at] != '.')) return 0;
    if (part < 3) at++;
    ip = ip << 8 | v;
  }
  return ip;
}

// nDPI's "POST http://" form (IPv4 only): 4 lines (3 CRLFs), a Host value,
// the URL's host the packet's destination address, and 03 04 00 04 0A 00
// two bytes after the last empty line's CR, more than 10 bytes before the
// packet's end.
bool proxy_form(const DpiCtx& c) {
  Bytes b = c.payload;
  if (!c.p.dst.is_v4()) return false;
  const NdpiLines& t = ndpi_lines(b);
  if (ndpi_line_count(t, b) != 4) return false;
  const char* host;
  size_t host_len;
  if (!ndpi_header_value(b, "Host:", host, host_len) || host_len == 0) return false;
  const uint32_t ip = dotted_ipv4(b, 12);
  if (ip == 0 || ip != c.p.dst.v4()) return false;
  size_t empty = SIZE_MAX;  // the CR closing the last empty line
  for (size_t i = 0; i + 1 < t.n; i++)
    if (t.len[i] == 0) empty = t.off[i];
  if (empty == SIZE_MAX || b.size() - empty <= 10) return false;
  return has_at(b, empty + 2, std::string_view("\x03\x04\x00\x04\x0a\x00", 6));
}

bool opens(Bytes b, std::initializer_list<uint8_t> bytes) {
  size_t i = 0;
  for (uint8_t x : bytes)
    if (i >= b.size() || b[i++] != x) return false;
  return true;
}

Verdict classify_tcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  bool hit = false;
  if (n >= kMinTcp && (has_at(b, 0, "GET /frontdoor/fd?brand=Zattoo&v=") || has_at(b, 0, "GET /ZattooAdRedirect/redirect.jsp?user="))) {
    hit = true;
  } else if (n >= kMinTcp && (has_at(b, 0, "POST /channelserver/player/channel/update HTTP/1.1") || has_at(b, 0, "GET /epg/query"))) {
    hit = ua_line_zattoo(b);
  } else if (n >= kMinTcp && (has_at(b, 0, "GET /") || has_at(b, 0, "POST /"))) {
    hit = ua_zattoo_111(b);
  } else if (n >= kMinTcp && has_at(b, 0, "POST http://")) {
    hit = proxy_form(c);
  } else {
    // the binary stream, by nDPI's stage (0; 1 + the first packet's
    // direction; 3 + it after that side's 00 00 packet)
    uint8_t none = 0;
    uint8_t* st = c.scratch(kScratchZattooTcp);
    uint8_t& stage = st ? *st : none;
    const int d = ndpi_direction(c.p);
    if (stage == 0) {
      if (n < kMinTcp || !opens(b, {0x03, 0x04, 0x00, 0x04, 0x0a, 0x00})) return Verdict::No;
      stage = uint8_t(1 + d);
      return Verdict::NeedMore;
    }
    if (stage == 2 - d && n >= kMinTcp && opens(b, {0x03, 0x04})) {
      hit = true;
    } else if (stage == 1 + d) {
      if (n >= kMinZeroes && opens(b, {0x00, 0x00})) stage = uint8_t(3 + d);
      return Verdict::NeedMore;
    } else {
      hit = stage == 4 - d && n >= kMinTcp && opens(b, {0x03, 0x04});
    }
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Zattoo);
  return Verdict::Match;
}

Verdict classify_zattoo(DpiCtx& c, Match& m) {
  if (c.p.l4_proto == kProtoTcp) return classify_tcp(c, m);
  if (c.cli_port != 5003 && c.srv_port != 5003) return Verdict::No;
  Bytes b = c.payload;
  if (b.size() < kMinUdp) return Verdict::No;
  const uint16_t w = load_be16(b.data());
  const uint32_t d = load_be32(b.data());
  if (w != 0x037a && w != 0x0378 && w != 0x0305 && d != 0x03040004 && d != 0x03010005) return Verdict::No;
  // Every earlier datagram matched too, or the flow would be ruled out.
  if (c.flow.dpi_packets < 2) return Verdict::NeedMore;
  m.app = id(ProtoId::Zattoo);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(zattoo, {"Zattoo", id(ProtoId::Zattoo), kL4Both, kMaxDpiPackets, classify_zattoo});

}  // namespace fg
