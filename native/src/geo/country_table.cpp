// Reading a MaxMind DB (the format's published specification, "MaxMind DB
// File Format Specification" 2.0): the binary search tree is walked once,
// every network reaching a data record gives that record's country
// (GeoIP2's country.iso_code, DB-IP Lite's country_code, as the API's
// reader takes them), and neighbouring networks of one country are merged
// into ranges. Bounds are checked everywhere: a damaged file is an error,
// never a read outside the mapping.
#include "geo/country_table.h"

#include "util/published.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace fg {
namespace {

using U128 = PrefixTable::U128;

enum : int { kPointer = 1, kString = 2, kDouble = 3, kBytes = 4, kU16 = 5, kU32 = 6, kMap = 7, kI32 = 8, kU64 = 9, kU128 = 10, kArray = 11, kContainer = 12, kEnd = 13, kBool = 14, kFloat = 15 };

// The data section (or the metadata) of one file: decoding with bounds checks.
struct Section {
  const uint8_t* p = nullptr;
  size_t n = 0;

  // The control byte(s) at `off`: type and size; a pointer's target in `size`.
  bool ctrl(size_t& off, int& type, uint32_t& size) const {
    if (off >= n) return false;
    const uint8_t b = p[off++];
    type = b >> 5;
    if (type == kPointer) {
      const uint32_t ss = (b >> 3) & 3, v = b & 7;
      const size_t need = ss + 1;
      if (off + need > n) return false;
      const uint8_t* q = p + off;
      off += need;
      switch (ss) {
        case 0: size = (v << 8) | q[0]; break;
        case 1: size = ((v << 16) | (uint32_t(q[0]) << 8) | q[1]) + 2048; break;
        case 2: size = ((v << 24) | (uint32_t(q[0]) << 16) | (uint32_t(q[1]) << 8) | q[2]) + 526336; break;
        default: size = (uint32_t(q[0]) << 24) | (uint32_t(q[1]) << 16) | (uint32_t(q[2]) << 8) | q[3];
      }
      return true;
    }
    if (type == 0) {  // extended type
      if (off >= n) return false;
      type = 7 + p[off++];
    }
    size = b & 0x1f;
    if (size >= 29) {
      const size_t extra = size - 28;
      if (off + extra > n) return false;
      const uint8_t* q = p + off;
      off += extra;
      if (size == 29) size = 29 + q[0];
      else if (size == 30) size = 285 + ((uint32_t(q[0]) << 8) | q[1]);
      else size = 65821 + ((uint32_t(q[0]) << 16) | (uint32_t(q[1]) << 8) | q[2]);
    }
    return true;
  }

  // Where the value at `off` is (a pointer followed once, as the format allows).
  bool resolve(size_t off, size_t& at) const {
    size_t o = off;
    int t;
    uint32_t s;
    if (!ctrl(o, t, s)) return false;
    at = t == kPointer ? size_t(s) : off;
    return at < n;
  }

  // Past the value at `off` (a pointer counts as its own bytes).
  bool skip(size_t& off, int depth = 0) const {
    int t;
    uint32_t s;
    if (depth > 32 || !ctrl(off, t, s)) return false;
    switch (t) {
      case kPointer: case kBool: case kContainer: case kEnd: return true;
      case kMap:
        for (uint32_t i = 0; i < s; i++)
          if (!skip(off, depth + 1) || !skip(off, depth + 1)) return false;
        return true;
      case kArray:
        for (uint32_t i = 0; i < s; i++)
          if (!skip(off, depth + 1)) return false;
        return true;
      default:
        if (off + s > n) return false;
        off += s;
        return true;
    }
  }

  bool str(size_t off, std::string_view& out) const {
    size_t at;
    if (!resolve(off, at)) return false;
    int t;
    uint32_t s;
    if (!ctrl(at, t, s) || t != kString || at + s > n) return false;
    out = std::string_view(reinterpret_cast<const char*>(p + at), s);
    return true;
  }

  bool uint(size_t off, uint64_t& v) const {
    size_t at;
    if (!resolve(off, at)) return false;
    int t;
    uint32_t s;
    if (!ctrl(at, t, s) || (t != kU16 && t != kU32 && t != kU64) || s > 8 || at + s > n) return false;
    v = 0;
    for (uint32_t i = 0; i < s; i++) v = v << 8 | p[at + i];
    return true;
  }

