// ④ Gnutella, as nDPI's gnutella.c reads it, on any payload packet of at
// least 2 bytes (shorter ones are skipped), excluding on the first one that
// matches nothing.
// TCP: the handshake line ("GNUTELLA CONNECT/…" or the answer
// "GNUTELLA/…"); HTTP-style requests of servents ("GET /get/…" or
// "GET /uri-res/…" with a Gnutella header line or a "?urn:sha1:" query,
// "GET / HTTP" from BearShare Lite or accepting nDPI's
// "application n/x-gnutella", "HEAD /gnutella/push-proxy?", a 46-byte
// "PUSH guid:", a long "GET /gnutella/…" of the tiger-tree kind); the
// TLS-looking hellos some servents send (SSLv2-style 46 and 49 bytes, TLS
// 1.0 hellos of 89 and 82 bytes with fixed random and cipher bytes). A
// "GIV …\n\n" packet waits for the next one. nDPI's "neonet" exchange
// between ports ≥ 1024: a first payload packet of 11, 33 or 37 bytes whose
// bytes 4, 6 and 8 come back as bytes 0, 2 and 4 of the second, of 33 or 22
// bytes the same way or 10 or 75 bytes the other (the id and direction kept
// in Classifier::memo).
// UDP: gtk-gnutella's Mojito-DHT frames ("GTKG" at 24, a little-endian
// length at 19 counting from 23), "GND" frames and a handful of fixed
// datagram shapes.
// A match keeps the master the flow has (HTTP when asked as HTTP's
// sub-protocol), as nDPI's ndpi_set_detected_protocol_keeping_master.
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool servent_hello(Bytes b) {
  const uint8_t* p = b.data();
  switch (b.size()) {
    case 46:
      return load_be32(p) == 0x802c0103 && load_be32(p + 4) == 0x01000300 && load_be32(p + 8) == 0x00002000 && load_be16(p + 12) == 0x0034;
    case 49:
      return std::memcmp(p, "\x80\x2f\x01\x03\x01\x00\x06\x00\x00\x00\x20\x00\x00\x34\x00\x00\xff\x4d\x6c", 19) == 0;
    case 89:
      return std::memcmp(p, "\x16\x03\x01\x00\x54\x01\x00\x00\x50\x03\x01\x4d\x6c", 13) == 0 && std::memcmp(p + 43, "\x20\x4d\x6c", 3) == 0 &&
             std::memcmp(p + 76, "\x00\x02\x00\x34\x01\x00\x00\x05", 8) == 0;
    case 82:
      return load_be32(p) == 0x16030100 && load_be32(p + 4) == 0x4d010000 && load_be16(p + 8) == 0x4903 && load_be16(p + 76) == 0x0002 &&
             load_be32(p + 78) == 0x00340100;
    default:
      return false;
  }
}

// nDPI's line split of a payload: lines end at CR LF; the rest after the
// last CR LF is a line too when there was one; 64 lines at most. `fn` gets
// each line (without its CR LF) and returns true to stop.
template <typename Fn>
bool each_line(Bytes b, Fn fn) {
  if (b.size() < 3) return false;
  size_t start = 0, lines = 0;
  bool any = false;
  for (size_t a = 0; a + 1 < b.size(); a++) {
    if (b[a] != '\r' || b[a + 1] != '\n') continue;
    if (fn(b.subspan(start, a - start))) return true;
    any = true;
    if (++lines >= 64) return false;
    start = a + 2;
    a++;
  }
  return any && fn(b.subspan(start, b.size() - start));
}

bool line_starts(Bytes l, std::string_view s) { return has_at(l, 0, s); }

// A header's value as nDPI's line parser keeps it: the name matched without
// regard to case, the value non-empty before spaces are stripped from both
// ends; the last such line wins.
void header_value(Bytes l, std::string_view name, Bytes& out) {
  if (l.size() <= name.size() || !has_at_upper(l, 0, name)) return;
  size_t s = name.size(), e = l.size();
  while (s < e && l[s] == ' ') s++;
  while (e > s && l[e - 1] == ' ') e--;
  out = l.subspan(s, e - s);
}

bool get_with_gnutella_line(Bytes b) {
  return each_line(b, [](Bytes l) {
    return line_starts(l, "User-Agent: Gnutella") || line_starts(l, "X-Gnutella-") || line_starts(l, "X-Queue:") ||
           line_starts(l, "Content-Type: application/x-gnutella-");
  });
}

bool bearshare_root_get(Bytes b) {
  Bytes ua, accept;
  each_line(b, [&](Bytes l) {
    if (!l.empty() && (l[0] == 'U' || l[0] == 'u')) header_value(l, "USER-AGENT:", ua);
    if (!l.empty() && (l[0] == 'A' || l[0] == 'a')) header_value(l, "ACCEPT:", accept);
    return false;
  });
  return (ua.size() > 15 && has_at(ua, 0, "BearShare Lite ")) || (accept.size() > 24 && has_at(accept, 0, "application n/x-gnutella"));
}

// The first '?' from offset 8 on, followed by "urn:sha1:".
bool sha1_query(Bytes b) {
  const size_t lim = b.size() - 9;
  size_t c = 8;
  while (c < lim) {
    if (b[c++] == '?') break;
  }
  return c < lim && has_at(b, c, "urn:sha1:");
}

