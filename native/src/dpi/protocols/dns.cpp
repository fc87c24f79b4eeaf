// ④ DNS, mDNS and LLMNR responses (RFC 1035, 6762, 4795): every A/AAAA answer
// names its address with the question's name (what the client asked for).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/names.h"

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

}  // namespace fg

// Classification: DNS on port 53 (LLMNR on 5355, mDNS on 5353), a header
// that holds together, and the first question's name, which names the app
// (DNS.Google) as nDPI does.
namespace fg {
namespace {

// The response's rcode and answer count (metadata and nDPI's error risk).
void read_response(DpiCtx& c, Bytes b) {
  if (!c.info || b.size() < 12 || !(load_be16(b.data() + 2) & 0x8000)) return;
  DnsMeta& d = c.info->dns;
  d.rcode = b[3] & 0x0f;
  d.answers = load_be16(b.data() + 6);
  d.flags |= 1;
  if (d.rcode) c.risk(Risk::ErrorCode);
  // nDPI: a machine-generated name that resolved is a risky domain.
  else if (c.info->risks & stored_bit(Risk::SuspDgaDomain)) c.risk(Risk::RiskyDomain);
}

Verdict classify_dns(DpiCtx& c, Match& m) {
  if (c.extra) {
    Bytes b = c.payload;
    if (c.p.l4_proto == kProtoTcp) b = b.size() >= 2 ? b.subspan(2) : Bytes();
    if (c.from_client || b.size() < 12) return Verdict::NeedMore;
    read_response(c, b);
    return Verdict::No;
  }
  uint16_t port = c.srv_port;
  uint16_t proto;
  if (port == 53 || c.cli_port == 53) proto = id(ProtoId::DNS);
  else if (port == 5355) proto = id(ProtoId::LLMNR);
  else if (port == 5353 || c.cli_port == 5353) proto = id(ProtoId::MDNS);
  else return Verdict::No;
  Bytes b = c.payload;
  if (c.p.l4_proto == kProtoTcp) {
    if (b.size() < 2) return Verdict::NeedMore;
    b = b.subspan(2);
  }
  if (b.size() < 12) return Verdict::No;
  uint16_t flags = load_be16(b.data() + 2);
  uint8_t opcode = (flags >> 11) & 0x0f;
  uint16_t qd = load_be16(b.data() + 4), an = load_be16(b.data() + 6);
  if (opcode > 5 || opcode == 3) return Verdict::No;
  bool response = flags & 0x8000;
  if (!response && (qd == 0 || qd > 16 || an > 16)) return Verdict::No;
  if (proto != id(ProtoId::MDNS) && qd == 0) return Verdict::No;
  // The first question's name, plain labels only (a question never points back).
  char name[256] = {};
  size_t len = 0, off = 12;
  for (int labels = 0; qd && off < b.size() && labels < 64; labels++) {
    uint8_t l = b[off];
    if (l == 0) break;
    if (l > 63 || off + 1 + l > b.size() || len + l + 1 >= sizeof(name)) return Verdict::No;
    if (len) name[len++] = '.';
    std::memcpy(name + len, b.data() + off + 1, l);
    len += l;
    off += 1 + l;
  }
  c.match_named(m, proto, name, len);
  if (c.info) {
    // The mask under DnsMeta is dead from this match on (classify.cpp).
    DnsMeta& d = c.info->dns;
    std::memset(&d, 0, sizeof(d));
    c.info->kind = uint8_t(MetaKind::Dns);
    if (qd && off + 4 <= b.size()) d.qtype = load_be16(b.data() + off + 1);
    if (response) read_response(c, b);
    else m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dns, {"DNS", id(ProtoId::DNS), kL4Both, 4, classify_dns});

}  // namespace fg
