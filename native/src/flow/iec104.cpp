#include "flow/iec104.h"

#include <cstdio>
#include <utility>

namespace fg {
namespace {

constexpr uint32_t kPairBits = 7;
static_assert(IecFlow::kPairs == 1u << kPairBits && IecFlow::kPairs % 64 == 0);

// INFO kinds (IecFlow::info_kind)
constexpr uint8_t kInfoI = 1, kInfoS = 2, kInfoU = 3;

// The slot holding `key`, else the first free one on its probe (kPairs:
// neither, the set is full).
uint32_t probe(const IecFlow& s, uint16_t key, bool& found) {
  uint32_t i = (uint32_t(key) * 2654435761u) >> (32 - kPairBits);
  for (uint32_t k = 0; k < IecFlow::kPairs; k++, i = (i + 1) & (IecFlow::kPairs - 1)) {
    if (!((s.used[i >> 6] >> (i & 63)) & 1)) return found = false, i;
    if (s.pairs[i] == key) return found = true, i;
  }
  found = false;
  return IecFlow::kPairs;
}

void inc(uint8_t& c) {
  if (c < 255) c++;
}

// An I-APDU after the flow's first one: ntopng's type-id transition (a pair
// new to the flow is learned during the learning period, alerted after it)
// and its monitor / command transition counts.
void transition(IecFlow& s, const IecConfig& cfg, uint8_t prev, uint8_t t, uint64_t duration_s) {
  bool found;
  const uint32_t i = probe(s, uint16_t(prev << 8 | t), found);
  if (!found) {
    const bool learning = duration_s <= cfg.learning_s;
    if (!learning && !s.overflow) s.alerts |= kIecInvalidTransition;
    if (i < IecFlow::kPairs) {
      s.used[i >> 6] |= uint64_t(1) << (i & 63);
      s.pairs[i] = uint16_t(prev << 8 | t);
    } else if (learning) {
      s.overflow = 1;
    }
  }
  if (iec_monitoring(prev) && iec_command(t)) inc(s.m_to_c);
  else if (iec_command(prev) && iec_monitoring(t)) inc(s.c_to_m);
  else if (iec_command(prev) && iec_command(t)) inc(s.c_to_c);
  // ntopng's limits (its issue 6598)
  if (s.m_to_c > 20 || s.c_to_m > 20 || s.c_to_c > 5) s.alerts |= kIecInvalidCommandTransition;
}

}  // namespace

bool iec104_next(const uint8_t* p, size_t n, size_t& at, IecApdu& a) noexcept {
  if (at >= n || n - at < 2u + kIecMinLen || p[at] != kIecStart) return false;
  const uint8_t len = p[at + 1];
  if (len < kIecMinLen || len > kIecMaxLen || n - at - 2 < len) return false;
  const uint8_t* c = p + at + 2;  // the four control octets
  a = IecApdu{};
  if (!(c[0] & 1)) {
    if (len < kIecMinLen + kIecDuiLen) return false;
    a.format = IecFormat::I;
    a.ns = uint16_t((c[0] | c[1] << 8) >> 1);
    a.nr = uint16_t((c[2] | c[3] << 8) >> 1);
    const uint8_t* u = c + 4;  // ASDU: type id, VSQ, COT (cause, originator), common address
    a.type_id = u[0];
    a.cot = u[2] & 0x3f;
    a.negative = (u[2] & 0x40) != 0;
    a.common_addr = uint16_t(u[4] | u[5] << 8);
  } else {
    if (len != kIecMinLen) return false;  // S and U frames are the APCI alone
    if ((c[0] & 3) == 1) {
      a.format = IecFormat::S;
      a.nr = uint16_t((c[2] | c[3] << 8) >> 1);
    } else {
      a.format = IecFormat::U;
      a.u_func = uint8_t(c[0] >> 2);
    }
  }
  at += 2u + len;
  return true;
}

void iec104_segment(IecFlow& s, const IecConfig& cfg, const uint8_t* p, size_t n, int dir, bool from_2404, uint64_t duration_s) noexcept {
  IecApdu a;
  for (size_t at = 0; iec104_next(p, n, at, a);) {
    if (a.format == IecFormat::U) {
      s.info_kind = kInfoU, s.info_out = from_2404, s.info_u = a.u_func;
      continue;
    }
    if (a.format == IecFormat::S) {
      s.info_kind = kInfoS, s.info_out = from_2404, s.info_nr = a.nr;
      continue;
    }
    const uint8_t bit = uint8_t(1u << dir);
    // a retransmission: ntopng leaves the segment
    if ((s.seen & bit) && s.last_ns[dir] == a.ns && s.last_nr[dir] == a.nr) return;
    const bool first = s.seen == 0;
    s.seen |= bit, s.last_ns[dir] = a.ns, s.last_nr[dir] = a.nr;
    // ntopng's counters (INFO only): from the side not on port 2404 swapped, the receive one ahead
    uint16_t tx = a.ns, rx = a.nr;
    if (!from_2404) std::swap(tx, rx), rx++;
    s.norm_tx = tx, s.norm_rx = rx;
    s.info_kind = kInfoI, s.info_out = from_2404;
    if (!first) transition(s, cfg, s.last_type, a.type_id, duration_s);
    s.last_type = a.type_id;
    const uint8_t t = a.type_id;
    if (t < 128 && !((cfg.allowed[t >> 6] >> (t & 63)) & 1)) s.alerts |= kIecUnexpectedTypeId;
  }
}

void iec104_info(const IecFlow& s, char* out, size_t cap) noexcept {
  const char* arrow = s.info_out ? "->" : "<-";
  switch (s.info_kind) {
    case kInfoI:
      std::snprintf(out, cap, "%s I, RX %u, TX %u", arrow, unsigned(s.norm_rx), unsigned(s.norm_tx));
      return;
    case kInfoS:
      std::snprintf(out, cap, "%s S, RX %u", arrow, unsigned(s.info_nr));
      return;
    case kInfoU: {
      const char* f = "???";
      switch (s.info_u) {
        case 0x01: f = "STARTDT act"; break;
        case 0x02: f = "STARTDT con"; break;
        case 0x04: f = "STOPDT act"; break;
        case 0x08: f = "STOPDT con"; break;
        case 0x10: f = "TESTFR act"; break;
        case 0x20: f = "TESTFR con"; break;
      }
      std::snprintf(out, cap, "%s U (%s)", arrow, f);
      return;
    }
  }
  if (cap) out[0] = 0;
}

}  // namespace fg
