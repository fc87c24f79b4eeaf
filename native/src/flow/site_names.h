// ③ A local host's top visited sites (flow/top_sites.h's rules) with the
// names interned: the same sites recur across hosts, and a name is most of
// an inline entry's bytes. Each worker holds one SiteNames; a host's list
// keeps ids into it, a reference each. Fixed size, no allocation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "flow/hash_index.h"
#include "flow/interned_names.h"
#include "flow/top_sites.h"
#include "util/bytes.h"

namespace fg {

// Names keyed by (FNV-1a hash of the whole site, name cut to 55 characters),
// as TopSites matches them: two long sites alike in their first 55
// characters stay two entries there, so here too.
using SiteNames = InternedNames<TopSites::kNameLen>;
static_assert(sizeof(SiteNames::Entry) == 64, "a name is one cache line");

// What a visit did to a host's list.
enum class SiteVisit : uint8_t { Kept, NoRoom /* a new site, the short list full */, NoName /* the name pool full */ };

// The ids and visit counts of at most N sites, in the order they came.
template <uint32_t N>
struct SiteIds {
  uint32_t n;
  uint32_t site[N];
  uint32_t count[N];

  // Counts a visit to a site the list holds (`id`: names.find's answer;
  // kNone: in no list, so not here).
  bool seen(uint32_t id) noexcept {
    if (id != HashIndex::kNone)
      for (uint32_t i = 0; i < n; i++)
        if (site[i] == id) return count[i]++, true;
    return false;
  }
  // A new site at the end (the caller made room).
  SiteVisit append(SiteNames& names, const char* s, size_t len, uint32_t h) noexcept {
    const uint32_t e = names.intern(s, len, h);
    if (e == HashIndex::kNone) return SiteVisit::NoName;
    site[n] = e, count[n] = 1, n++;
    return SiteVisit::Kept;
  }
  void release_names(SiteNames& names) const noexcept {
    for (uint32_t i = 0; i < n; i++) names.release(site[i]);
  }
  void into(const SiteNames& names, TopSites& t) const noexcept {
    t.n = n;
    for (uint32_t i = 0; i < n; i++) t.hash[i] = names.hash(site[i]), t.count[i] = count[i], std::memcpy(t.name[i], names.name(site[i]), TopSites::kNameLen);
  }
};

// A host's list: TopSites' rules (up to kMax sites, pruned to kTop by count,
// ties by name, when a new one comes past that) over ids.
struct SiteList : SiteIds<TopSites::kMax> {
  static constexpr uint32_t kTop = TopSites::kTop, kMax = TopSites::kMax;

  SiteVisit add(SiteNames& names, uint32_t id, const char* s, size_t len, uint32_t h) noexcept {
    if (seen(id)) return SiteVisit::Kept;
    if (n > 2 * kTop) prune(names);
    return append(names, s, len, h);
  }

 private:
  // TopSites::prune: sorted as TopSites::sort sorts, the top kTop kept.
  void prune(SiteNames& names) noexcept {
    uint8_t order[kMax];
    for (uint32_t i = 0; i < n; i++) order[i] = uint8_t(i);
    std::sort(order, order + n, [&](uint8_t a, uint8_t b) {
      return count[a] != count[b] ? count[a] > count[b] : std::strcmp(names.name(site[a]), names.name(site[b])) < 0;
    });
    uint32_t s[kTop], c[kTop];
    for (uint32_t i = 0; i < kTop; i++) s[i] = site[order[i]], c[i] = count[order[i]];
    for (uint32_t i = kTop; i < n; i++) names.release(site[order[i]]);
    std::memcpy(site, s, sizeof s), std::memcpy(count, c, sizeof c);
    n = kTop;
  }
};

static_assert(sizeof(SiteList) == 172);

// A host's first few sites: most hosts name only a few. The site past kFew
// moves them, in order, to a SiteList (their references with them), so the
// list is what a SiteList would have been from the start.
struct SiteListFew : SiteIds<4> {
  static constexpr uint32_t kFew = 4;

  SiteVisit add(SiteNames& names, uint32_t id, const char* s, size_t len, uint32_t h) noexcept {
    if (seen(id)) return SiteVisit::Kept;
    if (n == kFew) return SiteVisit::NoRoom;
    return append(names, s, len, h);
  }
  void into(SiteList& t) const noexcept {
    t.n = n;
    for (uint32_t i = 0; i < n; i++) t.site[i] = site[i], t.count[i] = count[i];
  }
  using SiteIds::into;
};

static_assert(sizeof(SiteListFew) == 36);

// The distinct names the host lists can hold at once (every id each list
// can take): a SiteNames this size never refuses a name a list has room for.
inline uint32_t site_names_for(uint32_t full_lists, uint32_t few_lists) {
  const uint64_t n = uint64_t(full_lists) * SiteList::kMax + uint64_t(few_lists) * SiteListFew::kFew;
  return uint32_t(n < HashIndex::kNone ? n : HashIndex::kNone - 1);
}

}  // namespace fg
