// ④ HL7 v2 (TCP, usually MLLP-framed), as nDPI checks: a message over 100
// bytes whose MSH segment with the standard delimiters "MSH|^~\&|" starts
// at offset 1 (right after MLLP's 0x0b start byte); anything else rules it
// out. Over HTTP (asked as HTTP's sub-protocol on the packet that named the
// flow HTTP): a Content-Type ending with one of nDPI's HL7 / FHIR / CDA
// media types makes it HTTP.HL7; anything else leaves it.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

Verdict classify_hl7(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (flow_is_http(c)) {
    static const char* const kTypes[] = {"x-application/hl7-v2+er7", "x-application/hl7-v2+xml", "x-application/hl7-v3+xml",
                                         "x-application/fhir+xml",   "x-application/fhir+json",  "x-application/xml+cda"};
    const char* v;
    size_t n;
    if (!ndpi_content_type(b, v, n)) return Verdict::NeedMore;
    for (const char* t : kTypes) {
      if (value_ends(v, n, t)) {
        m.master = id(ProtoId::HTTP), m.app = id(ProtoId::HL7);
        return Verdict::Match;
      }
    }
    return Verdict::NeedMore;
  }
  static constexpr char kMsh[] = "MSH|^~\\&|";
  if (b.size() <= 100 || std::memcmp(b.data() + 1, kMsh, sizeof kMsh - 1) != 0) return Verdict::No;
  m.app = id(ProtoId::HL7);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(hl7, {"HL7", id(ProtoId::HL7), kL4Tcp, 1, classify_hl7});

}  // namespace fg
