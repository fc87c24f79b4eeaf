// ③ Per-host application (L7), category and DSCP counters, as ntopng's
// nDPIStats and DSCP stats of a host. One global open-addressing table of
// fixed 40-byte entries keyed by (host slot, kind, id): a credit is a few
// independent O(1) lookups whose home slots follow from the flow alone (its
// two host slots, application, category and DSCP marks), so the sweep
// prefetches them for flows ahead of the one it credits. Entries are taken
// only by the sweep / flow expiry (never per packet).
//
// Expiry is lazy: an entry carries its host slot's generation, bumped when the
// host there expires; an entry whose generation is no longer its slot's is
// stale — never matched, reusable by an insertion that probes past it, and
// removed (backward shift) by a cleaner that walks the table at the sweep's
// pace, so within one sweep pass (5 s) of the host's expiry.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "flow/hash_index.h"
#include "flow/host_contacts.h"
#include "util/bytes.h"

namespace fg {

// A prefetch the compiler keeps. GCC 12 counts __builtin_prefetch as no side
// effect, so it drops calls to an inline function that does nothing else
// (HostL7Table::request, Pipeline::prefetch_l7 compiled to nothing).
inline void keep_prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1);
  asm volatile("" : : "r"(p) : "memory");
#endif
}

enum L7Kind : uint32_t { kL7App = 1, kL7Cat = 2, kL7Dscp = 3 };

// Counters are 48-bit: the low 32 bits in lo[], the high 16 in hi[].
struct L7Entry {
  uint32_t owner;     // host slot | slot generation << 26
  uint16_t kid;       // kind << 14 | id; 0: an empty slot
  uint16_t pass;      // sweep pass of the last credit (mod 2^16)
  uint32_t flows;     // applications
  uint32_t duration;  // applications, categories: s
  uint32_t lo[4];     // bytes sent, bytes rcvd, packets sent, packets rcvd
  uint16_t hi[4];
};
static_assert(sizeof(L7Entry) == 40);
// A contact sketch (host_contacts.h, kind 0) keeps its 32 bytes where an
// application's counters are, and its mode in `pass`.
static_assert(offsetof(L7Entry, hi) + sizeof(L7Entry::hi) - offsetof(L7Entry, flows) == 32);

struct HostAppStats {
  uint16_t id;
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
  uint32_t num_flows, duration;
};
struct HostCatStats {
  uint16_t id;
  uint64_t bytes_sent, bytes_rcvd;
  uint32_t duration;
};
struct HostDscpStats {
  uint8_t dscp;
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
};
struct HostL7Stats {
  std::vector<HostAppStats> apps;    // by id
  std::vector<HostCatStats> cats;
  std::vector<HostDscpStats> dscp;
};

// One accounting step of one flow, from one host's side.
struct L7Credit {
  uint16_t app, cat;
  uint8_t dscp_sent, dscp_rcvd;      // the flow's current DSCP per direction
  bool new_flow;                     // first step of this flow under `app`
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
};

class HostL7Table {
 public:
  static constexpr uint32_t kHostBits = 26, kHostMask = (1u << kHostBits) - 1;
  static constexpr uint8_t kGenMask = 63, kFull = 0x80;
  static constexpr uint32_t kPeriod = 5;  // s: a sweep pass, and ntopng's housekeeping frequency
  // The most entries a table holds; it has a quarter more slots (load <= 0.8).
  static constexpr uint32_t kMaxEntries = 0xc0000000u;

  // max_entries: what the table may hold; host_slots: the host table's size.
  HostL7Table(uint32_t max_entries, uint32_t host_slots)
      : max_(std::min(max_entries, kMaxEntries)),
        cap_(max_ ? uint32_t(uint64_t(max_) + max_ / 4 + 1) : 0),
        hosts_(host_slots),
        t_(zero_array<L7Entry>(cap_)),
        state_(zero_array<uint8_t>(host_slots)) {}

  static uint16_t kid(uint32_t kind, uint32_t id) { return uint16_t(kind << 14 | (id & 0x3fff)); }
  bool enabled() const { return max_ != 0; }
  bool full(uint32_t host) const { return state_[host] & kFull; }
  void set_full(uint32_t host) { state_[host] |= kFull; }
  // The host in this slot expired: its entries become stale (and the slot's
  // next host starts with a clear full flag).
  void host_gone(uint32_t host) {
    state_[host] = uint8_t((state_[host] + 1) & kGenMask);
    dirty_ = 2;  // the cleaner's next wrap may come before it has seen every slot; the one after that not
  }