bool tigertree_get(Bytes b) {
  const size_t end = b.size() - 3;
  if (has_at(b, 14, "tigertree/")) return true;
  for (size_t c = 13; c < end; c++) {
    const size_t left = end - c;
    if ((left > 18 && has_at(b, c, "\r\nUser-Agent: Foxy")) || (left > 44 && has_at(b, c, "\r\nAccept: application/tigertree-breadthfirst")) ||
        (left > 10 && has_at(b, c, "\r\nX-Queue:")) || (left > 13 && has_at(b, c, "\r\nX-Features:")))
      return true;
  }
  return false;
}

// What a TCP payload says: Match, NeedMore (GIV) or No.
Verdict tcp_patterns(Bytes b) {
  const size_t n = b.size();
  if ((n > 10 && has_at(b, 0, "GNUTELLA/")) || (n > 17 && has_at(b, 0, "GNUTELLA CONNECT/"))) return Verdict::Match;
  const bool get_file = n > 50 && (has_at(b, 0, "GET /get/") || has_at(b, 0, "GET /uri-res/"));
  if (get_file && get_with_gnutella_line(b)) return Verdict::Match;
  if (n > 50 && has_at(b, 0, "GET / HTTP") && bearshare_root_get(b)) return Verdict::Match;
  if (get_file && sha1_query(b)) return Verdict::Match;
  if (n > 30 && has_at(b, 0, "HEAD /gnutella/push-proxy?")) return Verdict::Match;
  if (n == 46 && has_at(b, 0, "PUSH guid:")) return Verdict::Match;
  if (n > 250 && has_at(b, 0, "GET /gnutella/") && tigertree_get(b)) return Verdict::Match;
  if (n > 3 && b[n - 1] == '\n' && b[n - 2] == '\n' && has_at(b, 0, "GIV")) return Verdict::NeedMore;
  return servent_hello(b) ? Verdict::Match : Verdict::No;
}

bool gnd_frame(Bytes b) {
  const size_t n = b.size();
  if (!has_at(b, 0, "GND")) return false;
  if (n >= 4 && b[3] == 0x10) return true;
  return (n == 8 && has_at(b, 6, std::string_view("\x01\x00", 2))) || (n == 11 && has_at(b, 6, "\x01\x01\x08\x50\x49")) ||
         (n == 17 && has_at(b, 6, "\x01\x01\x4c\x05\x50")) || (n == 28 && has_at(b, 6, "\x01\x01\x54\x0f\x51\x4b\x52\x50\x06\x52")) ||
         (n == 41 && has_at(b, 6, "\x01\x01\x5c\x1b\x50\x55\x53\x48\x48\x10")) || (n > 200 && n < 300 && b[3] == 0x03) ||
         (n > 300 && (b[3] == 0x01 || b[3] == 0x03));
}

bool udp_patterns(Bytes b) {
  using namespace std::string_view_literals;
  const size_t n = b.size();
  if (n >= 28 && load_be32(b.data() + 24) == 0x47544b47 && load_le32(b.data() + 19) == n - 23) return true;  // "GTKG"
  if (n == 23 && (has_at(b, 15, "\x00\x41\x01\x00\x00\x00\x00\x00"sv) || has_at(b, 16, "\x00\x01\x00\x00\x00\x00\x00"sv))) return true;
  if (n == 35 && has_at(b, 25, "\x49\x50\x40\x83\x53\x43\x50\x41")) return true;
  if (n == 32 && has_at(b, 16, "\x31\x01\x00\x09\x00\x00\x00"sv)) return true;
  if (n == 34 && has_at(b, 25, "SCP@") && has_at(b, 30, "DNA@")) return true;
  if ((n == 73 || n == 96) && has_at(b, 32, "urn:sha1:")) return true;
  return gnd_frame(b);
}

// nDPI's neonet stages (see above); memo: stage (1 + the first packet's
// direction from the client), then the message id's three bytes.
Verdict neonet(const DpiCtx& c, Bytes b) {
  const size_t n = b.size();
  const uint8_t dir = c.from_client ? 0 : 1;
  const uint8_t* st = c.clf->memo(c.flow);
  if (!st || !st[0]) {
    if (c.flow.dpi_packets != 1 || (n != 11 && n != 33 && n != 37)) return Verdict::No;
    uint8_t* mine = c.clf->memo_take(c.flow);
    mine[0] = uint8_t(1 + dir), mine[1] = b[4], mine[2] = b[6], mine[3] = b[8];
    return Verdict::NeedMore;
  }
  if (c.flow.dpi_packets != 2 || n < 5 || b[0] != st[1] || b[2] != st[2] || b[4] != st[3]) return Verdict::No;
  const bool same_way = st[0] == 1 + dir;
  return (same_way ? (n == 33 || n == 22) : (n == 10 || n == 75)) ? Verdict::Match : Verdict::No;
}

Verdict classify_gnutella(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 2) return Verdict::NeedMore;
  Verdict v;
  if (c.p.l4_proto == kProtoTcp) {
    v = tcp_patterns(b);
    if (v == Verdict::No && c.p.sport >= 1024 && c.p.dport >= 1024) v = neonet(c, b);
  } else {
    v = udp_patterns(b) ? Verdict::Match : Verdict::No;
  }
  if (v == Verdict::Match) {
    // nDPI keeps a master already there: HTTP.Gnutella when asked as one of
    // HTTP's sub-protocols, Gnutella alone otherwise
    m.app = id(ProtoId::Gnutella);
    m.master = c.flow.l7_master ? c.flow.l7_master : c.flow.l7_app;
  }
  return v;
}

}  // namespace

FG_DISSECTOR(gnutella, {"Gnutella", id(ProtoId::Gnutella), kL4Both, 24, classify_gnutella});

}  // namespace fg
