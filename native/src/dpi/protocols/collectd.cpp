// ④ collectd binary network protocol (collectd wiki "Binary protocol"),
// UDP 25826: a datagram is a run of parts, each a 16-bit type, a 16-bit
// length (the 4-byte part header included) and the data: 0x0000 host,
// 0x0001 time, 0x0008 time (high resolution), 0x0002 plugin, 0x0003
// plugin instance, 0x0004 type, 0x0005 type instance, 0x0006 values,
// 0x0007 / 0x0009 interval, 0x0100 message, 0x0101 severity, 0x0200
// signature (HMAC-SHA-256), 0x0210 encryption (AES-256: user name length,
// user name, IV, encrypted rest).
// As nDPI, one datagram decides: up to 5 parts are read while their type is
// known and their length non-zero and inside the datagram; 3 read parts
// make it collectd. An encryption part decides at once: it must span the
// whole datagram and its user name fit before the 16-byte IV, else the
// flow is not collectd. The flow's name is the host part's text, read (as
// nDPI does) from offset 4 whatever the host part's place, for the host
// part's length less 4, normalized as nDPI keeps names (payload.h: up to a
// NUL, lower case, '?' for bytes not printable). No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kHost = 0x0000, kEncrypted = 0x0210;
constexpr uint16_t kTypes[] = {0x0000, 0x0001, 0x0008, 0x0002, 0x0003, 0x0004, 0x0005,
                               0x0006, 0x0007, 0x0009, 0x0100, 0x0101, 0x0200, 0x0210};
constexpr int kMinParts = 3, kMaxParts = 5;
constexpr size_t kEncMin = 6, kIv = 16;

bool known(uint16_t t) {
  for (uint16_t k : kTypes)
    if (k == t) return true;
  return false;
}

Verdict classify_collectd(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t off = 0, host_len = 0;
  int parts = 0;
  for (; parts < kMaxParts; parts++) {
    if (off + 4 > b.size()) break;
    const size_t len = load_be16(b.data() + off + 2);
    if (off + len > b.size() || len == 0) break;
    const uint16_t type = load_be16(b.data() + off);
    if (!known(type)) break;
    if (type == kHost) {
      if (len > 4) host_len = len - 4;
    } else if (type == kEncrypted) {
      if (len != b.size() || len < kEncMin) return Verdict::No;
      const size_t user = load_be16(b.data() + 4);
      if (b.size() < kEncMin + kIv || user > b.size() - kEncMin - kIv) return Verdict::No;
      m.app = id(ProtoId::collectd);
      return Verdict::Match;
    }
    off += len;
  }
  if (parts < kMinParts) return Verdict::No;
  if (host_len) {
    char name[80];  // nDPI's normalized copy: cut at the NUL that ends the part's string
    c.set_host(name, ndpi_host_name(b.data() + 4, host_len, name));
  }
  m.app = id(ProtoId::collectd);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(collectd, {"collectd", id(ProtoId::collectd), kL4Udp, 1, classify_collectd});

}  // namespace fg
