// ④ STOMP (Simple Text Oriented Messaging Protocol, stomp.github.io
// "STOMP Protocol Specification, Version 1.2", §Connecting): a client opens
// with a STOMP frame (1.2; 1.0 clients send CONNECT), the server answers
// CONNECTED; frames are a command line, header lines, a blank line, a body
// and a NUL. As nDPI, one packet decides: from the client, more than 26
// bytes opening with "STOMP"; from the server, more than 100 bytes opening
// with "CONNECTED". So a 1.0 CONNECT rules the flow out, as in nDPI.
// No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_stomp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const bool connect = c.from_client && b.size() > 26 && has_at(b, 0, "STOMP");
  const bool connected = !c.from_client && b.size() > 100 && has_at(b, 0, "CONNECTED");
  if (!connect && !connected) return Verdict::No;
  m.app = id(ProtoId::STOMP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(stomp, {"STOMP", id(ProtoId::STOMP), kL4Tcp, 1, classify_stomp});

}  // namespace fg
