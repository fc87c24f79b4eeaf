// ④ Raft (the canonical/raft C library's TCP transport, uv_encoding: each
// message opens with a little-endian 64-bit type — 1 AppendEntries,
// 2 its result, 3 RequestVote, 4 its result, 5 InstallSnapshot,
// 6 TimeoutNow — and a 64-bit length of what follows), TCP.
// As nDPI: a packet of 16 bytes or more with any other type rules the flow
// out; a known type with the length matching the rest of the packet is
// Raft; a known type whose length does not match waits, and from the 3rd
// payload packet on is Raft all the same. No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kHeader = 16;

Verdict classify_raft(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kHeader) return Verdict::No;
  const uint64_t type = load_le64(b.data()), len = load_le64(b.data() + 8);
  if (type < 1 || type > 6) return Verdict::No;
  if (len != b.size() - kHeader && c.flow.dpi_packets < 3) return Verdict::NeedMore;
  m.app = id(ProtoId::Raft);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(raft, {"Raft", id(ProtoId::Raft), kL4Tcp, 3, classify_raft});

}  // namespace fg