  // Requests the lines a credit() of this host will touch.
  void request(uint32_t host, uint16_t app, uint16_t cat, uint8_t dscp_a, uint8_t dscp_b) const {
    keep_prefetch(&state_[host]);
    prefetch_slot(home(host, kid(kL7App, app)));
    prefetch_slot(home(host, kid(kL7Cat, cat)));
    prefetch_slot(home(host, kid(kL7Dscp, dscp_a & 63)));
    if (dscp_a != dscp_b) prefetch_slot(home(host, kid(kL7Dscp, dscp_b & 63)));
  }

  // Credits one step to a host. All or nothing: false, and nothing changed,
  // when the table cannot take the host's new entries (a table at its
  // maximum refuses even if stale entries still wait for the cleaner).
  bool credit(uint32_t host, const L7Credit& c, uint32_t pass) noexcept {
    struct Want { uint16_t kid; uint64_t s_b, r_b, s_p, r_p; L7Entry* at; };
    Want want[4];
    int n = 0;
    want[n++] = {kid(kL7App, c.app), c.bytes_sent, c.bytes_rcvd, c.pkts_sent, c.pkts_rcvd, nullptr};
    want[n++] = {kid(kL7Cat, c.cat), c.bytes_sent, c.bytes_rcvd, 0, 0, nullptr};
    if (c.dscp_sent == c.dscp_rcvd) {
      want[n++] = {kid(kL7Dscp, c.dscp_sent & 63), c.bytes_sent, c.bytes_rcvd, c.pkts_sent, c.pkts_rcvd, nullptr};
    } else {  // a direction that carried nothing creates no entry
      if (c.pkts_sent) want[n++] = {kid(kL7Dscp, c.dscp_sent & 63), c.bytes_sent, 0, c.pkts_sent, 0, nullptr};
      if (c.pkts_rcvd) want[n++] = {kid(kL7Dscp, c.dscp_rcvd & 63), 0, c.bytes_rcvd, 0, c.pkts_rcvd, nullptr};
    }
    const uint32_t owner = owner_of(host);
    uint32_t missing = 0;
    for (int k = 0; k < n; k++) missing += !(want[k].at = find(owner, want[k].kid));
    if (missing) {
      if (used_ + missing > max_) return false;
      for (int k = 0; k < n; k++)
        if (!want[k].at) want[k].at = insert(owner, want[k].kid, uint16_t(pass - 1));  // the first credit adds a period
    }
    for (int k = 0; k < n; k++) {
      L7Entry& e = *want[k].at;
      const uint32_t kind = e.kid >> 14;
      // ntopng's nDPIStats adds its 5 s housekeeping period once per period
      // with traffic; we add our 5 s sweep pass once per pass with a credit.
      if (kind != kL7Dscp && e.pass != uint16_t(pass)) e.duration += kPeriod, e.pass = uint16_t(pass);
      const Want& x = want[k];
      if (kind == kL7App) e.flows += c.new_flow;
      add(e, 0, x.s_b), add(e, 1, x.r_b);
      if (kind != kL7Cat) add(e, 2, x.s_p), add(e, 3, x.r_p);
    }
    return true;
  }

