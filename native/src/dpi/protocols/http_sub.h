// ④ What nDPI's HTTP sub-protocol dissectors (SOAP, Thrift, JSON-RPC: group
// B of round 9) read from the packet that named the flow HTTP: its lines as
// nDPI splits them and its Content-Type value as nDPI keeps it. The
// classifier asks these dissectors on that packet once the flow is HTTP
// (classify.cpp, ask_subs); they tell it from the flow's current names.
#pragma once
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "dpi/dpi.h"

namespace fg {

// The flow was just named HTTP (as the application or as its master).
inline bool flow_is_http(const DpiCtx& c) {
  return c.flow.l7_app == id(ProtoId::HTTP) || c.flow.l7_master == id(ProtoId::HTTP);
}

// nDPI's line split (ndpi_parse_packet_line_info): a line ends at CRLF; the
// bytes after the last CRLF are one more line, only when there was a CRLF;
// at most 64 lines; nothing for payloads under 3 bytes. nDPI splits a
// packet once for all its dissectors; so does this: the split of the bytes
// last asked for is kept per worker thread until the classifier moves to
// another packet (dpi_next_packet), and HTTP's sub-protocols, asked one
// after another on the same request, share it.
// No member initialisers: the per-thread copy starts zeroed as any
// thread_local does, and a trivially constructed one costs its readers no
// initialisation check (__tls_init) per access.
struct NdpiLines {
  static constexpr size_t kMaxLines = 64;
  uint64_t packet;  // dpi_packet_serial when split
  const uint8_t* data;
  size_t size;
  size_t n;  // lines, the open last one included
  uint32_t off[kMaxLines + 1], len[kMaxLines + 1];
};
inline thread_local uint64_t dpi_packet_serial = 1;
inline thread_local NdpiLines ndpi_lines_memo;

// The classifier calls this before it gives a packet to any dissector.
inline void dpi_next_packet() { dpi_packet_serial++; }

inline const NdpiLines& ndpi_lines(Bytes b) {
  NdpiLines& t = ndpi_lines_memo;
  if (t.packet == dpi_packet_serial && t.data == b.data() && t.size == b.size()) return t;
  t.packet = dpi_packet_serial, t.data = b.data(), t.size = b.size(), t.n = 0;
  if (b.size() < 3) return t;
  const char* s = reinterpret_cast<const char*>(b.data());
  const char* const end = s + b.size();
  size_t start = 0;
  // memchr to each CR: a binary payload costs a vector scan, not a loop.
  for (const char* cr = s; t.n < NdpiLines::kMaxLines;) {
    cr = static_cast<const char*>(std::memchr(cr, '\r', size_t(end - 1 - cr)));
    if (!cr) break;
    if (cr[1] != '\n') {
      cr++;
      continue;
    }
    const size_t i = size_t(cr - s);
    t.off[t.n] = uint32_t(start), t.len[t.n] = uint32_t(i - start), t.n++;
    start = i + 2, cr += 2;
    if (cr >= end - 1) break;
  }
  if (t.n && t.n < NdpiLines::kMaxLines) t.off[t.n] = uint32_t(start), t.len[t.n] = uint32_t(b.size() - start), t.n++;
  return t;
}

// nDPI splits a packet once (packet_lines_parsed_complete): a dissector
// asking for another split of a packet already split by an earlier one
// (IRC's split at bare LFs) gets the earlier split. True when a dissector
// took ndpi_lines of this payload on this packet.
inline bool ndpi_lines_taken(Bytes b) {
  const NdpiLines& t = ndpi_lines_memo;
  return t.packet == dpi_packet_serial && t.data == b.data() && t.size == b.size();
}

// The lines nDPI's dissectors loop over (its parsed_lines): at a 64th CRLF
// its split stops with 63, the 64th read for header values only (as
// ndpi_header_values reads it) — 64 only when the 64th is the open tail.
inline size_t ndpi_line_count(const NdpiLines& t, Bytes b) {
  constexpr size_t k = NdpiLines::kMaxLines;
  return t.n == k && size_t(t.off[k - 1]) + t.len[k - 1] < b.size() ? k - 1 : t.n;
}

// `fn(line, len)` for each line; returns true to stop.
template <class F>
void each_ndpi_line(Bytes b, F&& fn) {
  const NdpiLines& t = ndpi_lines(b);
  const char* s = reinterpret_cast<const char*>(b.data());
  for (size_t i = 0; i < t.n; i++)
    if (fn(s + t.off[i], size_t(t.len[i]))) return;
}

// A header asked of ndpi_header_values: its name (with the colon) and,
// once read, its value.
struct HeaderValue {
  std::string_view name;
  const char* value = nullptr;
  size_t len = 0;
  bool found = false;
};

// The value of the packet's last line opening with each header's name (any
// case, the line longer than the name), spaces trimmed at both ends, as
// nDPI's line parser keeps its header lines; one pass over the lines for
// all of them.
inline void ndpi_header_values(Bytes b, std::span<HeaderValue> headers) {
  each_ndpi_line(b, [&](const char* l, size_t n) {
    for (HeaderValue& h : headers) {
      const std::string_view name = h.name;
      if (n <= name.size() || (l[0] | 0x20) != (name[0] | 0x20) || strncasecmp(l, name.data(), name.size()) != 0) continue;
      const char* v = l + name.size();
      size_t k = n - name.size();
      while (k && *v == ' ') v++, k--;
      while (k && v[k - 1] == ' ') k--;
      h.value = v, h.len = k, h.found = true;
    }
    return false;
  });
}

// The same for one header; false when no line opens with `name`.
inline bool ndpi_header_value(Bytes b, std::string_view name, const char*& value, size_t& len) {
  HeaderValue h{name};
  ndpi_header_values(b, std::span<HeaderValue>(&h, 1));
  if (h.found) value = h.value, len = h.len;
  return h.found;
}

// nDPI's content line from a Content-type value: cut at the first ';' and
// at a '\r'. False when empty.
inline bool ndpi_content_cut(const char* v, size_t k, const char*& value, size_t& len) {
  if (const void* semi = std::memchr(v, ';', k)) k = size_t(static_cast<const char*>(semi) - v);
  if (const void* cr = std::memchr(v, '\r', k)) k = size_t(static_cast<const char*>(cr) - v);
  value = v, len = k;
  return k > 0;
}

// nDPI's content line: the Content-type value, cut at the first ';' and at
// a '\r'. False when none or empty.
inline bool ndpi_content_type(Bytes b, const char*& value, size_t& len) {
  const char* v;
  size_t k;
  if (!ndpi_header_value(b, "Content-type:", v, k)) return false;
  return ndpi_content_cut(v, k, value, len);
}

// nDPI's LINE_ENDS: the value ends with `t`, case as written.
inline bool value_ends(const char* v, size_t n, const char* t) {
  const size_t k = std::strlen(t);
  return n >= k && std::memcmp(v + n - k, t, k) == 0;
}

}  // namespace fg
