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
