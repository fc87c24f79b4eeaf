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

// Classification: the name service (UDP 137) by a header that holds together
// and a first name in the 32-character first-level encoding; the datagram
// service (UDP 138) by message type and its own length field; over TCP only
// what nDPI takes: a session request (RFC 1002 §4.3.2: type 0x81, flags 0,
// length 68, 72 bytes in all) sent to port 139. SMBv1 in a datagram is
// NetBIOS.SMBv1; SMB over TCP is smb.cpp's (port 445, as nDPI).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

// A length byte of 32 and 32 characters 'A'..'P' at off.
bool encoded_name_at(Bytes b, size_t off) {
  if (off + 33 > b.size() || b[off] != 0x20) return false;
  for (size_t i = 1; i <= 32; i++)
    if (b[off + i] < 'A' || b[off + i] > 'P') return false;
  return true;
}

Verdict name_service(Bytes b) {
  if (b.size() < 12 + 33) return Verdict::No;
  uint16_t flags = load_be16(b.data() + 2);
  uint8_t opcode = (flags >> 11) & 0x0f;
  uint16_t qd = load_be16(b.data() + 4), an = load_be16(b.data() + 6);
  if (opcode != 0 && (opcode < 5 || opcode > 8)) return Verdict::No;
  if (qd + an != 1 || load_be16(b.data() + 8) > 1 || load_be16(b.data() + 10) > 1) return Verdict::No;
  return encoded_name_at(b, 12) ? Verdict::Match : Verdict::No;
}

Verdict datagram_service(Bytes b, const Packet& p, Match& m) {
  if (b.size() < 14) return Verdict::No;
  uint8_t type = b[0];
  // nDPI's check on a datagram to 138: its length field, a message type and
  // the source address it carries equal to the sender's; anything past the
  // header and the two names (82 bytes) is taken for an SMB payload.
  const size_t dlen = load_be16(b.data() + 10);
  if (p.dport == 138 && dlen + 14 == b.size() && type >= 0x10 && type <= 0x16 && p.src.is_v4() &&
      load_be32(b.data() + 4) == p.src.v4()) {
    if (dlen > 82) m.app = id(ProtoId::SMBv1), m.master = id(ProtoId::NetBIOS);
    return Verdict::Match;
  }
  if (type < 0x10 || type > 0x16) return Verdict::No;
  if (type <= 0x12) {  // direct unique / group, broadcast: length, then two names
    if (size_t(load_be16(b.data() + 10)) + 14 != b.size()) return Verdict::No;
    if (!encoded_name_at(b, 14)) return Verdict::No;
    // Browser announcements: an SMB transaction after the two names.
    if (b.size() >= 86 && std::memcmp(b.data() + 82, "\xffSMB", 4) == 0) m.app = id(ProtoId::SMBv1), m.master = id(ProtoId::NetBIOS);
    return Verdict::Match;
  }
  return Verdict::Match;  // error and query datagrams: header only
}

bool session_request(Bytes b) { return b.size() == 72 && b[0] == 0x81 && b[1] == 0 && load_be16(b.data() + 2) == 68; }

Verdict classify_netbios(DpiCtx& c, Match& m) {
  Verdict v;
  if (c.p.l4_proto == kProtoTcp) {
    if (c.p.dport != 139 || !session_request(c.payload)) return Verdict::No;
    v = Verdict::Match;
  } else if (c.srv_port == 137 || c.cli_port == 137) {
    v = name_service(c.payload);
  } else if (c.srv_port == 138 || c.cli_port == 138) {
    v = datagram_service(c.payload, c.p, m);
  } else {
    return Verdict::No;
  }
  if (v == Verdict::Match && !m.app) m.app = id(ProtoId::NetBIOS);
  return v;
}

}  // namespace

FG_DISSECTOR(netbios, {"NetBIOS", id(ProtoId::NetBIOS), kL4Both, 4, classify_netbios});

}  // namespace fg
