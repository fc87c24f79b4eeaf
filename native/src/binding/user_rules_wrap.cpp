// ⑥ setUserRules(rules): the operator's classification rules (custom
// protocols, their ports, hosts and addresses, protocol categories, custom
// category hosts and networks) checked and built into one snapshot on the
// JS thread, then swapped in for every engine (dpi/user_rules.h).
#include <napi.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>

#include "binding/convert.h"
#include "dpi/user_rules.h"
#include "flow/local_nets.h"

namespace fg {
namespace {

[[noreturn]] void fail(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, "setUserRules: " + msg); }

Napi::Array list(Napi::Object o, const char* k) {
  Napi::Value v = o.Get(k);
  if (v.IsUndefined()) return Napi::Array::New(o.Env());
  if (!v.IsArray()) fail(o.Env(), std::string(k) + " must be an array");
  return v.As<Napi::Array>();
}
Napi::Object item(Napi::Array a, uint32_t i, const char* k) {
  Napi::Value v = a.Get(i);
  if (!v.IsObject()) fail(a.Env(), std::string(k) + " holds objects");
  return v.As<Napi::Object>();
}
uint32_t num(Napi::Object o, const char* k, uint32_t max) {
  Napi::Value v = o.Get(k);
  if (!v.IsNumber()) fail(o.Env(), std::string(k) + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= max) || d != double(uint32_t(d))) fail(o.Env(), std::string(k) + " must be an integer 0-" + std::to_string(max));
  return uint32_t(d);
}
std::string str(Napi::Object o, const char* k) {
  Napi::Value v = o.Get(k);
  if (!v.IsString()) fail(o.Env(), std::string(k) + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}
bool is_category(uint32_t c) { return c < 65536 && *category_name(uint16_t(c)); }
std::string lower(std::string s) {
  for (char& ch : s) ch = (ch >= 'A' && ch <= 'Z') ? char(ch + 32) : ch;
  return s;
}
PrefixTable::Prefix prefix_of(Napi::Env env, const std::string& net, uint16_t value) {
  Cidr c;
  if (!parse_cidr(net, c)) fail(env, "invalid network '" + net + "'");
  PrefixTable::Prefix p{};
  std::copy(c.net.b, c.net.b + 16, p.b);
  p.len = c.bits, p.value = value;
  return p;
}

Napi::Value SetUserRules(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsObject()) fail(env, "one object expected");
  Napi::Object o = info[0].As<Napi::Object>();
  auto r = std::make_shared<UserRules>();
  Napi::Array protos = list(o, "protocols");
  for (uint32_t i = 0; i < protos.Length(); i++) {
    Napi::Object x = item(protos, i, "protocols");
    const uint32_t id = num(x, "id", kMaxAppId - 1), cat = num(x, "category", 65535);
    std::string name = str(x, "name");
    if (builtin_proto(uint16_t(id))) fail(env, "protocol id " + std::to_string(id) + " is nDPI's " + proto_info(uint16_t(id))->name);
    if (r->by_id.count(uint16_t(id))) fail(env, "protocol id " + std::to_string(id) + " given twice");
    if (name.empty() || name.size() > 64) fail(env, "protocol names have 1-64 characters");
    if (!is_category(cat)) fail(env, "unknown category " + std::to_string(cat));
    auto p = std::make_unique<UserRules::Proto>();
    p->name = std::move(name);
    p->info = ProtoInfo{uint16_t(id), p->name.c_str(), true, 1 /* Acceptable, as nDPI's custom protocols */, uint16_t(cat), "", ""};
    r->by_id[uint16_t(id)] = p.get();
    r->protos.push_back(std::move(p));
  }
  // a rule names nDPI's protocol or one of the custom ones above
  auto app_id = [&](Napi::Object x) -> uint16_t {
    const uint32_t id = num(x, "id", kMaxAppId - 1);
    if (!id || (!builtin_proto(uint16_t(id)) && !r->by_id.count(uint16_t(id)))) fail(env, "unknown protocol id " + std::to_string(id));
    return uint16_t(id);
  };
  Napi::Array cats = list(o, "categories");
  for (uint32_t i = 0; i < cats.Length(); i++) {
    Napi::Object x = item(cats, i, "categories");
    const uint16_t id = app_id(x);
    const uint32_t cat = num(x, "category", 65535);
    if (!is_category(cat)) fail(env, "unknown category " + std::to_string(cat));
    r->category[id] = uint16_t(cat);
  }
  Napi::Array ports = list(o, "ports");
  for (uint32_t i = 0; i < ports.Length(); i++) {
    Napi::Object x = item(ports, i, "ports");
    const std::string l4 = str(x, "l4");
    if (l4 != "tcp" && l4 != "udp") fail(env, "l4 is 'tcp' or 'udp'");
    const uint32_t lo = num(x, "lo", 65535), hi = num(x, "hi", 65535);
    if (lo > hi) fail(env, "port range " + std::to_string(lo) + "-" + std::to_string(hi) + " is empty");
    const uint16_t id = app_id(x);
    std::vector<uint16_t>& t = l4 == "tcp" ? r->tcp_port : r->udp_port;
    if (t.empty()) t.assign(65536, 0);
    for (uint32_t p = lo; p <= hi; p++) t[p] = id;  // a later rule overrides, as nDPI's port tree
  }
  Napi::Array hosts = list(o, "hosts");
  for (uint32_t i = 0; i < hosts.Length(); i++) {
    Napi::Object x = item(hosts, i, "hosts");
    const std::string h = lower(str(x, "host"));
    if (h.empty() || h.size() > 253) fail(env, "host names have 1-253 characters");
    r->hosts.add(h, app_id(x));
  }
  // one node per distinct prefix, its rules in file order
  std::vector<PrefixTable::Prefix> nets;
  std::map<std::pair<PrefixTable::U128, unsigned>, uint16_t> node_of;
  Napi::Array ips = list(o, "ips");
  for (uint32_t i = 0; i < ips.Length(); i++) {
    Napi::Object x = item(ips, i, "ips");
    const uint16_t id = app_id(x);
    PrefixTable::Prefix p = prefix_of(env, str(x, "net"), 0);
    const uint32_t port = x.Get("port").IsUndefined() ? 0 : num(x, "port", 65535);
    const PrefixTable::U128 m = p.len ? ~PrefixTable::U128(0) << (128 - p.len) : 0;
    auto [it, fresh] = node_of.try_emplace({PrefixTable::to_u128(p.b) & m, p.len}, uint16_t(r->ip_values.size() + 1));
    if (fresh) {
      if (r->ip_values.size() >= 65535) fail(env, "at most 65535 address prefixes");
      r->ip_values.emplace_back();
      p.value = it->second;
      nets.push_back(p);
    }
    r->ip_values[it->second - 1].emplace_back(uint16_t(port), id);
  }
  r->ip_nodes = PrefixTable(nets);
  Napi::Array chosts = list(o, "categoryHosts");
  for (uint32_t i = 0; i < chosts.Length(); i++) {
    Napi::Object x = item(chosts, i, "categoryHosts");
    const uint32_t cat = num(x, "category", 65535);
    if (!is_category(cat) || cat == 65535) fail(env, "unknown category " + std::to_string(cat));
    const std::string h = lower(str(x, "host"));
    if (h.empty() || h.size() > 253) fail(env, "host names have 1-253 characters");
    r->cat_hosts.add(h, uint16_t(cat + 1));
  }
  std::vector<PrefixTable::Prefix> cnets;
  Napi::Array cn = list(o, "categoryNets");
  for (uint32_t i = 0; i < cn.Length(); i++) {
    Napi::Object x = item(cn, i, "categoryNets");
    const uint32_t cat = num(x, "category", 65535);
    if (!is_category(cat) || cat == 65535) fail(env, "unknown category " + std::to_string(cat));
    cnets.push_back(prefix_of(env, str(x, "net"), uint16_t(cat + 1)));
  }
  r->cat_ips = PrefixTable(cnets);
  std::vector<PrefixTable::Prefix> rnets;
  Napi::Array rm = list(o, "riskMasks");
  for (uint32_t i = 0; i < rm.Length(); i++) {
    Napi::Object x = item(rm, i, "riskMasks");
    const std::string m = str(x, "mask");
    char* end = nullptr;
    errno = 0;
    const unsigned long long mask = std::strtoull(m.c_str(), &end, 10);
    if (m.empty() || *end || errno || m[0] == '-') fail(env, "risk mask '" + m + "' is not a decimal 64-bit number");
    if (r->risk_masks.size() >= 65535) fail(env, "at most 65535 risk masks");
    r->risk_masks.push_back(uint64_t(mask));
    const uint16_t idx = uint16_t(r->risk_masks.size());
    if (x.Has("host")) {
      const std::string h = lower(str(x, "host"));
      if (h.empty() || h.size() > 253) fail(env, "host names have 1-253 characters");
      r->risk_hosts.add(h, idx);
    } else {
      rnets.push_back(prefix_of(env, str(x, "net"), idx));
    }
  }
  r->risk_ips = PrefixTable(rnets);
  // no rule at all: none to look at on the classification path
  const bool none = r->protos.empty() && r->category.empty() && r->tcp_port.empty() && r->udp_port.empty() && r->hosts.empty() && nets.empty() &&
                    r->cat_hosts.empty() && cnets.empty() && r->risk_masks.empty();
  set_user_rules(none ? nullptr : std::move(r));
  return env.Undefined();
}

}  // namespace

void register_user_rules(Napi::Env env, Napi::Object exports) { exports.Set("setUserRules", Napi::Function::New(env, SetUserRules)); }

}  // namespace fg
