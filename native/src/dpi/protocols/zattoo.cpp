// ④ Zattoo (Swiss IPTV service), TCP or UDP on any port but 5003 for UDP, as
// nDPI recognises it (no public specification of its own protocol):
// - HTTP requests to Zattoo's servers (nDPI asks Zattoo as an HTTP
//   sub-protocol, on the packet that named the flow HTTP): the request
//   opens "GET /frontdoor/fd?brand=Zattoo&v=" or "GET /ZattooAdRedirect/
//   redirect.jsp?user="; or it is "POST /channelserver/player/channel/update
//   HTTP/1.1" / "GET /epg/query" with a CRLF line starting "User-Agent:
//   Zattoo"; or another "GET /" / "POST /" whose User-Agent value is exactly
//   111 bytes with "Zattoo/4" 25 bytes before its end. Packets over 50 bytes.
// - its old binary TCP stream: a first packet (over 50 bytes) opening
//   03 04 00 04 0A 00, then a packet from the other side (over 50 bytes)
//   opening 03 04; the first side may send more before that.
// - UDP port 5003: two datagrams over 20 bytes opening 03 7A, 03 78, 03 05,
//   03 04 00 04 or 03 01 00 05; any other datagram rules it out.
// Differences (stateless: our group's one scratch byte is RTMP's, whose
// first packet also opens with 3): the binary stream's first packet is taken
// to come from the client (nDPI remembers its side), and a further packet
// from that side after a >500-byte one opening 00 00 does not rule the flow
// out as in nDPI. nDPI's "POST http://" form is left out: such a request is
// named HTTP_Proxy first, which has no sub-protocols, so nDPI never gets
// there either.
#include <initializer_list>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr size_t kMinTcp = 51, kMinUdp = 21;

// The CRLF lines of b as nDPI's line parser splits them (http_sub.h):
// fn(offset, length); stops when fn returns true (then true).
template <class F>
bool each_line(Bytes b, F&& fn) {
  bool stopped = false;
  each_ndpi_line(b, [&](const char* l, size_t n) { return stopped = fn(size_t(reinterpret_cast<const uint8_t*>(l) - b.data()), n); });
  return stopped;
}

bool ua_starts_zattoo(Bytes b) {
  return each_line(b, [&](size_t at, size_t len) { return len >= 18 && has_at(b, at, "User-Agent: Zattoo"); });
}

// The User-Agent value (spaces around it dropped) is 111 bytes with
// "Zattoo/4" 25 bytes before its end (nDPI reads the last such header).
bool ua_zattoo_111(Bytes b) {
  bool hit = false;
  each_line(b, [&](size_t at, size_t len) {
    if (len > 11 && has_at_upper(b, at, "USER-AGENT:")) {
      size_t v = at + 11, e = at + len;
      while (v < e && b[v] == ' ') v++;
      while (e > v && b[e - 1] == ' ') e--;
      hit = e - v == 111 && has_at(b, e - 25, "Zattoo/4");
    }
    return false;
  });
  return hit;
}

bool opens(Bytes b, std::initializer_list<uint8_t> bytes) {
  size_t i = 0;
  for (uint8_t x : bytes)
    if (i >= b.size() || b[i++] != x) return false;
  return true;
}

Verdict classify_tcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  // The binary stream's opening side again: nDPI waits, whatever its size.
  if (c.flow.dpi_packets > 1 && c.from_client && !has_at(b, 0, "GET /") && !has_at(b, 0, "POST ")) return Verdict::NeedMore;
  if (b.size() < kMinTcp) return Verdict::No;
  bool hit = false;
  if (has_at(b, 0, "GET /frontdoor/fd?brand=Zattoo&v=") || has_at(b, 0, "GET /ZattooAdRedirect/redirect.jsp?user=")) {
    hit = true;
  } else if (has_at(b, 0, "POST /channelserver/player/channel/update HTTP/1.1") || has_at(b, 0, "GET /epg/query")) {
    hit = ua_starts_zattoo(b);
  } else if (has_at(b, 0, "GET /") || has_at(b, 0, "POST /")) {
    hit = ua_zattoo_111(b);
  } else if (has_at(b, 0, "POST http://")) {
    return Verdict::No;
  } else if (c.flow.dpi_packets <= 1) {
    return opens(b, {0x03, 0x04, 0x00, 0x04, 0x0a, 0x00}) ? Verdict::NeedMore : Verdict::No;
  } else {
    hit = opens(b, {0x03, 0x04});
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Zattoo);
  return Verdict::Match;
}

Verdict classify_zattoo(DpiCtx& c, Match& m) {
  // Already named Zattoo (HTTP.Zattoo by its Host): nDPI does not ask a
  // sub-protocol the flow already carries.
  if (c.flow.l7_app == id(ProtoId::Zattoo) || c.flow.l7_master == id(ProtoId::Zattoo)) return Verdict::No;
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
