// ④ MQTT: the client opens with CONNECT (fixed header 0x10, a variable-length
// remaining length covering the rest), whose variable header names the
// protocol: "MQTT" (3.1.1 / 5, level 4 / 5) or "MQIsdp" (3.1, level 3).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

// A flow seen mid-session: one short control packet, whole in the segment
// (single-byte remaining length), with the flags its type requires.
bool mqtt_other(Bytes b) {
  if (b.size() < 2 || b.size() > 129 || size_t(b[1]) + 2 != b.size()) return false;
  uint8_t type = b[0] >> 4, flags = b[0] & 15;
  switch (type) {
    case 2: case 4: case 5: case 7: case 11:  // CONNACK PUBACK PUBREC PUBCOMP UNSUBACK
      return flags == 0 && b.size() == 4;
    case 6:  // PUBREL
      return flags == 2 && b.size() == 4;
    case 12: case 13: case 14:  // PINGREQ PINGRESP DISCONNECT
      return flags == 0 && b.size() == 2;
    case 3: {  // PUBLISH
      uint8_t qos = (flags >> 1) & 3;
      if (qos == 3 || (qos == 0 && (flags & 8))) return false;
      if (b.size() < (qos ? 7u : 5u)) return false;
      return load_be16(b.data() + 2) + 4u + (qos ? 2u : 0u) <= b.size();  // topic fits
    }
    case 8:  // SUBSCRIBE
      return flags == 2 && b.size() >= 8;
    case 9:  // SUBACK
      return flags == 0 && b.size() >= 5;
    case 10:  // UNSUBSCRIBE
      return flags == 2 && b.size() >= 7;
    default:
      return false;
  }
}

Verdict classify_mqtt(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() >= 2 && b[0] != 0x10 && mqtt_other(b)) {
    m.app = id(ProtoId::MQTT);
    return Verdict::Match;
  }
  if (!c.from_client || b.size() < 12 || b[0] != 0x10) return Verdict::No;
  size_t rem = 0, i = 1;
  for (int shift = 0; i < 5 && i < b.size(); i++, shift += 7) {
    rem |= size_t(b[i] & 0x7f) << shift;
    if (!(b[i] & 0x80)) break;
  }
  if (i >= 5 || i >= b.size()) return Verdict::No;
  i++;
  if (rem < 10 || i + rem < b.size()) return Verdict::No;  // may be split, never shorter
  if (i + 2 > b.size()) return Verdict::No;
  uint16_t nlen = load_be16(b.data() + i);
  i += 2;
  if (i + nlen + 1 > b.size()) return Verdict::No;
  const uint8_t* name = b.data() + i;
  uint8_t level = b[i + nlen];
  bool ok = (nlen == 4 && std::memcmp(name, "MQTT", 4) == 0 && (level == 4 || level == 5)) ||
            (nlen == 6 && std::memcmp(name, "MQIsdp", 6) == 0 && level == 3);
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::MQTT);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mqtt, {"MQTT", id(ProtoId::MQTT), kL4Tcp, 2, classify_mqtt});

}  // namespace fg