  // The value of `key` in the map at `off`.
  bool find(size_t off, std::string_view key, size_t& value) const {
    size_t at;
    if (!resolve(off, at)) return false;
    int t;
    uint32_t s;
    if (!ctrl(at, t, s) || t != kMap) return false;
    for (uint32_t i = 0; i < s; i++) {
      std::string_view k;
      if (!str(at, k) || !skip(at)) return false;
      if (k == key) {
        value = at;
        return true;
      }
      if (!skip(at)) return false;
    }
    return false;
  }
};

struct Interval {
  U128 start, end;
  uint16_t cc;
};

class Mmdb {
 public:
  ~Mmdb() {
    if (base_ && base_ != MAP_FAILED) munmap(const_cast<uint8_t*>(base_), size_);
  }

  bool open(const std::string& path, std::string& err) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(err, path + ": " + std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
      ::close(fd);
      return fail(err, path + ": empty or unreadable");
    }
    size_ = size_t(st.st_size);
    void* m = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (m == MAP_FAILED) return fail(err, path + ": " + std::strerror(errno));
    base_ = static_cast<const uint8_t*>(m);
    // the metadata follows the last "\xAB\xCD\xEFMaxMind.com" (within the file's last 128 KiB)
    static constexpr char kMarker[] = "\xAB\xCD\xEFMaxMind.com";
    const size_t mlen = sizeof(kMarker) - 1, from = size_ > (128u << 10) ? size_ - (128u << 10) : 0;
    size_t meta = 0;
    for (size_t i = size_ >= mlen ? size_ - mlen + 1 : 0; i-- > from;)
      if (std::memcmp(base_ + i, kMarker, mlen) == 0) {
        meta = i + mlen;
        break;
      }
    if (!meta) return fail(err, path + ": not a MaxMind database (no metadata marker)");
    const Section md{base_ + meta, size_ - meta};
    uint64_t nodes = 0, rs = 0, ipv = 0;
    size_t v;
    if (!md.find(0, "node_count", v) || !md.uint(v, nodes) || !md.find(0, "record_size", v) || !md.uint(v, rs) || !md.find(0, "ip_version", v) ||
        !md.uint(v, ipv))
      return fail(err, path + ": metadata without node_count, record_size or ip_version");
    if ((rs != 24 && rs != 28 && rs != 32) || (ipv != 4 && ipv != 6)) return fail(err, path + ": unsupported record size or IP version");
    node_count_ = uint32_t(nodes), record_bits_ = unsigned(rs), ip_version_ = unsigned(ipv);
    const size_t tree = size_t(record_bits_) * 2 / 8 * node_count_;
    if (nodes > 0xffffffffull || tree + 16 > meta) return fail(err, path + ": search tree larger than the file");
    data_ = Section{base_ + tree + 16, meta - mlen - tree - 16};
    return true;
  }

