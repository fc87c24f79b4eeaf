// ④ Hostname → application, with nDPI's host patterns (data/hosts.tsv, see
// data/hosts-README.md for nDPI's rules). Built once into a hash map of
// domain suffixes: a name is looked up suffix by suffix at label boundaries,
// most labels first (nDPI's rule), so "r3---sn-x.googlevideo.com" finds
// "googlevideo.com"; patterns ending in '.' or '-' match at any label start.
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dpi/dpi.h"

namespace fg {
namespace {

#include "dpi/generated/hosts.inc"

struct HostTable {
  std::unordered_map<std::string_view, uint16_t> suffix;  // "googlevideo.com"
  // "amazon.", "s3-": at any label start; indexed by their first token (up
  // to the first '.' or '-') so a name costs one lookup per label.
  std::unordered_map<std::string_view, std::vector<std::pair<std::string_view, uint16_t>>> label_prefix;
  std::vector<std::pair<std::string_view, uint16_t>> raw_suffix;    // "-ant.example.com": the end, no boundary
  HostTable() {
    static const std::pair<const char*, uint16_t> kHosts[] = {
#define FG_X(pattern, id) {pattern, id},
        FG_HOSTS(FG_X)
#undef FG_X
        {"", 0}};
    for (const auto& [pattern, id] : kHosts) {
      std::string_view p(pattern);
      if (p.empty() || !id) continue;
      if (p.front() == '.') p.remove_prefix(1);
      if (p.empty()) continue;
      if (p.back() == '.' || p.back() == '-') label_prefix[p.substr(0, p.find_first_of(".-"))].emplace_back(p, id);
      else if (p.front() == '-') raw_suffix.emplace_back(p, id);
      else suffix.emplace(p, id);
    }
  }
};

const HostTable& table() {
  static const HostTable t;
  return t;
}

uint16_t lookup(std::string_view name);  // nDPI's matching rules, below

}  // namespace

uint16_t app_by_host(const char* host, size_t len) {
  if (len == 0 || len > 253) return 0;
  char buf[256];
  for (size_t i = 0; i < len; i++) buf[i] = (host[i] >= 'A' && host[i] <= 'Z') ? char(host[i] + 32) : host[i];
  while (len && buf[len - 1] == '.') len--;  // a fully qualified "example.com."
  std::string_view name(buf, len);
  // The same names come back all the time (every flow to a service): the
  // answer for a recent name is remembered per worker thread, keyed by a
  // 64-bit digest of the lower-cased name and its length.
  uint64_t key = mix64(len * 0x9e3779b97f4a7c15ULL);
  for (size_t i = 0; i < len; i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, buf + i, std::min<size_t>(8, len - i));
    key = mix64(key ^ w);
  }
  struct Remembered {
    uint64_t key;
    uint16_t app;
  };
  static thread_local Remembered recent[1024] = {};
  Remembered& r = recent[key & 1023];
  if (r.key == key && key) return r.app;
  const uint16_t app = lookup(name);
  r = {key, app};
  return app;
}

namespace {

uint16_t lookup(std::string_view name) {
  const HostTable& t = table();
  // nDPI's rule: the match with the most labels wins; on a tie, the one
  // ending first ("mail.google." beats "google.com" in mail.google.com).
  uint16_t best = 0;
  size_t best_labels = 0, best_end = 0;
  auto consider = [&](uint16_t id, std::string_view pattern, size_t end) {
    size_t labels = 1;
    for (char ch : pattern.substr(0, pattern.size() - 1)) labels += ch == '.';
    if (labels > best_labels || (labels == best_labels && end < best_end)) best = id, best_labels = labels, best_end = end;
  };
  for (size_t at = 0; at < name.size();) {  // longest suffix first: the first hit has the most labels
    auto it = t.suffix.find(name.substr(at));
    if (it != t.suffix.end()) {
      consider(it->second, it->first, name.size());
      break;
    }
    size_t dot = name.find('.', at);
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  for (const auto& [p, id] : t.raw_suffix)
    if (name.size() >= p.size() && name.substr(name.size() - p.size()) == p) consider(id, p, name.size());
  for (size_t pos = 0; pos < name.size();) {
    size_t tok_end = name.find_first_of(".-", pos);
    if (tok_end == std::string_view::npos) tok_end = name.size();
    auto it = t.label_prefix.find(name.substr(pos, tok_end - pos));
    if (it != t.label_prefix.end())
      for (const auto& [p, id] : it->second)
        if (name.substr(pos, p.size()) == p) consider(id, p, pos + p.size());
    size_t dot = name.find('.', pos);
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return best;
}

}  // namespace

}  // namespace fg
