// ④ WhatsApp chat over TCP, as nDPI's whatsapp.c, within the flow's first
// three payload packets (either direction): the very old "WA\1\5" header
// (more than 4 bytes, first packet), or the Noise prologue "ED\0\1" followed
// by 00 00 04|02 08, which may come split over packets: each packet must go
// on with the next bytes of the prologue, and the flow is WhatsApp once all
// eight have come.
// nDPI counts the bytes matched so far; no scratch slot is free for that
// count, so a later packet is taken as going on from any offset 1..7 (a
// packet that is no continuation at any offset excludes, as in nDPI).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kSeq = 8;
const uint8_t kNew[kSeq] = {0x45, 0x44, 0x00, 0x01, 0x00, 0x00, 0x04, 0x08};
const uint8_t kOld[kSeq] = {0x45, 0x44, 0x00, 0x01, 0x00, 0x00, 0x02, 0x08};

// The payload going on with `seq` from `done` bytes matched: Match when the
// sequence is then complete, NeedMore while it is not, No on a mismatch.
Verdict go_on(Bytes b, const uint8_t* seq, size_t done) {
  const size_t n = b.size() < kSeq - done ? b.size() : kSeq - done;
  if (std::memcmp(b.data(), seq + done, n) != 0) return Verdict::No;
  return done + n == kSeq ? Verdict::Match : Verdict::NeedMore;
}

Verdict classify_whatsapp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets > 3) return Verdict::No;
  Verdict v = Verdict::No;
  if (c.flow.dpi_packets == 1) {
    if (b.size() > 4 && std::memcmp(b.data(), "WA\x01\x05", 4) == 0) v = Verdict::Match;
    else if ((v = go_on(b, kNew, 0)) == Verdict::No) v = go_on(b, kOld, 0);
  } else {
    for (size_t done = 1; done < kSeq && v != Verdict::Match; done++) {
      for (const uint8_t* seq : {kNew, kOld}) {
        const Verdict w = go_on(b, seq, done);
        if (w == Verdict::Match) { v = w; break; }
        if (w == Verdict::NeedMore) v = w;
      }
    }
  }
  if (v == Verdict::Match) m.app = id(ProtoId::WhatsApp);
  return v;
}

}  // namespace

FG_DISSECTOR(whatsapp, {"WhatsApp", id(ProtoId::WhatsApp), kL4Tcp, 3, classify_whatsapp});

}  // namespace fg
