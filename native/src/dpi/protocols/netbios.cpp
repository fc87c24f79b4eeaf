// ④ NetBIOS name service (RFC 1002): registrations and positive query
// responses carry a name and the address (NB_ADDRESS) it belongs to.
#include "dpi/names.h"

namespace fg {

void names_from_netbios(Bytes m, uint16_t vlan, const NameSink& sink) {
  if (m.size() < 12 + 34 + 10) return;
  uint16_t flags = load_be16(m.data() + 2);
  uint8_t opcode = (flags >> 11) & 0x0f;
  bool response = flags & 0x8000;
  bool registration = opcode == 5 || opcode == 8 || opcode == 9;
  if (!(registration || (opcode == 0 && response && (flags & 0x000f) == 0))) return;
  // Name: length 32, then 32 bytes of first-level encoding (two letters 'A'+nibble per byte).
  size_t off = 12;
  if (m[off] != 32) return;
  char name[16];
  for (int i = 0; i < 16; i++) {
    uint8_t hi = m[off + 1 + 2 * i] - 'A', lo = m[off + 2 + 2 * i] - 'A';
    if (hi > 15 || lo > 15) return;
    name[i] = char(hi << 4 | lo);
  }
  size_t nlen = 15;  // the 16th byte is the service suffix
  while (nlen && name[nlen - 1] == ' ') nlen--;
  off += 34;  // length byte + 32 + terminating zero
  // Question (registrations) or answer section, then the resource record.
  size_t rr;
  if (response) {
    rr = off;  // answer RR: name was the one above; type, class, ttl, rdlength follow
  } else {
    if (off + 4 > m.size()) return;
    rr = off + 4;  // question type/class, then the additional RR with a pointer name (2 bytes)
    if (rr + 2 > m.size() || (m[rr] & 0xc0) != 0xc0) return;
    rr += 2;
  }
  if (rr + 10 + 6 > m.size()) return;
  uint16_t type = load_be16(m.data() + rr);
  uint16_t rdlen = load_be16(m.data() + rr + 8);
  if (type != 0x0020 || rdlen < 6) return;  // NB record: flags (2) + address (4)
  IpAddr a;
  a.set_v4(m.data() + rr + 10 + 2);
  if (a.v4() == 0 || !plausible_name(name, nlen)) return;
  sink(a, vlan, name, nlen, NameSource::Netbios);
}

}  // namespace fg

// Classification as nDPI's netbios.c, every test on the packet's own
// destination port and on the flow's first payload packet only (a miss
// excludes): to UDP 137, 50 bytes or more and one of nDPI's header shapes
// (flags and the four section counts; a few also want a question or
// answer record of the right type after the first name); to UDP 138, a
// datagram whose length field counts the rest, of message type
// 0x10..0x16, carrying its IPv4 sender's address (NetBIOS.SMBv1 when more
// than the 82 bytes of header and names follow); over TCP only a session
// request (RFC 1002 §4.3.2: type 0x81, flags 0, length 68, 72 bytes in all)
// sent to port 139. SMB over TCP is smb.cpp's (port 445, as nDPI). A UDP
// match names the flow after the first NetBIOS name it decodes (at offset
// 12 when a 0x20 length byte is there, else 14), as nDPI does.
#include <cstring>

#include "dpi/dga.h"
#include "dpi/dpi.h"

