#include "egress/policy.h"

#include "dpi/registry.h"
#include "flow/local_nets.h"

namespace fg {

const char* action_name(Action a) {
  switch (a) {
    case Action::Forward: return "forward";
    case Action::Discard: return "discard";
    case Action::Shunt: return "shunt";
    case Action::SliceL4: return "slice-l4";
    case Action::SliceL3: return "slice-l3";
  }
  return "forward";
}

bool parse_action(const std::string& s, Action& out) {
  for (int i = 0; i < kActionCount; i++)
    if (s == action_name(Action(i))) {
      out = Action(i);
      return true;
    }
  return false;
}

uint32_t PrefixTrie::new_node() {
  uint32_t n = uint32_t(nodes_.size() / 256);
  nodes_.resize(nodes_.size() + 256);
  return n;
}

void PrefixTrie::insert(const uint8_t* addr, int bits, uint32_t rule) {
  if (nodes_.empty()) new_node();
  if (bits == 0) {
    root_rule_ = rule;
    return;
  }
  // The stride holding the prefix's last bit, and how many of its 8 bits the prefix fixes.
  const int level = (bits - 1) / 8, fixed = bits - level * 8;
  uint32_t node = 0;
  for (int i = 0; i < level; i++) {
    uint32_t c = nodes_[size_t(node) * 256 + addr[i]].child;
    if (!c) {
      c = new_node();  // may move nodes_: index again below
      nodes_[size_t(node) * 256 + addr[i]].child = c;
    }
    node = c;
  }
  const uint32_t span = 1u << (8 - fixed);
  const uint32_t first = addr[level] & uint32_t(0xff << (8 - fixed)) & 0xff;
  for (uint32_t k = first; k < first + span; k++) {
    Entry& e = nodes_[size_t(node) * 256 + k];
    // Leaf pushing: the longer prefix keeps an entry; the same length replaces.
    if (e.rule_bits == kNoRule || e.bits() <= bits) e.rule_bits = rule << 8 | uint32_t(bits);
  }
}

TargetPolicy::TargetPolicy(Action def) { rules.push_back({PolicyRule::Default, def, ""}); }

bool TargetPolicy::add_subnet(const std::string& cidr, Action a, std::string& why) {
  Cidr c;
  if (!parse_cidr(cidr, c)) {
    why = "invalid CIDR '" + cidr + "'";
    return false;
  }
  const int bits = c.v4 ? c.bits - 96 : c.bits;
  // Duplicates (also written differently: 10.1.2.3/8 and 10.0.0.0/8) are refused.
  std::string key(reinterpret_cast<const char*>(c.net.b), 16);
  key.push_back(char(c.bits));
  auto [it, fresh] = seen_.emplace(key, cidr);
  if (!fresh) {
    why = "duplicate subnet '" + cidr + "' (same as '" + it->second + "')";
    return false;
  }
  uint32_t idx = uint32_t(rules.size());
  rules.push_back({PolicyRule::Subnet, a, cidr});
  if (c.v4) v4.insert(c.net.b + 12, bits, idx);
  else v6.insert(c.net.b, bits, idx);
  return true;
}

bool TargetPolicy::add_protocol(uint32_t id, Action a, std::string& why) {
  if (id > 0xffff || !proto_info(uint16_t(id))) {
    why = "unknown nDPI protocol id " + std::to_string(id);
    return false;
  }
  if (id < proto.size() && proto[id]) {
    why = "duplicate protocol id " + std::to_string(id);
    return false;
  }
  if (proto.size() <= id) proto.resize(size_t(id) + 1, 0);
  proto[id] = uint16_t(rules.size());
  rules.push_back({PolicyRule::Protocol, a, std::to_string(id)});
  return true;
}

void TargetPolicy::finish(uint32_t lanes) {
  counters.reset(new RuleCounters[size_t(lanes) * rules.size()]());
  seen_.clear();
}

}  // namespace fg
