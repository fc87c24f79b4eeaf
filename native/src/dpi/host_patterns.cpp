#include "dpi/host_patterns.h"

namespace fg {

void HostPatterns::add(std::string_view p, uint16_t value, bool copy) {
  if (p.substr(0, 2) == "*.") p.remove_prefix(1);
  if (!p.empty() && p.front() == '.') p.remove_prefix(1);
  if (p.empty() || !value) return;
  if (copy) p = owned_.emplace_back(p);
  if (p.back() == '.' || p.back() == '-') label_prefix_[p.substr(0, p.find_first_of(".-"))].emplace_back(p, value);
  else if (p.front() == '-') raw_suffix_.emplace_back(p, value);
  else suffix_.emplace(p, value);  // the first of a duplicate stays
}

uint16_t HostPatterns::find(std::string_view name) const {
  uint16_t best = 0;
  size_t best_labels = 0, best_end = 0;
  auto consider = [&](uint16_t id, std::string_view pattern, size_t end) {
    size_t labels = 1;
    for (char ch : pattern.substr(0, pattern.size() - 1)) labels += ch == '.';
    if (labels > best_labels || (labels == best_labels && end < best_end)) best = id, best_labels = labels, best_end = end;
  };
  if (!suffix_.empty())
    for (size_t at = 0; at < name.size();) {  // longest suffix first: the first hit has the most labels
      auto it = suffix_.find(name.substr(at));
      if (it != suffix_.end()) {
        consider(it->second, it->first, name.size());
        break;
      }
      size_t dot = name.find('.', at);
      if (dot == std::string_view::npos) break;
      at = dot + 1;
    }
  for (const auto& [p, id] : raw_suffix_)
    if (name.size() >= p.size() && name.substr(name.size() - p.size()) == p) consider(id, p, name.size());
  if (!label_prefix_.empty())
    for (size_t pos = 0; pos < name.size();) {
      size_t tok_end = name.find_first_of(".-", pos);
      if (tok_end == std::string_view::npos) tok_end = name.size();
      auto it = label_prefix_.find(name.substr(pos, tok_end - pos));
      if (it != label_prefix_.end())
        for (const auto& [p, id] : it->second)
          if (name.substr(pos, p.size()) == p) consider(id, p, pos + p.size());
      size_t dot = name.find('.', pos);
      if (dot == std::string_view::npos) break;
      pos = dot + 1;
    }
  return best;
}

}  // namespace fg
