// ④ MQTT, as nDPI's mqtt.c: every payload packet (either direction, the
// flow's first ten) must be one whole MQTT control packet or the flow is
// excluded: its remaining length (variable-length, up to 4 bytes) accounts
// for the packet exactly, the type is 1..14 with the flags that type
// requires; CONNACK, PUBACK, PUBREC, PUBREL, PUBCOMP and UNSUBACK are 4
// bytes, PINGREQ, PINGRESP and DISCONNECT 2; PUBLISH has a QoS of 0..2 (no
// DUP at QoS 0) and 5 bytes (7 with QoS) at least; SUBSCRIBE 8, SUBACK 5,
// UNSUBSCRIBE 7 at least. CONNECT is taken on its fixed header alone.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool mqtt_packet(Bytes b) {
  const size_t n = b.size();
  if (n < 2) return false;
  size_t rl = 0, rl_len = 0, mult = 1;
  for (size_t i = 0; i < 4; i++) {
    if (1 + i >= n) return false;
    rl_len++;
    rl += size_t(b[1 + i] & 0x7f) * mult;
    if (!(b[1 + i] & 0x80)) break;
    mult *= 128;
  }
  if (n != rl + 1 + rl_len) return false;
  const uint8_t type = b[0] >> 4, flags = b[0] & 0x0f;
  switch (type) {
    case 1: return flags == 0;                                            // CONNECT
    case 2: case 4: case 5: case 7: case 11: return flags == 0 && n == 4;  // CONNACK PUBACK PUBREC PUBCOMP UNSUBACK
    case 6: return flags == 2 && n == 4;                                  // PUBREL
    case 12: case 13: case 14: return flags == 0 && n == 2;               // PINGREQ PINGRESP DISCONNECT
    case 3: {                                                             // PUBLISH
      const uint8_t qos = (flags >> 1) & 3;
      if (qos == 3) return false;
      if (qos == 0) return !(flags & 8) && n >= 5;
      return n >= 7;
    }
    case 8: return flags == 2 && n >= 8;   // SUBSCRIBE
    case 9: return flags == 0 && n >= 5;   // SUBACK
    case 10: return flags == 2 && n >= 7;  // UNSUBSCRIBE
    default: return false;
  }
}

Verdict classify_mqtt(DpiCtx& c, Match& m) {
  if (!mqtt_packet(c.payload)) return Verdict::No;
  m.app = id(ProtoId::MQTT);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mqtt, {"MQTT", id(ProtoId::MQTT), kL4Tcp, 10, classify_mqtt});

}  // namespace fg
