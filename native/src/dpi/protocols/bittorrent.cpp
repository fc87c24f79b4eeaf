// ④ BitTorrent, under nDPI 4.11's conditions.
// TCP, on each of the flow's first six payload packets: the peer-wire
// handshake (BEP 3: 0x13 "BitTorrent protocol", or the same string without
// its length byte as the flow's second packet, the handshake split after one
// byte); HTTP-carried forms (web seeds, BitComet persistent seeds, tracker
// requests carrying an info_hash, and a few client fingerprints by their
// User-Agent and header layout); an 80-byte "Warez" packet. Also asked as a
// sub-protocol of HTTP on the request that named the flow HTTP: a match
// keeps the flow's master or, without one, its current protocol (nDPI's
// ndpi_set_detected_protocol_keeping_master), so HTTP.BitTorrent. A match
// on the sixth packet is reported from the cache: nDPI stores the flow's
// endpoints before it consults that cache, which then finds them.
// UDP, on high ports only: local peer discovery ("BT-SEARCH", BEP 14), DHT
// queries (BEP 5, "d1:ad2:id20:"), uTP headers (BEP 29) and two older uTP
// shapes, then for the first four packets a set of DHT / handshake strings
// anywhere before the payload's first NUL byte.
// nDPI's BitTorrent cache (lru.bittorrent, Classifier::Cache::BitTorrent):
// every match remembers the flow's two endpoints, its pair of peers and the
// client's next two ports (other sockets of the same client); a flow about
// to be left (TCP past its sixth packet, UDP past its fifth count or on a
// port under 1024) asks it and is "DPI (cache)" when the pair or either
// endpoint is known. The give-up asks it too (classify.cpp).
#include <cstring>
#include <string_view>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr std::string_view kProto = "BitTorrent protocol";

// nDPI searches these payloads as C strings: nothing after the first NUL.
bool text_contains(Bytes b, std::string_view s) {
  if (b.empty()) return false;
  if (const void* z = std::memchr(b.data(), 0, b.size())) b = b.first(size_t(static_cast<const uint8_t*>(z) - b.data()));
  return contains(b, s);
}

bool starts(std::string_view v, std::string_view p) { return v.size() >= p.size() && v.compare(0, p.size(), p) == 0; }

