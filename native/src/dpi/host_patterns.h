// ④ Host name patterns with nDPI's matching rules (see data/hosts-README.md):
// "googlevideo.com" matches the name and its subdomains at label
// boundaries; a pattern ending in '.' or '-' ("amazon.", "s3-") matches at
// any label start; one starting with '-' matches the end of the name. The
// match with the most labels wins; on a tie, the one ending first. Used for
// nDPI's host list (host_match.cpp) and the operator's rules (user_rules).
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fg {

class HostPatterns {
 public:
  // `pattern` in lower case; "*.example.com" and ".example.com" are
  // "example.com". With `copy` false the pattern must outlive the table.
  void add(std::string_view pattern, uint16_t value, bool copy = true);
  // `name` in lower case, without a trailing dot; 0 when nothing matches.
  uint16_t find(std::string_view name) const;
  bool empty() const { return suffix_.empty() && label_prefix_.empty() && raw_suffix_.empty(); }

 private:
  std::deque<std::string> owned_;
  std::unordered_map<std::string_view, uint16_t> suffix_;  // "googlevideo.com"
  // "amazon.", "s3-": indexed by their first token (up to the first '.' or
  // '-') so a name costs one lookup per label.
  std::unordered_map<std::string_view, std::vector<std::pair<std::string_view, uint16_t>>> label_prefix_;
  std::vector<std::pair<std::string_view, uint16_t>> raw_suffix_;  // "-ant.example.com"
};

}  // namespace fg
