// ④ nDPI's protocol registry: ids, names, categories, breeds and default
// ports, generated from data/ (facts from nDPI 4.11, see data/README.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fg {

enum class ProtoId : uint16_t {
#define FG_X(ident, id) ident = id,
#include "dpi/generated/protocols.inc"
  FG_PROTO_IDS(FG_X)
#undef FG_X
};

struct ProtoInfo {
  uint16_t id;
  const char* name;
  bool is_app;        // an application (YouTube) rather than a protocol (TLS)
  uint8_t breed;
  uint16_t category;
  const char* udp_ports;  // comma-separated default ports, "" when none
  const char* tcp_ports;
};

// nDPI's confidence of a classification, as ndpiReader prints it.
enum class Confidence : uint8_t { Unknown = 0, MatchByPort = 1, DpiPartial = 2, DpiCache = 3, Dpi = 4, MatchByIp = 5, DpiPartialCache = 6, CustomRule = 7 };
constexpr uint8_t kConfidenceLast = 7;
const char* confidence_name(Confidence c);

// nullptr for an unknown id; the operator's custom protocols too (user_rules.h)
const ProtoInfo* proto_info(uint16_t id);
bool builtin_proto(uint16_t id);  // one of nDPI's
size_t proto_count();
const ProtoInfo& proto_at(size_t i);
uint16_t proto_by_name(std::string_view name);  // 0 (Unknown) when absent
const char* category_name(uint16_t id);          // "" when absent
size_t category_count();
uint16_t category_at(size_t i);
const char* breed_name(uint8_t breed);
// The protocol's breed is one nDPI calls unsafe (Unsafe, Potentially Dangerous, Dangerous).
bool unsafe_breed(uint16_t id);
// nDPI's guess by port (ndpi_get_guessed_protocol_id over its port tree): the
// server port first, then the client's; a port an operator's rule names takes
// it over from a default. 0 when none, or when either port is 0 (nDPI guesses
// only with both). `user_only`, when given: the port found is one only the
// operator's rules hold (the tree node's customUserProto).
uint16_t guess_by_port(uint8_t l4_proto, uint16_t sport, uint16_t dport, bool* user_only = nullptr);

inline constexpr uint16_t id(ProtoId p) { return static_cast<uint16_t>(p); }

}  // namespace fg