bool hex_digit(uint8_t ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'); }

// A uTP (BEP 29) packet: version 1, type up to 4 (SYN), a well-formed
// extension chain (types up to 2, at most 4 links), non-zero connection id
// and timestamp; a SYN carries nothing and no timestamp difference, a STATE
// carries nothing, a DATA packet carries something, a zero window only on a
// bare header. 0 = not uTP, 1 = a control packet, 2 = DATA (weaker evidence).
int utp_kind(Bytes b) {
  if (b.size() < 20) return 0;
  const uint8_t type = b[0] >> 4, version = b[0] & 0x0f;
  size_t off = 20;
  uint8_t ext = b[1];
  for (int links = 0; ext != 0 && off + 1 < b.size();) {
    ext = b[off];
    if (ext > 2 || ++links > 4) return 0;
    off += 2 + size_t(b[off + 1]);
  }
  if (ext != 0) return 0;
  const bool bare = b.size() == off;
  if (version != 1 || type > 4 || b[1] > 2) return 0;
  if (type == 4 && (load_be32(b.data() + 8) != 0 || !bare)) return 0;
  if (type == 2 && !bare) return 0;
  if (type == 0 && bare) return 0;
  if (load_be16(b.data() + 2) == 0 || load_be32(b.data() + 4) == 0) return 0;
  if (load_be32(b.data() + 12) == 0 && !bare) return 0;
  return type == 0 ? 2 : 1;
}

// A tracker request: "info_hash=" in the request line (searched from byte
// 4, before the first CR, with at least 50 bytes left where it starts), then
// 20 hash characters, each printable or a %XX escape.
bool tracker_hash(Bytes b) {
  size_t i = 4;
  for (;; i++) {
    if (b.size() - i < 50 || b[i] == '\r') return false;
    if (has_at(b, i, "info_hash=")) break;
  }
  i += 10;
  for (int a = 0; a < 20; a++) {
    if (b.size() - i < 3) return false;
    if (b[i] == '%') {
      if (!hex_digit(b[i + 1]) || !hex_digit(b[i + 2])) return false;
      i += 3;
    } else if (b[i] >= 32 && b[i] < 127) {
      i++;
    } else {
      return false;
    }
  }
  return true;
}

// A GET / POST of over 90 bytes: client fingerprints by User-Agent and by
// the exact header lines (nDPI's line split: lines[k] is line k, `count`
// nDPI's parsed line count), then the tracker's info_hash.
bool http_forms(Bytes b) {
  HeaderValue h[] = {{"User-agent:"}, {"Host:"}};
  ndpi_header_values(b, h);
  const std::string_view ua = h[0].found ? std::string_view(h[0].value, h[0].len) : std::string_view();
  const std::string_view host = h[1].found ? std::string_view(h[1].value, h[1].len) : std::string_view();
  if ((ua.size() > 8 && starts(ua, "Azureus ")) || starts(ua, "BitTorrent") || starts(ua, "BTWebClient")) return true;
  std::string_view line[12];
  size_t count = 0;
  each_ndpi_line(b, [&](const char* l, size_t n) {
    if (count < 12) line[count] = {l, n};
    count++;
    return false;
  });
  if (starts(ua, "Shareaza ") && count > 8 && starts(line[8], "X-Queue: ")) return true;
  // BitComet LTS
  if ((count == 10 || (count == 11 && line[10].empty())) && ua.size() > 12 && starts(ua, "Mozilla/4.0 ") && host.size() >= 7 &&
      starts(line[2], "Keep-Alive: 300") && starts(line[3], "Connection: Keep-alive") &&
      (starts(line[4], "Accpet: */*") || starts(line[4], "Accept: */*")) && starts(line[5], "Range: bytes=") &&
      starts(line[7], "Pragma: no-cache") && starts(line[8], "Cache-Control: no-cache"))
    return true;
  // FlashGet, with and without a Range line
  constexpr std::string_view kMsie6 = "Mozilla/4.0 (compatible; MSIE 6.0;";
  if ((count == 8 || count == 7) && ua.size() > kMsie6.size() && starts(ua, kMsie6) && host.size() >= 7 && line[2] == "Accept: */*" &&
      starts(line[3], "Referer: ")) {
    if (count == 8 && line[5].size() > 13 && starts(line[5], "Range: bytes=") && starts(line[6], "Connection: Keep-Alive")) return true;
    if (count == 7 && starts(line[5], "Connection: Keep-Alive")) return true;
  }
  return tracker_hash(b);
}

bool tcp_forms(const DpiCtx& c) {
  const Bytes b = c.payload;
  const size_t n = b.size();
  if (n > 20 && c.flow.dpi_packets == 2 && has_at(b, 0, kProto)) return true;
  if (n > 20 && b[0] == 0x13 && has_at(b, 1, kProto)) return true;
  if (n > 23 && has_at(b, 0, "GET /webseed?info_hash=")) return true;
  if (n > 60 && has_at(b, 0, "GET /data?fid=") && has_at(b, 54, "&size=")) return true;
  if (n > 90 && (has_at(b, 0, "GET ") || has_at(b, 0, "POST ")) && http_forms(b)) return true;
  if (n == 80) {
    static constexpr char kHead[] = "\x4c\0\0\0\xff\xff\xff\xff\x57\0\0\0\0\0\0\0\x20\0\0\0";
    static constexpr char kMid[] = "\x28\x23\0\0\x01\0\0\0\x10\0\0\0";
    return has_at(b, 0, std::string_view(kHead, 20)) && has_at(b, 52, std::string_view(kMid, 12));
  }
  if (n > 50 && has_at(b, 0, "GET")) {
    const char* v = nullptr;
    size_t vl = 0;
    return ndpi_header_value(b, "Host:", v, vl) && starts({v, vl}, "ip2p.com:");
  }
  return false;
}

// The DHT / handshake strings nDPI looks for anywhere in a UDP payload
// (before its first NUL). All but the handshake hold a ':' at a known
// place: only the payload's colons are tried, not every offset.
bool udp_strings(Bytes b) {
  if (b.size() <= 19) return false;
  if (const void* z = std::memchr(b.data(), 0, b.size())) b = b.first(size_t(static_cast<const uint8_t*>(z) - b.data()));
  static constexpr struct {
    std::string_view s;
    size_t colon;  // offset of a ':' in s
  } kColon[] = {{":target20:", 0}, {":find_node1:", 0}, {":info_hash20:", 0}, {":filter64", 0}, {"d1:ad2:id20:", 2}, {"d1:rd2:id20:", 2}};
  const uint8_t* p = b.data();
  const uint8_t* const end = p + b.size();
  for (const uint8_t* q; (q = static_cast<const uint8_t*>(std::memchr(p, ':', size_t(end - p)))) != nullptr; p = q + 1) {
    const size_t at = size_t(q - b.data());
    for (const auto& k : kColon)
      if (at >= k.colon && has_at(b, at - k.colon, k.s)) return true;
  }
  return contains(b, kProto);
}

void remember(const DpiCtx& c) {
  const IpAddr& cli = c.from_client ? c.p.src : c.p.dst;
  const IpAddr& srv = c.from_client ? c.p.dst : c.p.src;
  using Cache = Classifier::Cache;
  const uint16_t bt = id(ProtoId::BitTorrent);
  c.clf->remember(Cache::BitTorrent, cli, c.cli_port, bt, c.flow);
  c.clf->remember(Cache::BitTorrent, srv, c.srv_port, bt, c.flow);
  c.clf->remember_key(Cache::BitTorrent, Classifier::peers_key(cli, srv), bt, c.flow);
  for (uint16_t i = 1; i <= 2; i++) c.clf->remember(Cache::BitTorrent, cli, uint16_t(c.cli_port + i), bt, c.flow);
}

Verdict found(const DpiCtx& c, Match& m, bool cached = false) {
  remember(c);
  m.cached = cached;
  return Verdict::Match;
}

// nDPI's ndpi_skip_bittorrent: named from the cache, or ruled out.
Verdict skip(const DpiCtx& c, Match& m) { return c.clf->bittorrent_known(c.flow) ? found(c, m, true) : Verdict::No; }

bool lsd_or_dht_query(Bytes b) {
  return (b.size() > 22 && has_at(b, 0, "BT-SEARCH * HTTP/1.1\r\n")) || (b.size() > 12 && has_at(b, 0, "d1:ad2:id20:"));
}

Verdict classify_udp(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t k = c.flow.dpi_packets;
  if (c.p.sport < 1024 || c.p.dport < 1024) return skip(c, m);  // high ports only, else the cache
  if (lsd_or_dht_query(b)) return found(c, m);
  if (b.size() >= 20) {
    const Bytes tail = b.subspan(20);
    if (int utp = utp_kind(b)) {
      // A control packet is enough; DATA needs the handshake or a third
      // packet (and waits without counting towards the give-up below).
      return utp == 1 || text_contains(tail, kProto) || k > 2 ? found(c, m) : Verdict::NeedMore;
    }
    if (b[0] == 0x60 && b[1] == 0 && b[2] == 0 && b[3] == 0 && b[4] == 0) return found(c, m);  // an old uTP shape
    if (b[18] < 6 && b[17] < 3) {
      // uTP version 0: its timestamp (seconds) within a day of the packet's
      const uint32_t ts = load_be32(b.data() + 4), now = uint32_t(c.p.ts_ns / 1000000000ull);
      if (ts < now + 86400u && ts > now - 86400u) return found(c, m);
    } else if (text_contains(tail, kProto)) {
      return found(c, m);
    }
  }
  // nDPI counts the packets that get this far and gives up on the fifth.
  // Only uTP DATA on the first two packets skips the count, which we cannot
  // remember (no scratch byte): we give up on the fifth packet regardless,
  // a packet or two earlier than nDPI after such DATA packets.
  if (k >= 5) return skip(c, m);
  return udp_strings(b) ? found(c, m) : Verdict::NeedMore;
}

Verdict classify_bittorrent(DpiCtx& c, Match& m) {
  if (c.p.ip_version == 4) {
    // nDPI leaves IPv4 broadcast alone, and UDP on Teredo's and CAPWAP's ports.
    if (c.p.src.v4() == 0xffffffffu || c.p.dst.v4() == 0xffffffffu) return Verdict::No;
    if (c.p.l4_proto == kProtoUdp)
      for (uint16_t port : {uint16_t(3544), uint16_t(5246), uint16_t(5247)})
        if (c.p.sport == port || c.p.dport == port) return Verdict::No;
  }
  m.app = id(ProtoId::BitTorrent);
  if (c.p.l4_proto != kProtoTcp) return classify_udp(c, m);
  m.master = c.flow.l7_master ? c.flow.l7_master : c.flow.l7_app;
  const bool late = c.flow.dpi_packets > 5;
  // On the sixth packet nDPI remembers the match, then asks its cache,
  // which finds it: "DPI (cache)".
  if (tcp_forms(c)) return found(c, m, late);
  return late ? skip(c, m) : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(bittorrent, {"BitTorrent", id(ProtoId::BitTorrent), kL4Both, 6, classify_bittorrent});

}  // namespace fg
