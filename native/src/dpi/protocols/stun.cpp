// ④ STUN (RFC 5389 / 8489, classic RFC 3489, TURN RFC 8656), as nDPI reads
// it: a 20-byte header whose length covers the rest of the datagram (over
// TCP, after an optional RFC 4571 length prefix, the first message of the
// segment, magic cookie required); a method of the registered range, or
// WhatsApp's 0x0800–0x0802; without the cookie only the classic message
// types whose attributes end exactly with the packet. Some attributes name
// the application behind it (STUN.WhatsAppCall …); after the match the
// flow's next packets are demultiplexed by their first byte (RFC 7983):
// STUN again, DTLS (the flow turns DTLS), TURN ChannelData, (S)RTP.
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/rtp_shape.h"
#include "dpi/tls_parse.h"
#include "flow/local_nets.h"

namespace fg {

namespace {

constexpr uint32_t kMagicCookie = 0x2112A442;

// FlowInfo::state after the match: the flow's packet count at the match,
// flags, and how many packets after it nDPI reads (6, 10 more for DTLS).
enum : uint8_t { kStMatchPkts = 0, kStFlags = 1, kStBudget = 2 };
enum : uint8_t {
  kFlTurn = 1,        // a TURN method was seen: ChannelData may follow
  kFlMaybeDtls = 2,   // DTLS seen after the match
  kFlMapped = 4,      // (XOR-)MAPPED-ADDRESS read
  kFlPeer = 8,        // XOR-PEER-ADDRESS
  kFlRelayed = 16,    // XOR-RELAYED-ADDRESS
  kFlOrigin = 32,     // RESPONSE-ORIGIN
  kFlOther = 64,      // OTHER-ADDRESS
};
constexpr uint8_t kAllAddrs = kFlMapped | kFlPeer | kFlRelayed | kFlOrigin | kFlOther;
constexpr uint8_t kExtraPackets = 6, kDtlsMore = 10;
constexpr int kMaxDepth = 4;  // nested DATA / ChannelData payloads read

bool classic_type(uint16_t t) {
  switch (t) {
    case 0x0001: case 0x0101: case 0x0111:  // binding request / response / error
    case 0x0002: case 0x0102: case 0x0112:  // shared secret
    case 0x0003: case 0x0103: case 0x0113:  // allocate
    case 0x0004: case 0x0104: case 0x0114:  // send
    case 0x0115:                            // data indication
    case 0x0006: case 0x0106: case 0x0116:  // set active destination
      return true;
    default:
      return false;
  }
}

// Attributes (4-byte aligned) ending exactly with the message.
bool attributes_fit(const uint8_t* p, size_t n) {
  size_t off = 20;
  while (off + 4 < n) off += 4 + ((size_t(load_be16(p + off + 2)) + 3) & ~size_t(3));
  return off == n;
}

}  // namespace

// nDPI's STUN header test: 1 a STUN message (`msg` its bytes, empty for the
// legacy "RSP/x.y STUN_" text), 0 or -1 not (RTP tells those apart).
int stun_message(bool tcp, Bytes in, Bytes& msg) {
  const uint8_t* p = in.data();
  size_t n = in.size();
  msg = Bytes();
  if (n < 20) return -1;
  if (std::memcmp(p, "RSP/", 4) == 0 && std::memcmp(p + 7, " STUN_", 6) == 0) return 1;
  if (tcp && n >= 22 && size_t(load_be16(p)) + 2 == n) p += 2, n -= 2;  // RFC 4571 framing
  if (n >= 32 && load_be16(p) == 0xff10 && size_t(load_be16(p + 2)) + 4 == n) p += 12, n -= 12;  // MS-TURN multiplexed
  const uint16_t type = load_be16(p), len = load_be16(p + 2);
  const bool cookie = load_be32(p + 4) == kMagicCookie;
  if (tcp && !cookie) return 0;
  if (tcp) {
    if (size_t(len) + 20 > n) return 0;
    n = size_t(len) + 20;  // the first message only
  }
  if (type == 0 || size_t(len) + 20 != n) return -1;
  if ((type & 0x3eef) > 0x000b && type != 0x0800 && type != 0x0801 && type != 0x0802) return -1;
  if (!cookie && (!classic_type(type) || !attributes_fit(p, n))) return 0;
  msg = Bytes(p, n);
  return 1;
}

namespace {

// Applications of their own (not STUN's transports): nDPI's "real"
// sub-classification.
bool real_app(uint16_t app) {
  return app && app != id(ProtoId::STUN) && app != id(ProtoId::RTP) && app != id(ProtoId::RTCP) &&
         app != id(ProtoId::SRTP) && app != id(ProtoId::DTLS);
}
// The flow as nDPI's stack: [0] the application (or the lone protocol), [1] the master.
uint16_t stack0(const Flow& f) { return f.l7_app; }
uint16_t stack1(const Flow& f) { return f.l7_master; }
bool flow_real(const Flow& f) { return stack1(f) != 0 && real_app(stack0(f)); }
uint16_t flow_master(const Flow& f) { return f.l7_master ? f.l7_master : f.l7_app ? f.l7_app : id(ProtoId::STUN); }

// Google's STUN/TURN servers for Meet (support.google.com/a/answer/1279090):
// ports 19302–19309 or 3478 on 74.125.250.0/24, 142.250.82.0/24,
// 2001:4860:4864:5::/64 and :6::/64, as nDPI names them.
bool google_call_server(const DpiCtx& c) {
  auto port = [](uint16_t p) { return (p >= 19302 && p <= 19309) || p == 3478; };
  if (!port(c.cli_port) && !port(c.srv_port)) return false;
  for (const IpAddr* ip : {&c.p.src, &c.p.dst}) {
    if (ip->is_v4()) {
      const uint32_t net = ip->v4() & 0xffffff00u;
      if (net == 0x4a7dfa00u || net == 0x8efa5200u) return true;
    } else if (load_be32(ip->b) == 0x20014860u && load_be16(ip->b + 4) == 0x4864 &&
               (load_be16(ip->b + 6) == 5 || load_be16(ip->b + 6) == 6)) {
      return true;
    }
  }
  return false;
}

// What naming a flow comes to (nDPI's ndpi_int_stun_add_connection): a
// Meet server names an unnamed one; one with no application of its own
// takes the endpoints' cached one (RTP then becomes SRTP.App); an
// application found is remembered for both endpoints.
struct Naming {
  uint16_t master, app;
  bool cached, set;
};
Naming name_flow(const DpiCtx& c, uint16_t app, uint16_t master) {
  Naming r{master, app, false, false};
  if (r.app == 0 && google_call_server(c)) r.app = id(ProtoId::GoogleCall);
  if (!real_app(r.app)) {
    const DpiSides s = dpi_sides(c.flow);  // nDPI asks its client's endpoint first
    uint16_t hit = c.clf->cached(Classifier::Cache::Stun, s.cli, s.cport, c.flow);
    if (!hit) hit = c.clf->cached(Classifier::Cache::Stun, s.srv, s.sport, c.flow);
    if (hit) {
      r.cached = true;
      if (r.app == id(ProtoId::RTP)) r.master = id(ProtoId::SRTP);
      if (r.master == id(ProtoId::RTP) || r.master == id(ProtoId::RTCP)) r.master = id(ProtoId::SRTP);
      r.app = hit;
    }
  }
  if (r.master == id(ProtoId::RTP) || r.master == id(ProtoId::RTCP)) {
    if (r.app == 0) r.app = id(ProtoId::RTP), r.master = id(ProtoId::STUN);
    else r.master = id(ProtoId::SRTP);
  }
  if (real_app(r.app)) {
    c.clf->remember(Classifier::Cache::Stun, c.p.src, c.p.sport, r.app, c.flow);
    c.clf->remember(Classifier::Cache::Stun, c.p.dst, c.p.dport, r.app, c.flow);
  }
  r.set = stack0(c.flow) == 0 || r.app != 0;
  return r;
}

void add_connection(DpiCtx& c, uint16_t app, uint16_t master) {
  const Naming r = name_flow(c, app, master);
  if (r.set) c.clf->refine(c.flow, r.master, r.app ? r.app : r.master, r.cached ? Confidence::DpiCache : Confidence::Dpi);
}

// Whether nDPI keeps reading the flow (keep_extra_dissection, monitoring
// off): always without an application of its own; with one, until every
// address attribute was seen (WhatsApp over SRTP: mapped and relayed), and
// never for Zoom.
bool keep_reading(uint16_t master, uint16_t app, uint8_t flags) {
  if (!(master != 0 && real_app(app))) return true;
  if (app == id(ProtoId::TelegramVoip)) return true;
  if ((flags & kAllAddrs) == kAllAddrs) return false;
  if (app == id(ProtoId::WhatsAppCall) && master == id(ProtoId::SRTP) && (flags & kFlMapped) && (flags & kFlRelayed)) return false;
  return app != id(ProtoId::Zoom);
}

struct Walk {
  uint16_t app = 0;
  uint8_t flags = 0;
};

void again(DpiCtx& c, Bytes b, int depth);

// An address attribute (plain or XOR'd with the cookie and transaction id):
// its port, 0 when malformed. `ip` gets a v4 address (0 otherwise).
uint16_t address_port(const uint8_t* p, size_t n, size_t off, size_t real, bool x, uint32_t& ip) {
  ip = 0;
  if (off + 4 + real > n || (real != 8 && real != 20)) return 0;
  const uint8_t family = p[off + 5];
  if (!((family == 1 && real == 8) || (family == 2 && real == 20))) return 0;
  uint16_t port = load_be16(p + off + 6);
  if (x) port ^= uint16_t(load_be32(p + 4) >> 16);
  if (family == 1) ip = load_be32(p + off + 8) ^ (x ? load_be32(p + 4) : 0);
  return port;
}

// The attribute walk of a STUN message (nDPI's is_stun after the header):
// the application it names (a later attribute overrides, Zoom's ends the
// walk), the TURN method, the address attributes seen. After the match
// (`c.extra`) a DATA attribute's payload is read as the flow's next packet
// and a peer address is remembered under the flow's application.
void walk(DpiCtx& c, Bytes msg, int depth, Walk& w) {
  const uint8_t* p = msg.data();
  const size_t n = msg.size();
  const uint16_t type = load_be16(p);
  if (type == 0x0800 || type == 0x0801 || type == 0x0802) {
    w.app = id(ProtoId::WhatsAppCall);
    return;
  }
  const uint16_t method = (type & 0x000f) | ((type & 0x00e0) >> 1) | ((type & 0x3e00) >> 2);
  if (method >= 3 && method <= 12) w.flags |= kFlTurn;  // allocate … connection attempt (RFC 8656, 6062)
  for (size_t off = 20; off + 4 < n;) {
    const uint16_t attr = load_be16(p + off), len = load_be16(p + off + 2);
    const size_t real = (size_t(len) + 3) & ~size_t(3);
    uint32_t ip = 0;
    switch (attr) {
      case 0x0001: case 0x0020:  // MAPPED-ADDRESS, XOR-MAPPED-ADDRESS
        if (address_port(p, n, off, real, attr == 0x0020, ip)) w.flags |= kFlMapped;
        break;
      case 0x802b:
        if (address_port(p, n, off, real, false, ip)) w.flags |= kFlOrigin;
        break;
      case 0x802c:
        if (address_port(p, n, off, real, false, ip)) w.flags |= kFlOther;
        break;
      case 0x0016:
        if (address_port(p, n, off, real, true, ip)) w.flags |= kFlRelayed;
        break;
      case 0x0012: {  // XOR-PEER-ADDRESS: the peer named like the flow (nDPI finds IPv4 peers only)
        const uint16_t port = address_port(p, n, off, real, true, ip);
        if (port) w.flags |= kFlPeer;
        if (c.extra && ip && flow_real(c.flow)) {
          IpAddr a{};
          uint8_t raw[4] = {uint8_t(ip >> 24), uint8_t(ip >> 16), uint8_t(ip >> 8), uint8_t(ip)};
          a.set_v4(raw);
          c.clf->remember(Classifier::Cache::Stun, a, port, stack0(c.flow), c.flow);
        }
        break;
      }
      case 0x0101: case 0x0103:
        w.app = id(ProtoId::Zoom);
        return;
      case 0x4000: case 0x4001: case 0x4002: case 0x4003: case 0x4004: case 0x4007:
        w.app = id(ProtoId::WhatsAppCall);
        break;
      case 0x8054: case 0x24df: case 0x3802: case 0x8036: case 0x8095:
      case 0x0800: case 0x8006: case 0x8070: case 0x8055:
        w.app = id(ProtoId::Skype_TeamsCall);
        break;
      case 0xff03:
        w.app = id(ProtoId::GoogleCall);
        break;
      case 0x0014: {  // REALM: the flow's first one is its name; junk ('?') names nothing
        if (c.info && c.info->host[0]) break;
        const size_t have = std::min<size_t>(len, n - off - 4), take = std::min<size_t>(have, 79);
        const uint8_t* v = p + off + 4 + (have - take);
        char name[80];
        size_t k = 0;
        bool junk = false;
        for (; k < take && v[k]; k++) {
          char ch = char(v[k]);
          if (ch >= 'A' && ch <= 'Z') ch = char(ch + 32);
          if (ch == '\t') ch = ' ';
          if (uint8_t(ch) < 0x20 || uint8_t(ch) > 0x7e) ch = '?';
          junk |= ch == '?';
          name[k] = ch;
        }
        while (k > 0 && name[k - 1] == ' ') k--;
        if (junk || k == 0) break;
        c.set_host(name, k);
        const Bytes text(reinterpret_cast<const uint8_t*>(name), k);
        if (contains(text, "google.com")) w.app = id(ProtoId::GoogleCall);
        else if (contains(text, "whispersystems.org") || contains(text, "signal.org")) w.app = id(ProtoId::SignalVoip);
        else if (contains(text, "facebook")) w.app = id(ProtoId::FacebookVoip);
        else if (contains(text, "stripcdn.com")) w.app = id(ProtoId::AdultContent);
        else if (contains(text, "telegram")) w.app = id(ProtoId::TelegramVoip);
        else if (contains(text, "viber")) w.app = id(ProtoId::ViberVoip);
        break;
      }
      case 0x0013:  // DATA: the relayed payload, read as a packet of the flow
        if (c.extra && depth < kMaxDepth && real <= n - off - 4) again(c, Bytes(p + off + 4, real), depth + 1);
        break;
      default:
        break;
    }
    off += 4 + real;
  }
}

}  // namespace

// nDPI's is_dtls: a DTLS record header whose length fits in the datagram.
bool dtls_shape(Bytes b) {
  if (b.size() <= 13) return false;
  if (b[0] != 20 && b[0] != 21 && b[0] != 22 && b[0] != 23) return false;
  if (!((b[1] == 0xfe && (b[2] == 0xff || b[2] == 0xfd || b[2] == 0xfc)) || (b[1] == 0x01 && b[2] == 0x00))) return false;
  const size_t len = load_be16(b.data() + 11);
  return len != 0 && len + 12 < b.size();
}

namespace {

// One packet (or relayed payload) after the match, by its first byte (RFC 7983 / 9443).
void again(DpiCtx& c, Bytes b, int depth) {
  if (b.empty() || !c.info) return;
  uint8_t& flags = c.info->state[kStFlags];
  const uint8_t first = b[0];
  if (first <= 3) {
    Bytes msg;
    if (stun_message(c.p.l4_proto == kProtoTcp, b, msg) != 1) return;
    Walk w;
    if (!msg.empty()) walk(c, msg, depth, w);
    flags |= w.flags;
    // A better name: another application, or a look into the cache again.
    if (flow_real(c.flow) && w.app == 0) return;
    if (w.app != stack0(c.flow)) add_connection(c, w.app, flow_master(c.flow));
  } else if (first >= 20 && first <= 63) {
    if (!dtls_shape(b)) return;
    const FlowMeta* fm = c.meta(MetaKind::Tls);
    if (fm && (fm->tls.flags & kTlsCert)) return;  // its handshake already read
    const bool first_dtls = !(flags & kFlMaybeDtls);
    const uint16_t old0 = stack0(c.flow);
    if (first_dtls) {
      flags |= kFlMaybeDtls;
      c.unrisk(Risk::KnownProtoNonStdPort);  // stun.c: STUN's port judgment does not hold for what follows
      c.info->state[kStBudget] = uint8_t(std::min(255, c.info->state[kStBudget] + kDtlsMore));
      c.clf->refine(c.flow, 0, id(ProtoId::DTLS));
    }
    dtls_read_records(c);
    // DTLS with nothing of its own keeps what the flow was (RTP as SRTP).
    if (first_dtls && stack0(c.flow) == id(ProtoId::DTLS) && stack1(c.flow) == 0 && old0 != 0 && old0 != id(ProtoId::STUN))
      add_connection(c, old0 == id(ProtoId::RTP) ? id(ProtoId::SRTP) : old0, flow_master(c.flow));
  } else if (first >= 64 && first <= 79) {
    // TURN ChannelData (RFC 8656 §12.4): channel number, length, data.
    if (!(flags & kFlTurn) || b.size() < 4 || depth >= kMaxDepth) return;
    const size_t len = load_be16(b.data() + 2);
    if (len <= b.size() - 4) again(c, Bytes(b.data() + 4, len), depth + 1);
  } else if (first >= 128 && first <= 191) {
    if (rtp_shape(b.data(), b.size()) != RtpShape::Rtp) return;
    const uint16_t s0 = stack0(c.flow), s1 = stack1(c.flow);
    if (s0 == id(ProtoId::RTP) || s0 == id(ProtoId::RTCP) || s1 == id(ProtoId::SRTP)) return;
    if (s1 != 0) {
      if (s1 != id(ProtoId::DTLS)) add_connection(c, s0, id(ProtoId::SRTP));  // STUN.App → SRTP.App
    } else {
      const uint16_t master = flow_master(c.flow);
      add_connection(c, master == id(ProtoId::STUN) ? id(ProtoId::RTP) : id(ProtoId::SRTP), master);
    }
  } else if (first >= 192) {
    // MS-TURN multiplexed channel ([MS-TURN] 2.2.3) on a Teams call.
    if (b.size() < 12 || load_be16(b.data()) != 0xff10 || stack0(c.flow) != id(ProtoId::Skype_TeamsCall) || depth >= kMaxDepth) return;
    const size_t len = load_be16(b.data() + 2);
    if (len == b.size() - 4 && len >= 8) again(c, Bytes(b.data() + 12, len - 8), depth + 1);
  }
}

Verdict stun_extra(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  const uint32_t seen = c.flow.pkts[0] + c.flow.pkts[1] - c.info->state[kStMatchPkts];
  if (seen > c.info->state[kStBudget]) return Verdict::No;
  again(c, c.payload, 0);
  if (!keep_reading(stack1(c.flow), stack0(c.flow), c.info->state[kStFlags])) return Verdict::No;
  return seen >= c.info->state[kStBudget] ? Verdict::No : Verdict::NeedMore;
}

Verdict classify_stun(DpiCtx& c, Match& m) {
  if (c.extra) return stun_extra(c);
  // Nothing to a broadcast or multicast IPv4 address.
  if (c.p.dst.is_v4() && (c.p.dst.v4() == 0xffffffffu || (c.p.dst.v4() & 0xf0000000u) == 0xe0000000u)) return Verdict::No;
  Bytes msg;
  if (stun_message(c.p.l4_proto == kProtoTcp, c.payload, msg) != 1) return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
  Walk w;
  if (!msg.empty()) walk(c, msg, 0, w);
  const Naming r = name_flow(c, w.app, id(ProtoId::STUN));
  m.master = r.master;
  m.app = r.app;
  m.cached = r.cached;
  if (c.info) {
    c.info->state[kStMatchPkts] = uint8_t(c.flow.pkts[0] + c.flow.pkts[1]);
    c.info->state[kStFlags] = w.flags;
    c.info->state[kStBudget] = kExtraPackets;
    m.more = keep_reading(r.app && r.app != r.master ? r.master : 0, r.app ? r.app : r.master, w.flags);
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(stun, {"STUN", id(ProtoId::STUN), kL4Both, 6, classify_stun});

}  // namespace fg
