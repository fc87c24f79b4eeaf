// ④ Memcached text protocol (memcached doc/protocol.txt), TCP or UDP, as
// nDPI's src/lib/protocols/memcached.c counts it: a packet opening with a
// command word ("set ", "get ", "gats ", "stats" …) or a reply
// ("STORED\r\n", "END\r\n", "STAT " …), case as written; two such
// packets, either direction, within the first 6. UDP datagrams open with
// protocol.txt's 8-byte frame header: datagram count non-zero, reserved
// zero. A payload shorter than "END\r\n" rules it out. Like nDPI, no
// binary protocol (magic 0x80/0x81), no VALUE/VERSION/OK lines.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// kScratchMemcached (1 byte): packets that opened with a memcached word.
constexpr size_t kMinText = 5;  // strlen("END\r\n"): nDPI's floor
constexpr size_t kUdpFrame = 8;

constexpr std::string_view kWords[] = {
    // client commands
    "set ", "add ", "replace ", "append ", "prepend ", "cas ", "get ", "gets ", "delete ", "incr ", "decr ", "touch ",
    "gat ", "gats ", "stats",
    // server replies
    "ERROR\r\n", "CLIENT_ERROR ", "SERVER_ERROR ", "STORED\r\n", "NOT_STORED\r\n", "EXISTS\r\n", "NOT_FOUND\r\n", "END\r\n",
    "DELETED\r\n", "TOUCHED\r\n", "STAT "};

Verdict classify_memcached(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* seen = c.scratch(kScratchMemcached);
  if (!seen) return Verdict::No;
  if (c.p.l4_proto == kProtoUdp) {
    if (b.size() < kUdpFrame + kMinText) return Verdict::No;
    const bool no_count = b[4] == 0 && b[5] == 0, reserved = b[6] != 0 || b[7] != 0;
    if (no_count || reserved) return Verdict::No;
    b = b.subspan(kUdpFrame);
  } else if (b.size() < kMinText) {
    return Verdict::No;
  }
  for (std::string_view w : kWords) {
    if (char(b[0]) != w[0] || !has_at(b, 0, w)) continue;
    if (++*seen >= 2) {
      m.app = id(ProtoId::Memcached);
      return Verdict::Match;
    }
    break;
  }
  return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(memcached, {"Memcached", id(ProtoId::Memcached), kL4Both, 6, classify_memcached});

}  // namespace fg
