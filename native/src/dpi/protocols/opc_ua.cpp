// ④ OPC UA Connection Protocol / Secure Conversation over TCP (OPC 10000-6
// §7.1.2: "opc.tcp", port 4840): every message chunk opens with a 3-letter
// message type — HEL, ACK, ERR, RHE (ReverseHello), OPN, MSG, CLO — and a
// chunk type letter, 'F' for a final chunk, then the message size.
// nDPI reads the flow's first payload segment on any port: at least 16
// octets opening with one of those types followed by 'F'. Intermediate
// ('C') and abort ('A') chunks, which cannot open a connection, do not count.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr std::string_view kTypes[] = {"HELF", "ACKF", "RHEF", "OPNF", "MSGF", "ERRF", "CLOF"};

Verdict classify_opc_ua(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 16) return Verdict::No;
  for (std::string_view t : kTypes) {
    if (has_at(b, 0, t)) {
      m.app = id(ProtoId::OPC_UA);
      return Verdict::Match;
    }
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(opc_ua, {"OPC-UA", id(ProtoId::OPC_UA), kL4Tcp, 1, classify_opc_ua});

}  // namespace fg
