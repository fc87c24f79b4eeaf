// ④ SOAP (W3C SOAP 1.1 §6.1.1: an HTTP request carrying a SOAP message has
// a SOAPAction header; the message is an XML document, often opening with
// the declaration <?xml version="1.0"…?>), TCP.
// As nDPI: a packet whose lines (CRLF-separated, up to the first empty one)
// include one starting with "SOAPAction", case as written, is SOAP, kept
// under the flow's current protocol: asked as HTTP's sub-protocol on the
// packet that named the flow HTTP, that gives HTTP.SOAP; on a flow nothing
// named, SOAP alone, up to the 4th payload packet; after that the flow is
// not SOAP.
// A packet among the flow's first three opening with <?xml version="1.0"
// is remembered (soap.c's stage, here bit 7 of the kScratchSoap byte); the flow is
// then named SOAP on its 4th payload packet, when nothing claimed it in
// between. Without the stage (a 4th packet with neither) the flow is not
// SOAP. Difference: when the flow has no FlowInfo or already a name, the
// stage cannot be kept and the declaration alone names nothing.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr std::string_view kHeader = "SOAPAction", kXmlDecl = "<?xml version=\"1.0\"";

bool soap_action_line(Bytes b) {
  bool found = false;
  each_ndpi_line(b, [&](const char* l, size_t n) {
    if (n == 0) return true;  // the empty line ends the search
    found = n >= kHeader.size() && kHeader.compare(0, kHeader.size(), l, kHeader.size()) == 0;
    return found;
  });
  return found;
}

Verdict soap_named(const DpiCtx& c, Match& m) {
  // nDPI keeps the flow's master, or makes its current protocol the master
  m.master = c.flow.l7_master ? c.flow.l7_master : c.flow.l7_app;
  m.app = id(ProtoId::SOAP);
  return Verdict::Match;
}

Verdict classify_soap(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (soap_action_line(b)) return soap_named(c, m);
  uint8_t* stage = c.scratch(kScratchSoap);
  constexpr uint8_t kDeclSeen = 0x80;  // SOAP's bit of the byte it shares (dpi.h)
  if (c.flow.dpi_packets > 3) return stage && (*stage & kDeclSeen) ? soap_named(c, m) : Verdict::No;
  if (stage && has_at(b, 0, kXmlDecl)) *stage |= kDeclSeen;
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(soap, {"SOAP", id(ProtoId::SOAP), kL4Tcp, 4, classify_soap});

}  // namespace fg
