// ④ SSH (RFC 4253 §4.2): each side opens with an identification line,
// "SSH-protoversion-softwareversion"; the server usually speaks first.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_ssh(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t n = b.size() < 4 ? b.size() : 4;
  if (std::memcmp(b.data(), "SSH-", n) != 0) return Verdict::No;
  if (n < 4) return Verdict::NeedMore;  // a banner split after "SS"
  m.app = id(ProtoId::SSH);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ssh, {"SSH", id(ProtoId::SSH), kL4Tcp, 3, classify_ssh});

}  // namespace fg
