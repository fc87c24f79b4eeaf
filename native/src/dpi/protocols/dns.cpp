// ④ DNS, mDNS and LLMNR responses (RFC 1035, 6762, 4795): every A/AAAA answer
// names its address with the question's name (what the client asked for).
#include <cstring>
#include <string_view>

#include "dpi/classify.h"
#include "dpi/dga.h"
#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// Reads a (possibly compressed) name at `off` into out; returns the offset
// just past it in the message, or 0 when malformed.
size_t read_name(Bytes m, size_t off, char* out, size_t cap, size_t& len) {
  len = 0;
  size_t end = 0;
  int jumps = 0;
  for (;;) {
    if (off >= m.size()) return 0;
    uint8_t l = m[off];
    if (l == 0) {
      if (!end) end = off + 1;
      break;
    }
    if ((l & 0xc0) == 0xc0) {  // compression pointer
      if (off + 1 >= m.size() || ++jumps > 16) return 0;
      if (!end) end = off + 2;
      off = size_t(l & 0x3f) << 8 | m[off + 1];
      continue;
    }
    if (l & 0xc0) return 0;
    if (off + 1 + l > m.size()) return 0;
    if (len + l + 1 >= cap) return 0;
    if (len) out[len++] = '.';
    std::memcpy(out + len, m.data() + off + 1, l);
    len += l;
    off += 1 + l;
  }
  out[len] = 0;
  return end;
}

}  // namespace

void names_from_dns(Bytes m, uint16_t vlan, NameSource src, const NameSink& sink) {
  if (m.size() < 12) return;
  uint16_t flags = load_be16(m.data() + 2);
  if (!(flags & 0x8000) || (flags & 0x000f) != 0) return;  // responses without error only
  uint16_t qd = load_be16(m.data() + 4), an = load_be16(m.data() + 6);
  char qname[256];
  size_t qlen = 0;
  size_t off = 12;
  for (uint16_t i = 0; i < qd && i < 4; i++) {
    char tmp[256];
    size_t tlen;
    off = read_name(m, off, tmp, sizeof(tmp), tlen);
    if (!off || off + 4 > m.size()) return;
    if (i == 0) std::memcpy(qname, tmp, tlen + 1), qlen = tlen;
    off += 4;
  }
  for (uint16_t i = 0; i < an && i < 32; i++) {
    char rname[256];
    size_t rlen;
    off = read_name(m, off, rname, sizeof(rname), rlen);
    if (!off || off + 10 > m.size()) return;
    uint16_t type = load_be16(m.data() + off);
    uint16_t rdlen = load_be16(m.data() + off + 8);
    off += 10;
    if (off + rdlen > m.size()) return;
    // mDNS announcements carry no question: the record's own name is the host.
    const char* name = qlen ? qname : rname;
    size_t nlen = qlen ? qlen : rlen;
    if (src == NameSource::Mdns && nlen > 6 && std::memcmp(name + nlen - 6, ".local", 6) == 0) nlen -= 6;
    if ((type == 1 && rdlen == 4) || (type == 28 && rdlen == 16)) {
      IpAddr a;
      if (type == 1) a.set_v4(m.data() + off);
      else a.set_v6(m.data() + off);
      if (plausible_name(name, nlen)) sink(a, vlan, name, nlen, src);
    }
    off += rdlen;
  }
}

uint8_t mdns_device_type(Bytes m) {
  if (m.size() < 12 || !(load_be16(m.data() + 2) & 0x8000)) return 0;  // responses only
  const uint16_t qd = load_be16(m.data() + 4), an = load_be16(m.data() + 6);
  size_t off = 12;
  char name[256];
  size_t len;
  for (uint16_t i = 0; i < qd && i < 4; i++) {
    off = read_name(m, off, name, sizeof(name), len);
    if (!off || off + 4 > m.size()) return 0;
    off += 4;
  }
  // the first answer whose name names a service ntopng recognises
  for (uint16_t i = 0; i < an && i < 32; i++) {
    off = read_name(m, off, name, sizeof(name), len);
    if (!off || off + 10 > m.size()) return 0;
    const uint16_t rdlen = load_be16(m.data() + off + 8);
    off += 10 + rdlen;
    if (off > m.size()) return 0;
    std::string_view n(name, len);
    auto has = [&](const char* s) { return n.find(s) != std::string_view::npos; };
    if (has("._device-info._")) continue;
    if (has("._airplay._") || has("._spotify-connect._")) return 11;  // multimedia
    if (has("_ssh._")) return 3;                                        // workstation
    if (has("._daap._") || has("_afpovertcp._") || has("_adisk._") || has("_smb._")) return 10;  // NAS
    if (has("_hap._")) return 12;                                       // IoT (HomeKit)
    if (has("_pdl-datastream._")) return 1;                             // printer
  }
  return 0;
}

}  // namespace fg

