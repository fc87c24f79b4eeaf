// ④ JSON-RPC 2.0 (jsonrpc.org/specification: every request and response
// object carries the member "jsonrpc": "2.0"), here sent raw over TCP.
// As nDPI, one packet decides: more than 30 bytes, opening with '{', and
// holding the member name "jsonrpc" followed right away by ':' (no space;
// searched up to the first NUL byte, as nDPI's string search stops there).
// Over HTTP (asked as HTTP's sub-protocol on the packet that named the
// flow HTTP): a Content-Type ending with application/json-rpc, parameters
// after ';' cut off as nDPI does, makes it HTTP.JSON-RPC; anything else
// leaves it. No port required.
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr std::string_view kMember = "\"jsonrpc\":";

Verdict classify_json_rpc(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (flow_is_http(c)) {
    const char* v;
    size_t n;
    if (!ndpi_content_type(b, v, n) || !value_ends(v, n, "application/json-rpc")) return Verdict::NeedMore;
    m.master = id(ProtoId::HTTP), m.app = id(ProtoId::JSON_RPC);
    return Verdict::Match;
  }
  if (b.size() <= 30 || b[0] != '{') return Verdict::No;
  const void* nul = std::memchr(b.data(), 0, b.size());
  const size_t text = nul ? size_t(static_cast<const uint8_t*>(nul) - b.data()) : b.size();
  if (!contains(b.first(text), kMember)) return Verdict::No;
  m.app = id(ProtoId::JSON_RPC);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(json_rpc, {"JSON-RPC", id(ProtoId::JSON_RPC), kL4Tcp, 1, classify_json_rpc});

}  // namespace fg
