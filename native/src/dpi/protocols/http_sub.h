// ④ What nDPI's HTTP sub-protocol dissectors (SOAP, Thrift, JSON-RPC: group
// B of round 9) read from the packet that named the flow HTTP: its lines as
// nDPI splits them and its Content-Type value as nDPI keeps it. The
// classifier asks these dissectors on that packet once the flow is HTTP
// (classify.cpp, ask_subs); they tell it from the flow's current names.
#pragma once
#include <strings.h>

#include <cstddef>
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"

namespace fg {

// The flow was just named HTTP (as the application or as its master).
inline bool flow_is_http(const DpiCtx& c) {
  return c.flow.l7_app == id(ProtoId::HTTP) || c.flow.l7_master == id(ProtoId::HTTP);
}

// nDPI's line split (ndpi_parse_packet_line_info): a line ends at CRLF; the
// bytes after the last CRLF are one more line, only when there was a CRLF;
// at most 64 lines; nothing for payloads under 3 bytes. `fn(line, len)`
// returns true to stop.
template <class F>
void each_ndpi_line(Bytes b, F&& fn) {
  constexpr size_t kMaxLines = 64;
  if (b.size() < 3) return;
  const char* s = reinterpret_cast<const char*>(b.data());
  const char* const end = s + b.size();
  size_t start = 0, lines = 0;
  // memchr to each CR: a binary payload costs a vector scan, not a loop.
  for (const char* cr = s; lines < kMaxLines;) {
    cr = static_cast<const char*>(std::memchr(cr, '\r', size_t(end - 1 - cr)));
    if (!cr) break;
    if (cr[1] != '\n') {
      cr++;
      continue;
    }
    const size_t i = size_t(cr - s);
    if (fn(s + start, i - start)) return;
    lines++, start = i + 2, cr += 2;
    if (cr >= end - 1) break;
  }
  if (lines && lines < kMaxLines) fn(s + start, b.size() - start);
}

// The value of the packet's last line opening with `name` (any case, the
// line longer than the name), spaces trimmed at both ends, as nDPI's line
// parser keeps its header lines. False when no line opens so.
inline bool ndpi_header_value(Bytes b, std::string_view name, const char*& value, size_t& len) {
  bool found = false;
  each_ndpi_line(b, [&](const char* l, size_t n) {
    if (n <= name.size() || (l[0] | 0x20) != (name[0] | 0x20) || strncasecmp(l, name.data(), name.size()) != 0) return false;
    const char* v = l + name.size();
    size_t k = n - name.size();
    while (k && *v == ' ') v++, k--;
    while (k && v[k - 1] == ' ') k--;
    value = v, len = k, found = true;
    return false;
  });
  return found;
}

// nDPI's content line: the Content-type value, cut at the first ';' and at
// a '\r'. False when none or empty.
inline bool ndpi_content_type(Bytes b, const char*& value, size_t& len) {
  const char* v;
  size_t k;
  if (!ndpi_header_value(b, "Content-type:", v, k)) return false;
  if (const void* semi = std::memchr(v, ';', k)) k = size_t(static_cast<const char*>(semi) - v);
  if (const void* cr = std::memchr(v, '\r', k)) k = size_t(static_cast<const char*>(cr) - v);
  value = v, len = k;
  return k > 0;
}

// nDPI's LINE_ENDS: the value ends with `t`, case as written.
inline bool value_ends(const char* v, size_t n, const char* t) {
  const size_t k = std::strlen(t);
  return n >= k && std::memcmp(v + n - k, t, k) == 0;
}

}  // namespace fg
