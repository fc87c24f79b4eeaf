// ④ Apache Kafka wire protocol (kafka.apache.org/protocol.html, "Common
// Request and Response Structure"), TCP: every message is an INT32 size
// (the bytes that follow), then a request header v1+: INT16 api_key, INT16
// api_version, INT32 correlation_id, NULLABLE_STRING client_id (INT16
// length, then the bytes). As nDPI: one packet decides. The size must equal
// the payload minus 4; api_key below 75 and api_version below 16 (a request
// header); the client id must fit in the packet and be printable ASCII.
// A response (size, correlation id, body) is not recognised, nor a null
// client id (length -1), as in nDPI. No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kApiKeyLimit = 75;     // keys defined up to the 4.x protocol
constexpr uint16_t kApiVersionLimit = 16;

Verdict classify_kafka(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || load_be32(b.data()) != uint32_t(b.size() - 4)) return Verdict::No;
  if (load_be16(b.data() + 4) >= kApiKeyLimit || load_be16(b.data() + 6) >= kApiVersionLimit) return Verdict::No;
  if (b.size() < 14) return Verdict::No;
  const size_t id_len = load_be16(b.data() + 12);
  if (id_len + 14 > b.size()) return Verdict::No;
  for (size_t i = 14; i < 14 + id_len; i++)
    if (b[i] < 0x20 || b[i] > 0x7e) return Verdict::No;
  m.app = id(ProtoId::Kafka);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(kafka, {"Kafka", id(ProtoId::Kafka), kL4Tcp, 1, classify_kafka});

}  // namespace fg
