// ⑤ Egress policies (nProbe Cento's egress model): per target a default
// action, subnet rules (longest prefix wins; a packet matches when its source
// or destination lies in the subnet) and application-protocol rules (nDPI ids;
// a rule on a master protocol covers master.app unless the app has its own).
// Precedence: protocol rule, then subnet rule, then the default.
//
// A PolicyTable is built whole on the JS thread, never changed afterwards, and
// swapped in between two batches (engine.cpp). Lookups allocate nothing: a
// multibit trie (8-bit strides, leaf-pushed) per address family gives the
// longest matching prefix in at most 4 (IPv4) or 16 (IPv6) steps, and the
// protocol rules are an array indexed by id.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "decode/packet.h"

namespace fg {

enum class Action : uint8_t { Forward = 0, Discard = 1, Shunt = 2, SliceL4 = 3, SliceL3 = 4 };
constexpr int kActionCount = 5;
const char* action_name(Action a);
bool parse_action(const std::string& s, Action& out);

// Longest-prefix match over addresses of one family (4 or 16 bytes).
class PrefixTrie {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;
  // `bits` counted from the first byte; a later insert of the same prefix replaces.
  void insert(const uint8_t* addr, int bits, uint32_t rule);
  // The longest prefix holding addr: its rule (kNone if none) and length.
  uint32_t lookup(const uint8_t* addr, int nbytes, int& bits) const noexcept {
    bits = -1;
    if (nodes_.empty()) return kNone;
    uint32_t best = root_rule_, node = 0;  // rule indexes are < 2^24 (the binding allows 65535)
    if (best != kNone) bits = 0;
    for (int i = 0; i < nbytes; i++) {
      const Entry& e = nodes_[size_t(node) * 256 + addr[i]];
      if (e.rule_bits != kNoRule) best = e.rule(), bits = e.bits();
      if (!e.child) break;
      node = e.child;
    }
    return best;
  }
  bool empty() const { return nodes_.empty(); }
  size_t memory_bytes() const { return nodes_.capacity() * sizeof(Entry); }

 private:
  // 8 bytes: the child node, and the longest prefix ending in this stride
  // that covers this entry (rule index in 24 bits, its length in 8).
  struct Entry {
    uint32_t child = 0;          // node index (0: none; the root is never a child)
    uint32_t rule_bits = kNoRule;
    uint32_t rule() const { return rule_bits >> 8; }
    int bits() const { return int(rule_bits & 0xff); }
  };
  static constexpr uint32_t kNoRule = 0xffffff00u;
  uint32_t new_node();
  std::vector<Entry> nodes_;
  uint32_t root_rule_ = kNone;  // a /0
};

struct PolicyRule {
  enum Scope : uint8_t { Default = 0, Subnet = 1, Protocol = 2 };
  Scope scope;
  Action action;
  std::string match;  // the CIDR as given, or the protocol id
};

struct RuleCounters {
  uint64_t packets = 0, bytes = 0;
};

// The policy of one target (an aggregated queue, the balanced target, the bridge).
struct TargetPolicy {
  std::vector<PolicyRule> rules;   // [0] the default, then subnets, then protocols
  PrefixTrie v4, v6;
  std::vector<uint16_t> proto;     // nDPI id → rule index (0: no rule; 0 is the default)
  std::unique_ptr<RuleCounters[]> counters;  // per worker (lane) and rule: [lane * rules + rule]; each worker writes its own

  explicit TargetPolicy(Action def = Action::Forward);
  // Returns false (and an explanation) for a duplicate or malformed rule.
  bool add_subnet(const std::string& cidr, Action a, std::string& why);
  bool add_protocol(uint32_t id, Action a, std::string& why);
  void finish(uint32_t lanes = 1);  // allocates the counters

  // Which rule decides for a packet. `classified`: the flow's classification
  // decided (then app, else master, else Unknown (0) rules apply).
  uint32_t decide(const IpAddr& src, const IpAddr& dst, bool ip, bool classified, uint16_t master, uint16_t app) const noexcept {
    if (classified && !proto.empty()) {
      if (app) {
        if (app < proto.size() && proto[app]) return proto[app];
        if (master && master < proto.size() && proto[master]) return proto[master];
      } else if (proto[0]) {
        return proto[0];
      }
    }
    if (!ip) return 0;
    const bool is4 = src.is_v4();
    const PrefixTrie& t = is4 ? v4 : v6;
    if (t.empty()) return 0;
    const int off = is4 ? 12 : 0, n = is4 ? 4 : 16;
    int bs, bd;
    uint32_t rs = t.lookup(src.b + off, n, bs), rd = t.lookup(dst.b + off, n, bd);
    // Longest prefix wins; at equal length the rule listed first.
    if (bs > bd || (bs == bd && rs < rd)) return rs == PrefixTrie::kNone ? 0 : rs;
    return rd == PrefixTrie::kNone ? 0 : rd;
  }

 private:
  std::map<std::string, std::string> seen_;  // while building: subnets given so far
};

// Packets forwarded per flow under the shunt action: per application id
// (then its master), else per IP protocol, else the default.
struct ShuntConfig {
  uint32_t def = 10;
  int32_t l4[256];
  std::vector<int32_t> apps;  // by nDPI id; -1 unset
  ShuntConfig() {
    for (auto& v : l4) v = -1;
  }
  uint32_t limit(uint8_t l4_proto, bool classified, uint16_t master, uint16_t app) const noexcept {
    if (classified) {
      if (app && app < apps.size() && apps[app] >= 0) return uint32_t(apps[app]);
      if (master && master < apps.size() && apps[master] >= 0) return uint32_t(apps[master]);
    }
    if (l4[l4_proto] >= 0) return uint32_t(l4[l4_proto]);
    return def;
  }
};

// One table for every target of an engine, in the engine's target order.
struct PolicyTable {
  ShuntConfig shunt;
  std::vector<std::unique_ptr<TargetPolicy>> targets;
};

}  // namespace fg
