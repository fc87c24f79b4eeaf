// ④ HL7 v2 (TCP, usually MLLP-framed): a message over 100 bytes holding the
// MSH segment with the standard delimiters "MSH|^~\&|", as nDPI checks.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_hl7(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 100) return Verdict::No;
  static constexpr char kMsh[] = "MSH|^~\\&|";
  constexpr size_t k = sizeof kMsh - 1;
  for (size_t i = 0; i + k <= b.size(); i++) {
    if (b[i] == 'M' && std::memcmp(b.data() + i, kMsh, k) == 0) {
      m.app = id(ProtoId::HL7);
      return Verdict::Match;
    }
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(hl7, {"HL7", id(ProtoId::HL7), kL4Tcp, 1, classify_hl7});

}  // namespace fg
