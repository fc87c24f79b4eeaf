// ③ ntopng's top visited sites (MostVisitedList over FrequentStringItems,
// HOST_SITES_TOP_NUMBER = 10): per local host and per interface, the sites
// local clients named in their HTTP, TLS, QUIC, Tor and DNS flows
// (LocalHostStats::incrVisitedWebSite), counted once per flow. Up to twice
// the top number are kept; a new site past that first prunes the list to the
// top number by count (FrequentStringItems::prune; ties by name here, where
// ntopng's sort leaves them unordered). Fixed size, no allocation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace fg {

struct SiteEntry {
  uint32_t count, hash;
  char name[56];  // NUL-terminated (a longer site is cut)
};

struct TopSites {
  static constexpr uint32_t kTop = 10, kMax = 2 * kTop + 1;
  uint32_t n;
  SiteEntry e[kMax];

  void add(const char* name, size_t len, uint32_t hash) noexcept {
    if (len >= sizeof(e[0].name)) len = sizeof(e[0].name) - 1;
    for (uint32_t i = 0; i < n; i++)
      if (e[i].hash == hash && std::strncmp(e[i].name, name, len) == 0 && e[i].name[len] == 0) return void(e[i].count++);
    if (n > 2 * kTop) prune();
    SiteEntry& x = e[n++];
    x.count = 1, x.hash = hash;
    std::memcpy(x.name, name, len), x.name[len] = 0;
  }

  // the entries by count, highest first (ties by name)
  void sort() noexcept {
    std::sort(e, e + n, [](const SiteEntry& a, const SiteEntry& b) { return a.count != b.count ? a.count > b.count : std::strcmp(a.name, b.name) < 0; });
  }

 private:
  void prune() noexcept {
    sort();
    n = kTop;
  }
};

// The site a visited name counts for (LocalHostStats::incrVisitedWebSite):
// none for reverse lookups and IPv4 literals; the name without its first
// label when it has at least two dots (www.example.org → example.org).
inline bool site_of(const char* s, size_t len, const char*& out, size_t& out_len) noexcept {
  if (!len) return false;
  static constexpr char kArpa[] = "in-addr.arpa";
  for (size_t i = 0; i + sizeof(kArpa) - 1 <= len; i++)
    if (std::memcmp(s + i, kArpa, sizeof(kArpa) - 1) == 0) return false;
  // "%u.%u.%u.%u" as sscanf reads it: four numbers separated by dots, at the start
  size_t i = 0;
  int parts = 0;
  while (parts < 4) {
    size_t d = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) break;
    parts++;
    if (parts < 4) {
      if (i < len && s[i] == '.') i++;
      else break;
    }
  }
  if (parts == 4) return false;
  const char* first = static_cast<const char*>(std::memchr(s, '.', len));
  const char* next = first ? static_cast<const char*>(std::memchr(first + 1, '.', len - size_t(first + 1 - s))) : nullptr;
  out = next ? first + 1 : s;
  out_len = len - size_t(out - s);
  return true;
}

}  // namespace fg