// Classification, as nDPI 4.11 reads DNS, mDNS and LLMNR (its dns.c): the
// packet's ports (53 either way, 5353 either way, 5355 as destination),
// queries that hold together (responses always do), the first question's
// name naming the application (DNS.Google, whatever the port), and after a
// query up to five more packets read for the response's risks.
namespace fg {
namespace {

constexpr uint16_t kDnsPort = 53, kMdnsPort = 5353, kLlmnrPort = 5355;
constexpr uint16_t kMaxQuestions = 16;  // nDPI's NDPI_MAX_DNS_REQUESTS
constexpr size_t kLargePacket = 512;    // RFC 1035 §4.2.1: UDP messages of 512 bytes at most
constexpr uint8_t kExtraPackets = 5;    // packets read after the query (TCP's ACKs count)

// DnsMeta's spare bytes (the flow's DNS state after the match).
constexpr size_t kPadEdns0 = 0;      // 2 bytes: the EDNS(0) payload size a response announced
constexpr size_t kPadMatchedAt = 2;  // 4 bytes: the flow's packets when the query matched
constexpr size_t kPadAddrs = 6;      // 1 byte: A/AAAA answers taken so far (nDPI keeps 4)

uint16_t proto_of_port(uint16_t port) {
  if (port == kDnsPort) return id(ProtoId::DNS);
  if (port == kLlmnrPort) return id(ProtoId::LLMNR);
  if (port == kMdnsPort) return id(ProtoId::MDNS);
  return 0;
}

// The destination is mDNS's group (224.0.0.251, ff02::fb; RFC 6762 §3) or
// LLMNR's (224.0.0.252, ff02::1:3; RFC 4795 §2).
bool group_dst(const IpAddr& a, uint32_t v4, uint32_t v6_low) {
  if (a.is_v4()) return a.v4() == v4;
  return load_be32(a.b) == 0xff020000u && load_be32(a.b + 4) == 0 && load_be32(a.b + 8) == 0 && load_be32(a.b + 12) == v6_low;
}
bool mdns_dst(const IpAddr& a) { return group_dst(a, 0xe00000fbu, 0x000000fbu); }
bool llmnr_dst(const IpAddr& a) { return group_dst(a, 0xe00000fcu, 0x00010003u); }

// nDPI's length of a name at i: labels up to the root label (+1) or up to
// a pointer written 0xC0 xx (+2); a label running out of the packet, or
// of length 255, ends the count where it is (0 when that is the start).
size_t name_span(Bytes p, size_t i) {
  size_t total = 0;
  for (;;) {
    if (i >= p.size()) return total;
    if (p[i] == 0) return total + 1;
    if (p[i] == 0xc0) return total + 2;
    size_t step = uint8_t(p[i] + 1);
    if (step == 0) return total;
    total += step, i += step;
  }
}

// nDPI's reading of a name at off (queries carry no pointers): plain labels,
// lower-cased; outside [A-Za-z0-9_-] a character is '_' (printable) or '?'
// and the name invalid, unless `any` (mDNS takes every byte). A pointer or
// a label reaching the packet's end empties it. Returns the length; off ends
// past what was read.
size_t grab_name(Bytes p, size_t& off, bool any, char* out, size_t cap, bool& valid) {
  const size_t max = cap - 1;
  size_t j = 0;
  valid = true;
  while (j < max && off < p.size() && p[off] != 0) {
    uint8_t cl = p[off++];
    if ((cl & 0xc0) || off + cl >= p.size()) {
      j = 0;
      break;
    }
    if (j && j < max) out[j++] = '.';
    for (; j < max && cl; cl--) {
      uint8_t ch = p[off++];
      bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
      if (ok || any) {
        out[j++] = (ch >= 'A' && ch <= 'Z') ? char(ch + 32) : char(ch);
      } else {
        valid = false;
        out[j++] = (ch >= 0x20 && ch < 0x7f) ? '_' : '?';
      }
    }
  }
  out[j] = 0;
  return j;
}

// nDPI's first scan for the query type: the two bytes after the first zero.
// Moves x past them when found.
uint16_t scan_qtype(Bytes p, size_t& x) {
  for (; x + 2 < p.size(); x++) {
    if (p[x] == 0) {
      uint16_t t = load_be16(p.data() + x + 1);
      x += 3;
      return t;
    }
  }
  return 0;
}

struct Header {
  uint16_t flags, qd, an, ns, ar;
};

// A response nDPI reads record by record: one to 16 questions and one to
// 16 records in some section.
bool good_reply(const Header& h) {
  auto some = [](uint16_t n) { return n > 0 && n <= kMaxQuestions; };
  return some(h.qd) && (some(h.an) || some(h.ns) || some(h.ar));
}

// nDPI's record types it calls obsolete (ndpi_check_dns_type: MD, MF,
// MAILA, MB, MG, MR, MINFO, MAILB, NULL, WKS, A6, NSAP-PTR, KEY, SIG, GPOS,
// X25, ISDN, RT, NSAP, …, UINFO/UID/GID/UNSPEC and the like).
bool obsolete_type(uint16_t t) {
  switch (t) {
    case 3: case 4: case 254: case 7: case 8: case 9: case 14: case 253: case 11: case 10: case 38:
    case 30: case 25: case 24: case 13: case 17: case 19: case 20: case 21: case 22: case 23: case 26:
    case 31: case 32: case 34: case 42: case 40: case 27: case 100: case 101: case 102: case 103: case 99:
    case 56: case 57: case 58: case 104: case 105: case 106: case 107: case 259:
      return true;
    default:
      return false;
  }
}

// What nDPI's walk over the answers notes on the way (dns.c).
struct AnswerNotes {
  bool zero_ttl = false;  // an answer with TTL 0 (risk Minor Issues)
  bool obsolete = false;  // an obsolete record type before the answers it takes are complete (Susp DNS Traffic)
};

// nDPI's walk over a good response from x, as it moves through it, for the
// EDNS(0) payload size of an OPT record among the additional ones (0 when
// none). `addrs` counts the flow's A/AAAA answers taken (nDPI stops taking
// them at 4, and takes a PTR answer's name only before that).
uint16_t walk_reply(Bytes p, size_t x, const Header& h, uint8_t& addrs, uint16_t edns0, AnswerNotes& notes) {
  const size_t n = p.size();
  auto get16 = [&](size_t at) { return load_be16(p.data() + at); };
  for (uint16_t q = 0; q < h.qd; q++) {
    if (x + 6 >= n) break;
    size_t span = name_span(p, x);
    if (!span) break;
    x += span;
    if (x + 8 >= n) break;
    x += 4;  // type, class
  }
  bool found = false;
  for (uint16_t a = 0; a < h.an; a++) {
    if (x + 6 >= n) break;
    size_t span = name_span(p, x);
    if (!span) break;
    x += span;
    if (x + 8 >= n) break;
    uint16_t type = get16(x);
    x += 2;
    // every answer's TTL, read past its class; the type until the answers
    // it takes are complete
    if (load_be32(p.data() + x + 2) == 0) notes.zero_ttl = true;
    if (!found && obsolete_type(type)) notes.obsolete = true;
    if (x + 12 <= n) {
      x += 6;
      uint16_t len = get16(x);
      x += 2;
      if (x + len <= n) {
        if (type == 12) {  // PTR: its name is read (x moves past it too)
          if (!found) {
            char tmp[64];
            bool v;
            grab_name(p, x, true, tmp, sizeof(tmp), v);
            found = true;
          }
        } else if ((type == 1 && len == 4) || (type == 28 && len == 16)) {
          if (!found && ++addrs == 4) found = true;
        }
        x += len;
      }
    }
    if (found && h.ar == 0) break;
  }
  if (h.ar == 0) return edns0;
  for (uint16_t a = 0; a < h.ns; a++) {
    if (x + 6 >= n) break;
    size_t span = name_span(p, x);
    if (!span) break;
    x += span;
    if (x + 8 >= n) break;
    x += 2;
    if (x + 12 <= n) {
      x += 6;
      uint16_t len = get16(x);
      x += 2;
      if (x + len <= n) x += len;
    }
  }
  for (uint16_t a = 0; a < h.ar; a++) {
    if (x + 6 > n) break;
    size_t span = name_span(p, x);
    if (!span) break;
    x += span;
    if (x + 10 > n) break;
    uint16_t type = get16(x);
    x += 2;
    if (type == 41) edns0 = get16(x);  // OPT: its class is the payload size (RFC 6891 §6.1.2)
    x += 6;
    // nDPI goes on from the record's length field as if a name were there.
    span = name_span(p, x);
    if (!span) break;
    x += span;
  }
  return edns0;
}

uint16_t pad16(const DnsMeta& d, size_t at) {
  uint16_t v;
  std::memcpy(&v, d.pad + at, 2);
  return v;
}

// What one packet says, read as nDPI's ndpi_search_dns does. master/app:
// the name it gives the flow (master 0: app alone).
struct Reading {
  bool query = false;
  bool named_by_port = false;  // a good response with additional records: its source port names it first
  uint16_t master = 0, app = 0;
  uint16_t qtype = 0, edns0 = 0;  // the flow's query type and EDNS(0) size after this packet
  uint8_t addrs = 0;              // the flow's A/AAAA answers taken after this packet
  uint8_t records = 0;            // a response's records, all sections (nDPI's 8-bit count)
  bool named = false;             // the first question had a name
};

// Reads the message (past the ports, the group check and the length) and
// raises its risks. `matched`: the flow is already named (the reading after
// the query; DnsMeta holds the flow's state). False when the query's header
// does not hold together.
bool read_message(DpiCtx& c, Bytes p, size_t base, bool matched, Reading& r) {
  const uint16_t sport = c.p.sport, dport = c.p.dport;
  const bool mdns = sport == kMdnsPort || dport == kMdnsPort;
  Header h{load_be16(p.data() + base + 2), load_be16(p.data() + base + 4), load_be16(p.data() + base + 6),
           load_be16(p.data() + base + 8), load_be16(p.data() + base + 10)};
  const DnsMeta* d = matched && c.info ? &c.info->dns : nullptr;
  size_t x = base + 12;
  r.query = !(h.flags & 0x8000);
  r.records = uint8_t(h.an + h.ns + h.ar);
  r.qtype = d ? d->qtype : 0;
  r.edns0 = d ? pad16(*d, kPadEdns0) : 0;
  r.addrs = d ? d->pad[kPadAddrs] : 0;
  if (r.query) {
    // nDPI's query forms: dynamic update bits, a standard or an inverse
    // query, or no answer and no authority record.
    bool ok = h.qd <= kMaxQuestions && ((h.flags & 0x2800) == 0x2800 || (h.flags & 0xfcf0) == 0 ||
                                        (h.flags & 0xfcff) == 0x0800 || (h.an == 0 && h.ns == 0));
    if (!ok) {
      if (matched) c.risk(Risk::MalformedPacket);
      return false;
    }
    r.qtype = scan_qtype(p, x);
  } else {
    if (r.qtype == 0) r.qtype = scan_qtype(p, x);  // the query was missed: x moves on
    uint8_t rcode = h.flags & 0x0f;
    if (rcode) c.risk(Risk::ErrorCode);
    // nDPI: a machine-generated name that resolved is a risky domain.
    else if (c.info && (c.info->risks & stored_bit(Risk::SuspDgaDomain))) c.risk(Risk::RiskyDomain);
    if (good_reply(h)) {
      AnswerNotes notes;
      r.edns0 = walk_reply(p, x, h, r.addrs, r.edns0, notes);
      r.named_by_port = h.ar > 0;
      if (notes.zero_ttl) c.risk(Risk::MinorIssues);
      if (notes.obsolete) c.risk(Risk::DnsSuspTraffic);
    }
  }
  // Every question's extent: a question past the packet's end, of type 0
  // or with a name over 253 bytes is malformed (nDPI stops at the first).
  size_t idx = base + 12;
  for (uint16_t q = 0; q < h.qd && idx < p.size(); q++) {
    size_t i = idx, tot = 0;
    while (i < p.size()) {
      uint8_t l = p[i];
      if (l == 0) {
        tot++;
        break;
      }
      bool ptr = (l & 0xc0) == 0xc0;
      if (ptr) l = 0;
      i += size_t(l) + 1, tot += size_t(l) + 1;
      if (ptr) break;
    }
    if (i + 4 > p.size() || (p[i + 1] == 0 && p[i + 2] == 0) || tot > 253) {
      c.risk(Risk::MalformedPacket);
      break;
    }
    idx = i + 5;
  }
  // The first question's name (or, with none, whatever starts there).
  char raw[256];
  bool valid;
  size_t off = base + 12;
  size_t len = grab_name(p, off, mdns, raw, sizeof(raw), valid);
  if (!valid) c.risk(Risk::InvalidCharacters);
  // nDPI: a first label over 48 characters may carry data out (DNS
  // tunnelling), except in reverse lookups, over mDNS and under the
  // domains it knows to use long labels.
  if (!mdns && !std::strstr(raw, ".in-addr.")) {
    if (const char* dot = std::strchr(raw, '.'); dot && dot - raw > 48) {
      std::string_view n(raw, len);
      bool known = false;
      for (std::string_view e : {"multi.surbl.org", "spamhaus.org", "rackcdn.com", "akamaiedge.net", "mx-verification.google.com", "amazonaws.com"})
        known = known || n.ends_with(e);
      if (!known) c.risk(Risk::DnsSuspTraffic);
    }
  }
  // nDPI keeps the name's last 79 characters, up to a NUL (mDNS keeps any byte).
  const char* host = raw;
  size_t hlen = std::strlen(raw);
  if (hlen > 79) host += hlen - 79, hlen = 79;
  r.named = len > 0;
  if (len > 0) {
    uint16_t app = app_by_host(host, hlen);
    if (risky_domain(host, hlen)) c.risk(Risk::RiskyDomain);
    if (punycode(host, hlen)) c.risk(Risk::PunycodeIdn);
    // nDPI judges names that no application claims, on flows not yet named master.app.
    if (!app && !(matched && c.flow.l7_master) && dga_suspicious(host, hlen)) c.risk(Risk::SuspDgaDomain);
    if (app) r.master = id(ProtoId::DNS), r.app = app;
    else {
      uint16_t by_port = proto_of_port(sport);
      r.master = 0, r.app = by_port ? by_port : proto_of_port(dport);
    }
    if (hlen) c.set_host(host, hlen);
  } else {
    // No name: nDPI's default (mDNS only towards LLMNR's group, as its code has it).
    r.master = 0;
    r.app = dport == kLlmnrPort ? id(ProtoId::LLMNR) : (dport == kMdnsPort && llmnr_dst(c.p.dst)) ? id(ProtoId::MDNS) : id(ProtoId::DNS);
  }
  return true;
}

// nDPI's checks before it reads a message: the packet's ports, mDNS and
// LLMNR queries sent elsewhere than their group (RFC 6762 §5, RFC 4795 §2:
// a message with flags and a question to a unicast address is not taken),
// and a message longer than the header (past TCP's 2-byte length, RFC 1035
// §4.2.2).
enum class Gate { Exclude, Wait, Read };
Gate gate(const DpiCtx& c, size_t& base) {
  const Bytes p = c.payload;
  const uint16_t sport = c.p.sport, dport = c.p.dport;
  const bool udp = c.p.l4_proto == kProtoUdp;
  base = udp ? 0 : 2;
  if (udp && ((dport == kMdnsPort && !mdns_dst(c.p.dst)) || (dport == kLlmnrPort && !llmnr_dst(c.p.dst))) && p.size() > 5 &&
      load_be16(p.data() + 2) != 0 && load_be16(p.data() + 4) != 0)
    return Gate::Exclude;
  const bool mdns = sport == kMdnsPort || dport == kMdnsPort;
  if (!(sport == kDnsPort || dport == kDnsPort || mdns || dport == kLlmnrPort) || p.size() <= 12 + base) return Gate::Wait;
  return Gate::Read;
}

void keep(DnsMeta& d, const Reading& r) {
  d.qtype = r.qtype;
  std::memcpy(d.pad + kPadEdns0, &r.edns0, 2);
  d.pad[kPadAddrs] = r.addrs;
}

// The response's rcode and answer count (the flow's metadata).
void note_response(DnsMeta& d, Bytes msg) {
  d.rcode = msg[3] & 0x0f;
  d.answers = load_be16(msg.data() + 6);
  d.flags |= 1;
}

// The risks nDPI checks on a response, for a flow named DNS (master or
// app; mDNS and LLMNR alone are not): over UDP, a packet over 512 bytes and
// over the payload size EDNS(0) announced is large; over UDP or TCP, a
// fragment carrying the start of the message (IPv4's more-fragments bit —
// the later fragments reach no dissector — or behind an IPv6 fragment
// header) is fragmented.
void response_risks(DpiCtx& c, uint16_t master, uint16_t app, uint16_t edns0) {
  const uint16_t dns = id(ProtoId::DNS);
  if (master != dns && app != dns) return;
  if (c.p.l4_proto == kProtoUdp && c.payload.size() > kLargePacket && c.payload.size() > edns0) c.risk(Risk::DnsLargePacket);
  if (c.p.is_fragment && c.p.first_fragment) c.risk(Risk::DnsFragmented);
}

// After the query: nDPI reads the flow's next five packets (either way, with
// or without payload) as it read the first, until a response with records.
// A query renames the flow by its name; a response's name of an application
// names it DNS.app.
Verdict read_on(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  DnsMeta& d = c.info->dns;
  uint32_t at;
  std::memcpy(&at, d.pad + kPadMatchedAt, 4);
  const uint32_t seen = c.flow.pkts[0] + c.flow.pkts[1] - at;
  if (seen > kExtraPackets) return Verdict::No;
  const Verdict next = seen >= kExtraPackets ? Verdict::No : Verdict::NeedMore;
  size_t base;
  if (gate(c, base) != Gate::Read) return next;
  Reading r;
  if (!read_message(c, c.payload, base, true, r)) return next;
  keep(d, r);
  if (r.query) {
    c.clf->refine(c.flow, r.master, r.app);
    return next;
  }
  note_response(d, c.payload.subspan(base));
  const uint16_t dns = id(ProtoId::DNS);
  if (r.named_by_port && c.flow.l7_master != dns && c.flow.l7_app != dns)
    if (uint16_t by_port = proto_of_port(c.p.sport)) c.clf->refine(c.flow, 0, by_port);
  if (r.named && r.master) c.clf->refine(c.flow, r.master, r.app);
  response_risks(c, c.flow.l7_master, c.flow.l7_app, r.edns0);
  return r.records ? Verdict::No : next;
}

Verdict classify_dns(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  // Neither port is DNS's, mDNS's or LLMNR's: no packet of the flow can
  // match (nDPI waits out its four packets in vain).
  if (!proto_of_port(c.p.sport) && !proto_of_port(c.p.dport)) return Verdict::No;
  size_t base;
  switch (gate(c, base)) {
    case Gate::Exclude: return Verdict::No;
    case Gate::Wait: return Verdict::NeedMore;
    case Gate::Read: break;
  }
  Reading r;
  if (!read_message(c, c.payload, base, false, r)) return Verdict::No;
  m.master = r.master, m.app = r.app;
  // A response with additional records and no query seen: nDPI names the
  // flow by its source port first; an application's name still wins.
  if (!r.query && r.named_by_port && !r.master) {
    if (uint16_t by_port = proto_of_port(c.p.sport)) m.master = 0, m.app = by_port;
    m.name_after = true;  // that naming comes before the name is read
  }
  if (!r.query) response_risks(c, m.master, m.app, r.edns0);
  if (c.info) {
    // The mask under DnsMeta is dead from this match on (classify.cpp).
    DnsMeta& d = c.info->dns;
    std::memset(&d, 0, sizeof(d));
    c.info->kind = uint8_t(MetaKind::Dns);
    keep(d, r);
    if (!r.query) {
      note_response(d, c.payload.subspan(base));
    } else if (!(r.named && !r.master && r.app == id(ProtoId::LLMNR))) {
      // nDPI never reads on after an LLMNR query named LLMNR.
      const uint32_t at = c.flow.pkts[0] + c.flow.pkts[1];
      std::memcpy(d.pad + kPadMatchedAt, &at, 4);
      m.more = true;
    }
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dns, {"DNS", id(ProtoId::DNS), kL4Both, 4, classify_dns});

}  // namespace fg