  // Adds a value's hash to one of the host's contact sketches; false when
  // the table cannot take a new entry.
  bool contact_add(uint32_t host, ContactKind kind, uint32_t h) noexcept {
    L7Entry* e = kind_entry(host, kind);
    if (e) ContactSketch::add(reinterpret_cast<uint8_t*>(&e->flows), e->pass, h);
    return e != nullptr;
  }
  uint32_t contact_estimate(uint32_t host, ContactKind kind) const noexcept {
    const uint32_t owner = owner_of(host);
    const L7Entry* e = find(owner, uint16_t(kind));
    return e ? ContactSketch::estimate(reinterpret_cast<const uint8_t*>(&e->flows), e->pass) : 0;
  }
  // Plain counters in a kind-0 entry: four u64 where a sketch keeps its bytes.
  bool count_add(uint32_t host, ContactKind kind, int idx) noexcept {
    L7Entry* e = kind_entry(host, kind);
    if (!e) return false;
    uint64_t v;
    uint8_t* p = reinterpret_cast<uint8_t*>(&e->flows) + 8 * idx;
    std::memcpy(&v, p, 8), v++, std::memcpy(p, &v, 8);
    return true;
  }
  uint64_t count(uint32_t host, ContactKind kind, int idx) const noexcept {
    const L7Entry* e = find(owner_of(host), uint16_t(kind));
    if (!e) return 0;
    uint64_t v;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(&e->flows) + 8 * idx, 8);
    return v;
  }

  // A host's kind-0 entry, added when new; nullptr when the table is full.
  L7Entry* kind_entry(uint32_t host, ContactKind kind) noexcept {
    const uint32_t owner = owner_of(host);
    L7Entry* e = find(owner, uint16_t(kind));
    if (!e && used_ + 1 <= max_) e = insert(owner, uint16_t(kind), 0);
    return e;
  }

  // The sketch's count and an empty sketch after it (DomainNamesContacts' reset).
  uint32_t contact_take(uint32_t host, ContactKind kind) noexcept {
    const uint32_t owner = owner_of(host);
    L7Entry* e = find(owner, uint16_t(kind));
    if (!e) return 0;
    const uint32_t n = ContactSketch::estimate(reinterpret_cast<const uint8_t*>(&e->flows), e->pass);
    std::memset(&e->flows, 0, 32);
    e->pass = 0;
    return n;
  }

  // Reclaims stale entries among the next n slots (the sweep's pace).
  // Nothing to look at unless a host expired since the cleaner last went
  // all the way round.
  void clean(uint32_t n) noexcept {
    if (!cap_ || !dirty_) return;
    for (uint32_t k = 0; k < n && used_; k++) {
      const L7Entry& e = t_[cursor_];
      if (e.kid && stale(e)) {
        erase_at(cursor_);  // an entry may have moved in: look again
      } else if (++cursor_ == cap_) {
        cursor_ = 0;
        if (--dirty_ == 0) return;
      }
    }
  }

  // Entries still owned by a live host.
  uint32_t live() const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < cap_; i++) n += t_[i].kid && !stale(t_[i]);
    return n;
  }

  // Table rebuild: takes every live entry of `o`, whose host moved from slot
  // s to moved[s] (generation 0 here). The caller made sure there is room.
  void adopt(const HostL7Table& o, const uint32_t* moved) {
    for (uint32_t i = 0; i < o.cap_; i++) {
      const L7Entry& e = o.t_[i];
      if (!e.kid || o.stale(e)) continue;
      const uint32_t h = moved[e.owner & kHostMask];
      if (h == HashIndex::kNone) continue;
      if (o.full(e.owner & kHostMask)) set_full(h);
      L7Entry* d = insert(h, e.kid, e.pass);
      *d = e;
      d->owner = h;
    }
    for (int k = 1; k < 4; k++) id_end_[k] = std::max(id_end_[k], o.id_end_[k]);
  }

  HostL7Stats read(uint32_t host) const;
  // The counters of many hosts (a page of hosts): one pass over the table
  // when that is cheaper than looking every possible id up per host.
  void read_many(const uint32_t* hosts, size_t n, HostL7Stats* out) const;

  uint32_t used() const { return used_; }  // entries, stale ones included until reclaimed
  uint32_t max() const { return max_; }
  uint32_t slots() const { return cap_; }
  size_t memory_bytes(Mem m = Mem::Resident) const { return max_ ? mem_bytes(t_, m) + mem_bytes(state_, m) : 0; }

 private:
  // an entry's owner: the host slot and the slot's current generation
  uint32_t owner_of(uint32_t host) const { return host | uint32_t(state_[host] & kGenMask) << kHostBits; }
  uint32_t home(uint32_t host, uint16_t k) const {
    uint64_t h = mix64(uint64_t(host) << 16 | k);
    return uint32_t((h >> 32) * cap_ >> 32);
  }
  uint32_t home_of(const L7Entry& e) const { return home(e.owner & kHostMask, e.kid); }
  void prefetch_slot(uint32_t i) const {
    // An entry may straddle two lines: both are asked for (the same line
    // twice when it does not).
    const char* p = reinterpret_cast<const char*>(t_.get()) + size_t(i) * sizeof(L7Entry);
    keep_prefetch(p);
    keep_prefetch(p + sizeof(L7Entry) - 1);
  }
  uint32_t next(uint32_t i) const { return i + 1 == cap_ ? 0 : i + 1; }
  bool stale(const L7Entry& e) const { return (state_[e.owner & kHostMask] & kGenMask) != e.owner >> kHostBits; }

  L7Entry* find(uint32_t owner, uint16_t k) {
    if (!cap_) return nullptr;
    for (uint32_t i = home(owner & kHostMask, k);; i = next(i)) {
      L7Entry& e = t_[i];
      if (e.kid == 0) return nullptr;
      if (e.kid == k && e.owner == owner) return &e;
    }
  }
  const L7Entry* find(uint32_t owner, uint16_t k) const { return const_cast<HostL7Table*>(this)->find(owner, k); }

  // A new zeroed entry: the first stale slot on the probe path, else the
  // empty one that ends it. The key must be absent and used_ < max_ (so an
  // empty slot exists).
  L7Entry* insert(uint32_t owner, uint16_t k, uint16_t pass) {
    uint32_t i = home(owner & kHostMask, k), reuse = HashIndex::kNone;
    for (; t_[i].kid; i = next(i))
      if (reuse == HashIndex::kNone && stale(t_[i])) reuse = i;
    if (reuse != HashIndex::kNone) i = reuse;
    else used_++;
    L7Entry& e = t_[i];
    std::memset(&e, 0, sizeof(e));
    e.owner = owner, e.kid = k, e.pass = pass;
    const uint32_t kind = k >> 14, id = k & 0x3fff;
    if (id >= id_end_[kind]) id_end_[kind] = id + 1;
    return &e;
  }

  // Backward-shift deletion (Knuth 6.4 algorithm R), as HashIndex::erase.
  void erase_at(uint32_t i) {
    for (uint32_t j = next(i);; j = next(j)) {
      if (t_[j].kid == 0) break;
      const uint32_t h = home_of(t_[j]);
      bool keep = (i <= j) ? (i < h && h <= j) : (i < h || h <= j);
      if (keep) continue;
      t_[i] = t_[j];
      i = j;
    }
    std::memset(&t_[i], 0, sizeof(L7Entry));
    used_--;
  }

  static void add(L7Entry& e, int w, uint64_t v) {
    uint64_t x = (uint64_t(e.hi[w]) << 32 | e.lo[w]) + v;
    e.lo[w] = uint32_t(x), e.hi[w] = uint16_t(x >> 32);
  }
  static uint64_t get(const L7Entry& e, int w) { return uint64_t(e.hi[w]) << 32 | e.lo[w]; }
  static void append(HostL7Stats& s, const L7Entry& e) {
    const uint16_t id = e.kid & 0x3fff;
    switch (e.kid >> 14) {
      case kL7App: s.apps.push_back({id, get(e, 0), get(e, 1), get(e, 2), get(e, 3), e.flows, e.duration}); break;
      case kL7Cat: s.cats.push_back({id, get(e, 0), get(e, 1), e.duration}); break;
      case kL7Dscp: s.dscp.push_back({uint8_t(id), get(e, 0), get(e, 1), get(e, 2), get(e, 3)}); break;
    }
  }
  static void sort(HostL7Stats& s) {
    auto by_id = [](const auto& a, const auto& b) { return a.id < b.id; };
    std::sort(s.apps.begin(), s.apps.end(), by_id);
    std::sort(s.cats.begin(), s.cats.end(), by_id);
    std::sort(s.dscp.begin(), s.dscp.end(), [](const auto& a, const auto& b) { return a.dscp < b.dscp; });
  }

  uint32_t max_, cap_, hosts_;
  uint32_t used_ = 0, cursor_ = 0;
  uint32_t dirty_ = 0;  // wraps of the cleaner still needed for the hosts gone so far
  uint32_t id_end_[4] = {0, 0, 0, 0};  // per kind: above every id ever stored (what read() looks up)
  ZeroArray<L7Entry> t_;
  ZeroArray<uint8_t> state_;  // per host slot: generation | kFull
};

