// ④ A name a dissector reads from the payload, stored as nDPI stores it
// with full normalisation (ndpi_main.c, ndpi_hostname_sni_set with
// NDPI_HOSTNAME_NORM_ALL): of a value longer than nDPI's 79-character
// field only the tail is kept; the copy ends at a NUL; a tab becomes a
// space and any other byte outside 0x20–0x7e a '?'; trailing spaces go.
// DpiCtx::set_host then lower-cases it and keeps its first 39 characters.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dpi/dpi.h"

namespace fg {

inline void set_ndpi_hostname(const DpiCtx& c, const uint8_t* v, size_t n) {
  constexpr size_t kField = 79;
  if (n > kField) v += n - kField, n = kField;
  char out[kField];
  size_t k = 0;
  for (; k < n && v[k] != 0; k++) {
    const uint8_t ch = v[k];
    out[k] = ch == '\t' ? ' ' : (ch < 0x20 || ch > 0x7e) ? '?' : char(ch);
  }
  while (k > 0 && out[k - 1] == ' ') k--;
  c.set_host(out, k);
}

}  // namespace fg