  // Every network with a country, in address order, neighbours of one country merged.
  void walk(std::vector<Interval>& out, size_t& networks) {
    if (ip_version_ == 4) {
      walk_from(0, 32, U128(0xffff) << 32, 96, out, networks, kNoSkip);
      return;
    }
    // IPv4 lives under ::/96 in an IPv6 tree (and aliases point there):
    // walked once as v4-mapped addresses, the IPv6 walk skipping it.
    uint32_t v4 = 0;
    for (int i = 0; i < 96 && v4 < node_count_; i++) v4 = record(v4, 0);
    std::vector<Interval> mapped;
    if (v4 < node_count_) walk_from(v4, 32, U128(0xffff) << 32, 96, mapped, networks, kNoSkip);
    std::vector<Interval> six;
    walk_from(0, 128, 0, 0, six, networks, v4 < node_count_ ? v4 : kNoSkip);
    // both in address order: merged, an overlap keeping the IPv4 walk's
    std::vector<Interval> all;
    all.reserve(mapped.size() + six.size());
    std::merge(mapped.begin(), mapped.end(), six.begin(), six.end(), std::back_inserter(all), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    for (const Interval& x : all)
      if (out.empty() || x.start > out.back().end) out.push_back(x);
  }

 private:
  static constexpr uint32_t kNoSkip = 0xffffffffu;

  static bool fail(std::string& err, std::string msg) {
    err = std::move(msg);
    return false;
  }

  uint32_t record(uint32_t node, int bit) const {
    const uint8_t* q;
    switch (record_bits_) {
      case 24:
        q = base_ + size_t(node) * 6 + bit * 3;
        return (uint32_t(q[0]) << 16) | (uint32_t(q[1]) << 8) | q[2];
      case 28:
        q = base_ + size_t(node) * 7;
        return bit ? ((uint32_t(q[3] & 0x0f) << 24) | (uint32_t(q[4]) << 16) | (uint32_t(q[5]) << 8) | q[6])
                   : ((uint32_t(q[3] >> 4) << 24) | (uint32_t(q[0]) << 16) | (uint32_t(q[1]) << 8) | q[2]);
      default:
        q = base_ + size_t(node) * 8 + bit * 4;
        return (uint32_t(q[0]) << 24) | (uint32_t(q[1]) << 16) | (uint32_t(q[2]) << 8) | q[3];
    }
  }

  // The country of the data record at `off` (0: none); remembered per record.
  uint16_t country(size_t off) {
    CacheSlot& c = cache_[(off * 0x9e3779b97f4a7c15ULL) >> 48];
    if (c.off == off + 1) return c.cc;
    uint16_t cc = 0;
    size_t v, w;
    std::string_view s;
    if ((data_.find(off, "country", v) && data_.find(v, "iso_code", w) && data_.str(w, s)) || (data_.find(off, "country_code", v) && data_.str(v, s)))
      if (s.size() == 2) cc = country_code(s[0], s[1]);
    c = {off + 1, cc};
    return cc;
  }

  // Depth-first, the 0 branch first: networks come out in address order
  // (the recursion is at most 128 deep), neighbours of one country merged.
  void walk_from(uint32_t root, unsigned bits, U128 base, unsigned base_len, std::vector<Interval>& out, size_t& networks, uint32_t skip) {
    visit(root, 0, 0, bits, base, base_len, out, networks, skip);
  }

  void visit(uint32_t node, unsigned depth, U128 prefix, unsigned bits, U128 base, unsigned base_len, std::vector<Interval>& out, size_t& networks,
             uint32_t skip) {
    for (int bit = 0; bit < 2; bit++) {
      const uint32_t r = record(node, bit);
      const unsigned d = depth + 1;
      const U128 p = prefix | (U128(bit) << (bits - d));
      if (r < node_count_) {
        if (d < bits && r != skip) visit(r, d, p, bits, base, base_len, out, networks, skip);
        continue;
      }
      if (r == node_count_) continue;  // no data
      networks++;
      const uint16_t cc = country(size_t(r) - node_count_ - 16);
      if (!cc) continue;
      const unsigned len = base_len + d;
      const U128 start = base | p, end = start | (len >= 128 ? U128(0) : (~U128(0) >> len));
      if (!out.empty() && out.back().cc == cc && out.back().end + 1 == start) out.back().end = end;
      else out.push_back({start, end, cc});
    }
  }

  struct CacheSlot {
    size_t off;
    uint16_t cc;
  };
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  uint32_t node_count_ = 0;
  unsigned record_bits_ = 0, ip_version_ = 0;
  Section data_;
  std::vector<CacheSlot> cache_ = std::vector<CacheSlot>(65536);
};

}  // namespace

bool load_country_table(const std::vector<std::string>& files, std::shared_ptr<CountryTable>& out, std::string& err) {
  auto t = std::make_shared<CountryTable>();
  std::vector<Interval> all;
  for (const std::string& f : files) {
    Mmdb db;
    if (!db.open(f, err)) return false;
    std::vector<Interval> v;
    db.walk(v, t->networks);
    std::vector<Interval> merged;
    merged.reserve(all.size() + v.size());
    std::merge(all.begin(), all.end(), v.begin(), v.end(), std::back_inserter(merged), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    all.clear();
    for (const Interval& x : merged)  // an earlier file keeps an overlap
      if (all.empty() || x.start > all.back().end) all.push_back(x);
  }
  // disjoint ranges [start, next start): 0 where no country
  std::vector<U128> starts;
  std::vector<uint16_t> values;
  starts.reserve(all.size() * 2 + 1), values.reserve(all.size() * 2 + 1);
  auto put = [&](U128 at, uint16_t v) {
    if (!starts.empty() && starts.back() == at) values.back() = v;
    else starts.push_back(at), values.push_back(v);
    if (values.size() >= 2 && values[values.size() - 2] == values.back()) starts.pop_back(), values.pop_back();
  };
  put(0, 0);
  for (const Interval& x : all) {
    put(x.start, x.cc);
    if (x.end != ~U128(0)) put(x.end + 1, 0);
  }
  t->ranges = PrefixTable::from_ranges(std::move(starts), std::move(values));
  out = std::move(t);
  return true;
}

const CountryTable* country_table() { return Published<CountryTable>::here(); }

void set_country_table(std::shared_ptr<const CountryTable> t) { Published<CountryTable>::publish(std::move(t)); }

}  // namespace fg
