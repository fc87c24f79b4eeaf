// ④ Roughtime (Google's protocol description, draft-ietf-ntp-roughtime):
// a request or reply is a tagged message — the little-endian tag count N,
// N-1 value offsets, N four-byte ASCII tags (NONC, PAD\0, SREP, SIG\0 …),
// then the values — over UDP (port 2002) or TCP. As nDPI: TCP or UDP, any
// port, the flow's first payload packet holds a message read from its first
// byte (the "ROUGHTIM" framing of later drafts is not accepted): 1 to 22
// tags (as many as nDPI's list of known tags), room for the offsets and
// tags, for N > 1 the last offset within the packet (nDPI counts it from
// the end of the offsets, not of the tags, in 32-bit arithmetic), and every
// tag one nDPI knows: the spec's, PAD/SIG/VER ended by 0xff instead of NUL
// as some servers send them, and "zzzz". One packet decides.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr char kTags[][5] = {
    "PAD", "SIG", "VER", "DUT1", "NONC", "DELE", "PATH", "DTAI", "RADI", "PUBK", "LEAP",
    "MIDP", "SREP", "MINT", "ROOT", "CERT", "MAXT", "INDX", "PAD\xff", "SIG\xff", "VER\xff", "zzzz",
};
constexpr uint32_t kMaxTags = sizeof(kTags) / sizeof(kTags[0]);

bool known_tag(const uint8_t* t) {
  for (const auto& k : kTags)  // "PAD" etc. compare with their NUL
    if (std::memcmp(t, k, 4) == 0) return true;
  return false;
}

Verdict classify_roughtime(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 4) return Verdict::No;
  const uint32_t n = load_le32(b.data());
  if (n < 1 || n > kMaxTags || b.size() < 8 * size_t(n)) return Verdict::No;
  const uint32_t tags_at = 4 + (n - 1) * 4;
  if (n > 1) {
    const uint32_t last_offset = load_le32(b.data() + 4 + (n - 2) * 4);
    if (b.size() < uint32_t(tags_at + last_offset)) return Verdict::No;  // wraps as nDPI's sum does
  }
  for (uint32_t i = 0; i < n; i++)
    if (!known_tag(b.data() + tags_at + i * 4)) return Verdict::No;
  m.app = id(ProtoId::Roughtime);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(roughtime, {"Roughtime", id(ProtoId::Roughtime), kL4Both, 1, classify_roughtime});

}  // namespace fg
