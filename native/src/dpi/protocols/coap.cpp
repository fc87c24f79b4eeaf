// ④ CoAP, the Constrained Application Protocol (RFC 7252 §3, message
// format), over UDP: a 4-byte fixed header — version (2 bits, always 1),
// type (2 bits: CON, NON, ACK, RST), token length (4 bits, 9–15 reserved),
// code (class.detail as 3 + 5 bits), message id — then the token, options
// and payload. As nDPI, the flow's first datagram decides:
//  - one of its ports (source or destination of this packet) is 5683, the
//    default CoAP port (§12.6), or in 61616–61631 (0xF0B0–0xF0BF), the
//    ports 6LoWPAN squeezes into 4 bits (RFC 6282 §4.3.3); the DTLS port
//    5684 (§12.7) is not one of them (its datagrams are DTLS records);
//  - at least the 4 header bytes, version 1, any of the four types, a token
//    length below 8 (nDPI rejects 8 though RFC 7252 allows it);
//  - the code is Empty or a request 0.01–0.05 (GET, POST, PUT, DELETE, and
//    RFC 8132's FETCH), or a response among 2.01–2.05, 4.00–4.06, 4.12–4.15
//    and 5.00–5.05 (§12.1.2); anything else (2.31, 4.08, 4.29, 0.06 PATCH…)
//    is no CoAP for nDPI.
// Anything else, at once: not CoAP. CoAP over TCP (RFC 8323) is not read.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kCoapPort = 5683;

bool coap_port(uint16_t port) { return port == kCoapPort || (port >= 61616 && port <= 61631); }

// The codes nDPI accepts, as class * 32 + detail.
bool coap_code(uint8_t code) {
  return code <= 5 || (code >= 65 && code <= 69) || (code >= 128 && code <= 134) || (code >= 140 && code <= 143) ||
         (code >= 160 && code <= 165);
}

Verdict classify_coap(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (!coap_port(c.p.sport) && !coap_port(c.p.dport)) return Verdict::No;
  if (b.size() < 4) return Verdict::No;
  const uint8_t version = b[0] >> 6, token_len = b[0] & 0x0f;  // the type (bits 4–5) takes any value
  if (version != 1 || token_len >= 8 || !coap_code(b[1])) return Verdict::No;
  m.app = id(ProtoId::COAP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(coap, {"COAP", id(ProtoId::COAP), kL4Udp, 1, classify_coap});

}  // namespace fg
