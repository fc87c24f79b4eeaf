// ③ ntopng's top visited sites (MostVisitedList over FrequentStringItems,
// HOST_SITES_TOP_NUMBER = 10): per local host and per interface, the sites
// local clients named in their HTTP, TLS, QUIC, Tor and DNS flows
// (LocalHostStats::incrVisitedWebSite), counted once per flow. Up to twice
// the top number are kept; a new site past that first prunes the list to the
// top number by count (FrequentStringItems::prune; ties by name here, where
// ntopng's sort leaves them unordered). Fixed size, no allocation. The
// interface's list keeps its names inline; a host's list keeps them interned
// (flow/site_names.h) and is read out as a TopSites.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace fg {

// The hashes and counts come first, apart from the names: a visit scans two
// cache lines of hashes and reads a name only where its hash matches (an
// entry per line, names beside their counts, made each visit walk 21 lines).
struct TopSites {
  static constexpr uint32_t kTop = 10, kMax = 2 * kTop + 1, kNameLen = 56;
  uint32_t n;
  uint32_t hash[kMax];
  uint32_t count[kMax];
  char name[kMax][kNameLen];  // NUL-terminated (a longer site is cut)

  void add(const char* s, size_t len, uint32_t h) noexcept {
    if (len >= kNameLen) len = kNameLen - 1;
    for (uint32_t i = 0; i < n; i++)
      if (hash[i] == h && std::strncmp(name[i], s, len) == 0 && name[i][len] == 0) return void(count[i]++);
    if (n > 2 * kTop) prune();
    const uint32_t i = n++;
    count[i] = 1, hash[i] = h;
    std::memcpy(name[i], s, len), name[i][len] = 0;
  }

  // the entries by count, highest first (ties by name)
  void sort() noexcept {
    uint8_t order[kMax];
    for (uint32_t i = 0; i < n; i++) order[i] = uint8_t(i);
    std::sort(order, order + n, [&](uint8_t a, uint8_t b) { return count[a] != count[b] ? count[a] > count[b] : std::strcmp(name[a], name[b]) < 0; });
    TopSites t;
    t.n = n;
    for (uint32_t i = 0; i < n; i++) {
      t.hash[i] = hash[order[i]], t.count[i] = count[order[i]];
      std::memcpy(t.name[i], name[order[i]], kNameLen);
    }
    *this = t;
  }

  // Adds another worker's list (query.cpp merges shards): counts summed by
  // site; past kMax sites the most visited kMax stay (ties by name), the
  // bound the list keeps.
  void merge(const TopSites& o) noexcept {
    struct Item { uint32_t hash, count; const char* name; };
    Item all[2 * kMax];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) all[m++] = {hash[i], count[i], name[i]};
    for (uint32_t j = 0; j < o.n; j++) {
      uint32_t i = 0;
      while (i < n && !(all[i].hash == o.hash[j] && std::strcmp(all[i].name, o.name[j]) == 0)) i++;
      if (i < n) all[i].count += o.count[j];
      else all[m++] = {o.hash[j], o.count[j], o.name[j]};
    }
    if (m > kMax) {
      std::partial_sort(all, all + kMax, all + m, [](const Item& a, const Item& b) {
        return a.count != b.count ? a.count > b.count : std::strcmp(a.name, b.name) < 0;
      });
      m = kMax;
    }
    TopSites t;  // the names point into *this and o: copied out first
    t.n = m;
    for (uint32_t i = 0; i < m; i++) {
      t.hash[i] = all[i].hash, t.count[i] = all[i].count;
      std::memcpy(t.name[i], all[i].name, kNameLen);
    }
    *this = t;
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