namespace fg {
namespace {

// One record after the first name: a zero label, then type and class IN.
bool record_after_name(Bytes b, uint16_t type, bool exact_len) {
  const size_t nl = b[12];
  if (exact_len ? b.size() != nl + 18 : b.size() < nl + 18) return false;
  return b[13 + nl] == 0 && load_be16(b.data() + 14 + nl) == type && load_be16(b.data() + 16 + nl) == 1;
}

bool name_service(Bytes b) {
  if (b.size() < 50) return false;
  const uint16_t flags = load_be16(b.data() + 2), qd = load_be16(b.data() + 4), an = load_be16(b.data() + 6),
                 ns = load_be16(b.data() + 8), ar = load_be16(b.data() + 10);
  const bool one_q = qd == 1 && an == 0 && ns == 0, one_a = qd == 0 && an == 1 && ns == 0 && ar == 0;
  if (one_q && ar == 0 && (flags == 0 || flags == 0x0110)) return true;
  if (one_q && (flags & 0x8710) == 0x10) return true;
  if (one_q && ar == 1 && (b[2] == 0x80 || flags == 0x4000 || flags == 0x2900 || flags == 0x2910)) return true;
  if (one_a && (flags == 0x8400 || flags == 0x8500 || flags == 0xad86)) return true;
  if ((flags & 0xf800) == 0)  // a name query request, nothing after its question
    return one_q && ar == 0 && record_after_name(b, 0x0020, true);
  if ((flags & 0xf800) != 0x8000) return false;
  if (one_a) return record_after_name(b, 0x0020, false);  // positive query response
  if (qd == 0 && an == 0 && ns == 0 && ar == 0) return record_after_name(b, 0x000a, false);  // negative
  if (qd == 0 && an == 0 && ns == 1 && ar == 1) return record_after_name(b, 0x0002, false);  // redirect
  return false;
}

bool datagram_service(Bytes b, const Packet& p, Match& m) {
  if (b.size() < 14 || size_t(load_be16(b.data() + 10)) + 14 != b.size()) return false;
  if (!p.src.is_v4() || b[0] < 0x10 || b[0] > 0x16 || load_be32(b.data() + 4) != p.src.v4()) return false;
  if (b.size() - 14 > 82) m.app = id(ProtoId::SMBv1), m.master = id(ProtoId::NetBIOS);
  return true;
}

// nDPI's reading of a first-level encoded name at off: half the length
// byte in letter pairs 'A'..'P', stopping at any other letter, keeping the
// printable characters, trailing spaces trimmed (not the first character).
size_t decode_name(Bytes b, size_t off, char* out, size_t cap) {
  if (off >= b.size()) return 0;
  const size_t avail = b.size() - off - 1;
  size_t pairs = b[off] / 2;
  if (pairs < 1 || pairs > cap || 2 * pairs > avail) return 0;
  size_t n = 0;
  for (const uint8_t* in = b.data() + off + 1; pairs-- && n < cap; in += 2) {
    if (in[0] < 'A' || in[0] > 'P' || in[1] < 'A' || in[1] > 'P') break;
    const uint8_t ch = uint8_t((in[0] - 'A') << 4 | (in[1] - 'A'));
    if (ch >= 0x20 && ch <= 0x7e) out[n++] = char(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
  }
  size_t len = n;
  while (len > 1 && out[len - 1] == ' ') len--;
  return n ? len : 0;
}

void name_flow(DpiCtx& c) {
  char name[62];
  const Bytes b = c.payload;
  const size_t len = decode_name(b, b.size() > 12 && b[12] == 0x20 ? 12 : 14, name, sizeof(name));
  if (!len) return;
  c.set_host(name, len);
  if (!app_by_host(name, len) && dga_suspicious(name, len)) c.risk(Risk::SuspDgaDomain);
}

bool session_request(Bytes b) { return b.size() == 72 && b[0] == 0x81 && b[1] == 0 && load_be16(b.data() + 2) == 68; }

Verdict classify_netbios(DpiCtx& c, Match& m) {
  if (c.p.l4_proto == kProtoTcp) {
    if (c.p.dport != 139 || !session_request(c.payload)) return Verdict::No;
  } else {
    const bool hit = (c.p.dport == 137 && name_service(c.payload)) || (c.p.dport == 138 && datagram_service(c.payload, c.p, m));
    if (!hit) return Verdict::No;
    name_flow(c);
  }
  if (!m.app) m.app = id(ProtoId::NetBIOS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(netbios, {"NetBIOS", id(ProtoId::NetBIOS), kL4Both, 4, classify_netbios});

}  // namespace fg
