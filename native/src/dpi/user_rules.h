// ④ The operator's classification rules, changed at run time: custom
// protocols in nDPI's protos.txt terms (-p, edit/application: ports, host
// names, addresses), a category per protocol (edit/application's category)
// and the custom hosts of categories (edit/category). One immutable
// snapshot, replaced whole from the JS thread; every thread reads the
// current one through user_rules(): one atomic load while nothing changed,
// no lock on the packet path (the snapshot is looked at per new flow and
// per classification, never per packet).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "decode/packet.h"
#include "dpi/host_patterns.h"
#include "dpi/prefix_table.h"
#include "dpi/registry.h"
#include "util/published.h"

namespace fg {

// Application ids are below this (host L7 entries keep 14 bits of id).
constexpr uint16_t kMaxAppId = 16384;

struct UserRules {
  struct Proto {
    std::string name;
    ProtoInfo info;  // info.name points into name
  };

  uint64_t version = 0;                            // set by set_user_rules
  std::vector<std::unique_ptr<Proto>> protos;      // the custom protocols
  std::unordered_map<uint16_t, const Proto*> by_id;
  std::unordered_map<uint16_t, uint16_t> category; // protocol id → category, set by the operator
  std::vector<uint16_t> tcp_port, udp_port;        // 65536 entries when a port rule exists
  HostPatterns hosts;                              // host:"…" rules
  // ip:/ipv6: rules as nDPI's Patricia tree keeps them: one node per prefix
  // (value: node + 1) holding its (port, protocol) pairs, port 0 for any
  PrefixTable ip_nodes;
  std::vector<std::vector<std::pair<uint16_t, uint16_t>>> ip_values;
  HostPatterns cat_hosts;                          // custom category hosts: value category + 1
  PrefixTable cat_ips;                             // custom category networks: value category + 1
  // risk exceptions (ip_risk_mask, host_risk_mask): value index + 1 into risk_masks
  std::vector<uint64_t> risk_masks;
  PrefixTable risk_ips;
  HostPatterns risk_hosts;

  const ProtoInfo* proto(uint16_t id) const {
    auto it = by_id.find(id);
    return it == by_id.end() ? nullptr : &it->second->info;
  }
  // A protocol's category: the operator's, else `dflt`.
  uint16_t category_of(uint16_t id, uint16_t dflt) const {
    if (category.empty()) return dflt;
    auto it = category.find(id);
    return it == category.end() ? dflt : it->second;
  }
  // The protocol a port rule gives this port, 0 when none.
  uint16_t port_rule(uint8_t l4_proto, uint16_t port) const {
    const std::vector<uint16_t>& t = l4_proto == kProtoTcp ? tcp_port : l4_proto == kProtoUdp ? udp_port : tcp_port;
    if (t.empty() || (l4_proto != kProtoTcp && l4_proto != kProtoUdp)) return 0;
    return t[port];
  }
  // The protocol an address rule gives for this endpoint (port 0: rules
  // without a port only), 0 when none. As nDPI's
  // ndpi_network_port_ptree_match: the longest prefix decides; when none of
  // its rules takes this port, no shorter prefix is asked.
  uint16_t ip_rule(const IpAddr& ip, uint16_t port) const {
    const uint16_t node = ip_nodes.find(ip);
    if (!node) return 0;
    for (const auto& [p, id] : ip_values[node - 1])
      if (p == 0 || p == port) return id;
    return 0;
  }
  // A custom category for this address or name: category + 1, 0 when none.
  uint16_t category_by_ip(const IpAddr& ip) const { return cat_ips.find(ip); }
  uint16_t category_by_name(std::string_view lower_name) const { return cat_hosts.empty() ? 0 : cat_hosts.find(lower_name); }
  // ntopng's blacklisted address (IpAddress::reloadBlacklist): one a custom
  // category network puts in Malware (nDPI's category 100)
  static constexpr uint16_t kMalware = 100;
  bool blacklisted(const IpAddr& ip) const { return !cat_ips.empty() && cat_ips.find(ip) == kMalware + 1; }
  // nDPI's ndpi_handle_risk_exceptions: the masks of the flow's name and of
  // each of its addresses that has one, ANDed (all ones when none).
  uint64_t risk_mask(const IpAddr& cli, const IpAddr& srv, std::string_view lower_name) const {
    if (risk_masks.empty()) return ~uint64_t(0);
    uint64_t m = ~uint64_t(0);
    if (uint16_t i = risk_ips.find(cli)) m &= risk_masks[i - 1];
    if (uint16_t i = risk_ips.find(srv)) m &= risk_masks[i - 1];
    if (!lower_name.empty() && !risk_hosts.empty())
      if (uint16_t i = risk_hosts.find(lower_name)) m &= risk_masks[i - 1];
    return m;
  }
};

// The rules in force on this thread (nullptr when the operator set none).
// The pointer stays valid until this thread calls user_rules() again after
// a change; keep user_rules_shared() to hold a snapshot longer. Inline: the
// classifier asks several times a packet.
inline const UserRules* user_rules() { return Published<UserRules>::here(); }
std::shared_ptr<const UserRules> user_rules_shared();
// Replaces the rules for every thread (from the next new flow on).
void set_user_rules(std::shared_ptr<UserRules> r);

}  // namespace fg