inline HostL7Stats HostL7Table::read(uint32_t host) const {
  HostL7Stats s;
  if (!cap_) return s;
  const uint32_t owner = owner_of(host);
  for (uint32_t kind = kL7App; kind <= kL7Dscp; kind++)
    for (uint32_t id = 0; id < id_end_[kind]; id++)
      if (const L7Entry* e = find(owner, kid(kind, id))) append(s, *e);
  return s;  // found in id order
}

inline void HostL7Table::read_many(const uint32_t* hosts, size_t n, HostL7Stats* out) const {
  if (!cap_) return;
  const uint64_t per_host = uint64_t(id_end_[1]) + id_end_[2] + id_end_[3];
  if (n * per_host * 4 < cap_) {  // a lookup costs about as much as reading 4 slots in a row
    for (size_t k = 0; k < n; k++) out[k] = read(hosts[k]);
    return;
  }
  std::vector<uint32_t> row(hosts_, HashIndex::kNone);
  for (size_t k = 0; k < n; k++) row[hosts[k]] = uint32_t(k);
  for (uint32_t i = 0; i < cap_; i++) {
    const L7Entry& e = t_[i];
    if (!e.kid || stale(e)) continue;
    const uint32_t r = row[e.owner & kHostMask];
    if (r != HashIndex::kNone) append(out[r], e);
  }
  for (size_t k = 0; k < n; k++) sort(out[k]);
}

}  // namespace fg
