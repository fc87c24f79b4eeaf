// ④ SNMP, as nDPI's snmp_proto.c: a UDP packet from or to port 161 or 162
// (else excluded), more than 16 bytes, a SEQUENCE (0x30) whose length
// (more than 2) covers exactly the rest of the packet, and the byte where
// the version's value sits (two bytes into the sequence, the INTEGER's tag
// and length not read) 0 (v1), 1 (v2c) or 3 (v3). The flow's first payload
// packet decides.
// For v1 / v2c nDPI then looks for a GetResponse (in this packet or up to 8
// more) and raises the error-code risk when its error-status is not zero;
// its offsets are 8-bit, so they wrap on packets over 255 bytes, as here.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint8_t kMaxExtra = 8;

struct Reading {
  bool snmp = false;       // the header holds
  bool v1_or_v2c = false;  // nDPI reads on for a GetResponse
  bool status_found = false;
  uint8_t status = 0;
};

Reading read_snmp(Bytes b) {
  Reading r;
  const size_t n = b.size();
  if (n <= 16 || b[0] != 0x30) return r;
  size_t ll = 0;
  const int64_t len = ber_length(b, 1, ll);
  if (len <= 2 || size_t(1 + ll + len) != n) return r;
  size_t off = 1 + ll + 2;
  if (off >= n || (b[off] != 0 && b[off] != 1 && b[off] != 3)) return r;
  r.snmp = true;
  if ((b[off] != 0 && b[off] != 1) || off + 2 >= n) return r;
  r.v1_or_v2c = true;
  const uint8_t prim_off = uint8_t(off + 2 + 1 + b[off + 2]);
  if (prim_off >= n || (b[prim_off] & 0x0f) != 2 || size_t(prim_off) + 1 >= n) return r;
  off = prim_off + 1;
  ber_length(b, off, ll);
  off += ll + 1;
  if (off >= n) return r;
  const int64_t id_len = ber_length(b, off, ll);
  const uint8_t status_off = uint8_t(int64_t(off) + ll + id_len + 2);
  if (status_off >= n) return r;
  r.status_found = true;
  r.status = b[status_off];
  return r;
}

Verdict classify_snmp(DpiCtx& c, Match& m) {
  const Reading r = read_snmp(c.payload);
  if (c.extra) {
    if (!c.info || ++c.info->state[0] > kMaxExtra) return Verdict::No;
    if (!r.snmp || !r.v1_or_v2c || !r.status_found) return Verdict::NeedMore;
    if (r.status) c.risk(Risk::ErrorCode);
    return Verdict::No;
  }
  const Packet& p = c.p;
  if (p.sport != 161 && p.dport != 161 && p.sport != 162 && p.dport != 162) return Verdict::No;
  if (!r.snmp) return Verdict::No;
  m.app = id(ProtoId::SNMP);
  if (r.status_found) {
    if (r.status) c.risk(Risk::ErrorCode);
  } else if (r.v1_or_v2c && c.info) {
    c.info->state[0] = 0;
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(snmp, {"SNMP", id(ProtoId::SNMP), kL4Udp, 1, classify_snmp});

}  // namespace fg
