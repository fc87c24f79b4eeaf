#include "binding/engine_wrap.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <cstdio>
#include <cstring>

#include "binding/convert.h"
#include "dpi/registry.h"

namespace fg {
namespace {

void require(bool ok, Napi::Env env, const char* msg) {
  if (!ok) throw Napi::TypeError::New(env, msg);
}
void require(bool ok, Napi::Env env, const std::string& msg) { require(ok, env, msg.c_str()); }

uint32_t opt_u32(Napi::Object o, const char* k, uint32_t def) {
  Napi::Value v = o.Get(k);
  if (v.IsUndefined()) return def;
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string(k) + " must be a number");
  return v.As<Napi::Number>().Uint32Value();
}
double opt_num(Napi::Object o, const char* k, double def) {
  Napi::Value v = o.Get(k);
  if (v.IsUndefined()) return def;
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string(k) + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}
bool opt_bool(Napi::Object o, const char* k, bool def) {
  Napi::Value v = o.Get(k);
  if (v.IsUndefined()) return def;
  if (!v.IsBoolean()) throw Napi::TypeError::New(o.Env(), std::string(k) + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}
std::string opt_str(Napi::Object o, const char* k, const std::string& def) {
  Napi::Value v = o.Get(k);
  if (v.IsUndefined() || v.IsNull()) return def;
  if (!v.IsString()) throw Napi::TypeError::New(o.Env(), std::string(k) + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}
uint64_t secs_ns(double s) { return uint64_t(s * 1e9); }

std::vector<Cidr> parse_cidrs(Napi::Env env, Napi::Value v, const char* what) {
  std::vector<Cidr> out;
  if (v.IsUndefined() || v.IsNull()) return out;
  require(v.IsArray(), env, "networks must be an array of CIDR strings");
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value e = a.Get(i);
    require(e.IsString(), env, "networks must be an array of CIDR strings");
    Cidr c;
    std::string s = e.As<Napi::String>().Utf8Value();
    if (!parse_cidr(s, c)) throw Napi::TypeError::New(env, std::string("invalid ") + what + " '" + s + "'");
    out.push_back(c);
  }
  return out;
}

void parse_outputs(Napi::Env env, Napi::Value v, const char* what, std::vector<OutputSpec>& out) {
  if (v.IsUndefined() || v.IsNull()) return;
  require(v.IsArray(), env, "egress outputs must be an array");
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value e = a.Get(i);
    std::string at = std::string("egress.") + what + "[" + std::to_string(i) + "]";
    require(e.IsObject(), env, "egress outputs are objects: { iface } or { pcap, rotateBytes? }");
    Napi::Object x = e.As<Napi::Object>();
    OutputSpec s;
    std::string iface = opt_str(x, "iface", ""), pcap = opt_str(x, "pcap", "");
    if (iface.empty() == pcap.empty()) throw Napi::TypeError::New(env, at + ": give exactly one of iface or pcap");
    s.iface = !iface.empty();
    s.name = s.iface ? iface : pcap;
    s.rotate_bytes = uint64_t(opt_num(x, "rotateBytes", 0));
    out.push_back(std::move(s));
  }
}

void parse_egress(Napi::Env env, Napi::Value v, EgressConfig& c) {
  if (v.IsUndefined() || v.IsNull()) return;
  require(v.IsObject(), env, "egress must be an object");
  Napi::Object o = v.As<Napi::Object>();
  parse_outputs(env, o.Get("aggregated"), "aggregated", c.aggregated);
  parse_outputs(env, o.Get("balanced"), "balanced", c.balanced);
  Napi::Value b = o.Get("bridge");
  if (!b.IsUndefined() && !b.IsNull()) {
    require(b.IsArray() && b.As<Napi::Array>().Length() == 2, env, "egress.bridge must be [ifaceA, ifaceB]");
    Napi::Array a = b.As<Napi::Array>();
    require(a.Get(0u).IsString() && a.Get(1u).IsString(), env, "egress.bridge must be [ifaceA, ifaceB]");
    c.bridge_a = a.Get(0u).As<Napi::String>().Utf8Value();
    c.bridge_b = a.Get(1u).As<Napi::String>().Utf8Value();
    require(!c.bridge_a.empty() && !c.bridge_b.empty() && c.bridge_a != c.bridge_b, env,
            "egress.bridge needs two different interfaces");
  }
}

[[noreturn]] void invalid(Napi::Env env, const std::string& msg) { throw_fg(env, msg, "E_INVALID"); }

Action action_of(Napi::Env env, Napi::Value v, const std::string& at) {
  Action a;
  if (!v.IsString() || !parse_action(v.As<Napi::String>().Utf8Value(), a))
    invalid(env, at + ": action must be one of forward, discard, shunt, slice-l4, slice-l3");
  return a;
}

uint32_t count_of(Napi::Env env, Napi::Value v, const std::string& at) {
  if (!v.IsNumber()) invalid(env, at + ": must be a non-negative integer");
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= 4294967295.0 && d == double(uint64_t(d)))) invalid(env, at + ": must be a non-negative integer");
  return uint32_t(d);
}

// Record<number, number>: keys are decimal integers.
template <class F>
void each_numeric_key(Napi::Env env, Napi::Value v, const std::string& at, F&& f) {
  if (v.IsUndefined() || v.IsNull()) return;
  if (!v.IsObject() || v.IsArray()) invalid(env, at + ": must be an object");
  Napi::Object o = v.As<Napi::Object>();
  Napi::Array keys = o.GetPropertyNames();
  for (uint32_t i = 0; i < keys.Length(); i++) {
    std::string k = keys.Get(i).ToString().Utf8Value();
    if (k.empty() || k.size() > 5 || k.find_first_not_of("0123456789") != std::string::npos)
      invalid(env, at + ": key '" + k + "' is not an id");
    f(uint32_t(std::stoul(k)), o.Get(k), at + "[" + k + "]");
  }
}

std::shared_ptr<const PolicyTable> parse_policies(Napi::Env env, Napi::Value v, const Egress& eg) {
  if (!v.IsObject()) invalid(env, "egress policies must be an object");
  Napi::Object o = v.As<Napi::Object>();
  auto t = std::make_shared<PolicyTable>();
  Napi::Value sv = o.Get("shunt");
  if (!sv.IsUndefined() && !sv.IsNull()) {
    if (!sv.IsObject()) invalid(env, "shunt must be an object");
    Napi::Object s = sv.As<Napi::Object>();
    if (!s.Get("default").IsUndefined()) t->shunt.def = count_of(env, s.Get("default"), "shunt.default");
    each_numeric_key(env, s.Get("l4"), "shunt.l4", [&](uint32_t k, Napi::Value x, const std::string& at) {
      if (k > 255) invalid(env, at + ": IP protocol numbers are 0..255");
      t->shunt.l4[k] = int32_t(count_of(env, x, at) > 0x7fffffff ? 0x7fffffff : count_of(env, x, at));
    });
    each_numeric_key(env, s.Get("apps"), "shunt.apps", [&](uint32_t k, Napi::Value x, const std::string& at) {
      if (k > 0xffff || !proto_info(uint16_t(k))) invalid(env, at + ": unknown nDPI protocol id " + std::to_string(k));
      if (t->shunt.apps.size() <= k) t->shunt.apps.resize(size_t(k) + 1, -1);
      uint32_t n = count_of(env, x, at);
      t->shunt.apps[k] = int32_t(n > 0x7fffffff ? 0x7fffffff : n);
    });
  }
  const size_t nt = eg.targets().size();
  t->targets.resize(nt);
  Napi::Value tv = o.Get("targets");
  if (!tv.IsUndefined() && !tv.IsNull()) {
    if (!tv.IsArray()) invalid(env, "targets must be an array");
    Napi::Array ta = tv.As<Napi::Array>();
    for (uint32_t i = 0; i < ta.Length(); i++) {
      std::string at = "targets[" + std::to_string(i) + "]";
      if (!ta.Get(i).IsObject()) invalid(env, at + ": must be an object");
      Napi::Object x = ta.Get(i).As<Napi::Object>();
      std::string kind = x.Get("target").IsString() ? x.Get("target").As<Napi::String>().Utf8Value() : "";
      TargetKind k;
      if (kind == "aggregated") k = TargetKind::Aggregated;
      else if (kind == "balanced") k = TargetKind::Balanced;
      else if (kind == "bridge") k = TargetKind::Bridge;
      else invalid(env, at + ": target must be aggregated, balanced or bridge");
      uint32_t queue = 0;
      if (k == TargetKind::Aggregated) queue = x.Get("queue").IsUndefined() ? 0 : count_of(env, x.Get("queue"), at + ".queue");
      else if (!x.Get("queue").IsUndefined() && !x.Get("queue").IsNull()) invalid(env, at + ": queue is for aggregated targets only");
      int idx = eg.find(k, queue);
      std::string what = k == TargetKind::Aggregated ? "aggregated queue " + std::to_string(queue) : kind;
      if (idx < 0) invalid(env, at + ": this engine has no " + what + " egress");
      if (t->targets[size_t(idx)]) invalid(env, at + ": " + what + " is listed twice");
      Napi::Value dv = x.Get("default");
      auto tp = std::make_unique<TargetPolicy>(dv.IsUndefined() ? Action::Forward : action_of(env, dv, at + ".default"));
      std::string why;
      Napi::Value sn = x.Get("subnets");
      if (!sn.IsUndefined() && !sn.IsNull()) {
        if (!sn.IsArray()) invalid(env, at + ".subnets: must be an array");
        Napi::Array a = sn.As<Napi::Array>();
        for (uint32_t j = 0; j < a.Length(); j++) {
          std::string aj = at + ".subnets[" + std::to_string(j) + "]";
          if (!a.Get(j).IsObject()) invalid(env, aj + ": must be { cidr, action }");
          Napi::Object r = a.Get(j).As<Napi::Object>();
          if (!r.Get("cidr").IsString()) invalid(env, aj + ": cidr must be a string");
          Action act = action_of(env, r.Get("action"), aj);
          if (!tp->add_subnet(r.Get("cidr").As<Napi::String>().Utf8Value(), act, why)) invalid(env, aj + ": " + why);
        }
      }
      Napi::Value pr = x.Get("protocols");
      if (!pr.IsUndefined() && !pr.IsNull()) {
        if (!pr.IsArray()) invalid(env, at + ".protocols: must be an array");
        Napi::Array a = pr.As<Napi::Array>();
        for (uint32_t j = 0; j < a.Length(); j++) {
          std::string aj = at + ".protocols[" + std::to_string(j) + "]";
          if (!a.Get(j).IsObject()) invalid(env, aj + ": must be { id, action }");
          Napi::Object r = a.Get(j).As<Napi::Object>();
          uint32_t id = count_of(env, r.Get("id"), aj + ".id");
          Action act = action_of(env, r.Get("action"), aj);
          if (!tp->add_protocol(id, act, why)) invalid(env, aj + ": " + why);
        }
      }
      if (tp->rules.size() > 0xffff) invalid(env, at + ": more than 65535 rules");
      tp->finish(eg.lanes());
      t->targets[size_t(idx)] = std::move(tp);
    }
  }
  for (auto& tp : t->targets)
    if (!tp) {
      tp = std::make_unique<TargetPolicy>(Action::Forward);
      tp->finish(eg.lanes());
    }
  return t;
}

// A page ordered under the batch lock at once, its rows copied (under the
// lock for a moment) and converted a slice at a time: {total, size, next(n),
// close()}. Large answers are written slice by slice while other requests
// are served; an entry gone since the ordering is skipped. The cursor holds
// the engine's JS object, so the engine outlives it. rows(views, order,
// from, n): the rows of entries [from, from + n) still there.
template <class Rows, class ToJs>
Napi::Value page_cursor(Napi::Env env, Napi::Object owner, const Engine* engine, PageOrder&& order, Rows rows, ToJs to_js) {
  struct State {
    PageOrder order;
    size_t pos = 0;
    Napi::ObjectReference owner;
  };
  auto st = std::make_shared<State>();
  st->order = std::move(order);
  st->owner = Napi::Persistent(owner);
  Napi::Object r = Napi::Object::New(env);
  r.Set("total", double(st->order.total));
  r.Set("size", double(st->order.entries.size()));
  r.Set("next", Napi::Function::New(env, [st, engine, rows, to_js](const Napi::CallbackInfo& info) -> Napi::Value {
    Napi::Env e = info.Env();
    size_t n = info.Length() > 0 && info[0].IsNumber() ? size_t(std::max(0.0, info[0].As<Napi::Number>().DoubleValue())) : 256;
    const auto& entries = st->order.entries;
    // past entries gone meanwhile, until n rows or the end
    Napi::Array out = Napi::Array::New(e);
    uint32_t k = 0;
    while (k < n && st->pos < entries.size()) {
      size_t take = std::min(n - k, entries.size() - st->pos);
      auto got = engine->with_views([&](const Views& v) { return rows(v, st->order, st->pos, take); });
      st->pos += take;
      for (const auto& row : got) out.Set(k++, to_js(e, row));
    }
    return out;
  }, "next"));
  r.Set("close", Napi::Function::New(env, [st](const Napi::CallbackInfo& info) -> Napi::Value {
    std::vector<PageEntry>().swap(st->order.entries);  // the memory goes now, not at the next GC
    std::vector<HostKey>().swap(st->order.keys);
    st->pos = 0;
    return info.Env().Undefined();
  }, "close"));
  return r;
}

// behaviourMap over several shards: another shard's entry of the same key
// into `into`. Uses and observations are summed, first / last seen widened;
// the period (and burst start) and info come from the entry with the most
// observations, `best` the observations of the one they came from so far.
void behaviour_merge(BehaviourEntry& into, uint32_t& best, const BehaviourEntry& e) {
  if (e.observations > best) {
    best = e.observations, into.period_ms = e.period_ms, into.burst_ns = e.burst_ns;
    std::memcpy(into.info, e.info, sizeof into.info);
  }
  into.uses += e.uses, into.observations += e.observations;
  into.first_ns = std::min(into.first_ns, e.first_ns), into.last_ns = std::max(into.last_ns, e.last_ns);
}

struct BehaviourKeyHash {
  size_t operator()(const BehaviourKey& k) const {
    static_assert(sizeof(BehaviourKey) % 8 == 0);
    uint64_t w[sizeof(BehaviourKey) / 8], h = 0;
    std::memcpy(w, &k, sizeof k);
    for (uint64_t x : w) h = mix64(h ^ x);
    return size_t(h);
  }
};

// noTxPeers' rows: an address with its no-TX estimates (as client, as server,
// ports), listed among hosts_with_ports_count or among host_peers.
struct NoTxRow { IpAddr ip; uint32_t out, in, ports; bool local, peer; };

// noTxPeers over several shards. A host's estimates are the max over its
// parts (sketches per shard: a lower bound of the distinct count, as
// merge_host_row's); a server is receive-only when no shard saw it send.
// Each host once per list.
void no_tx_rows_merged(const Views& views, const std::vector<Cidr>& allowed, std::vector<NoTxRow>& rows) {
  std::unordered_map<HostKey, uint32_t, HostKeyHash> at;
  std::vector<NoTxRow> est;
  for (const Pipeline* pl : views) {
    const HostTable& ht = pl->hosts();
    const HostL7Table& l7 = pl->host_l7();
    for (uint32_t i = 0; i < ht.span(); i++) {
      if (!ht.used(i)) continue;
      const fg::Host& h = ht[i];
      if (h.flags & (kHostBroadcast | kHostMulticast) || !allowed_ip(allowed, h.key.ip)) continue;
      const uint32_t a = l7.contact_estimate(i, kContactNoTxOut), b = l7.contact_estimate(i, kContactNoTxIn);
      const uint32_t p = l7.contact_estimate(i, kContactNoTxPorts);
      auto [it, fresh] = at.try_emplace(h.key, uint32_t(est.size()));
      if (fresh) {
        est.push_back({h.key.ip, a, b, p, bool(h.flags & kHostLocal), false});
        continue;
      }
      NoTxRow& r = est[it->second];
      r.out = std::max(r.out, a), r.in = std::max(r.in, b), r.ports = std::max(r.ports, p);
    }
  }
  auto sent = [&](const HostKey& k) {  // any part of the host sent a packet
    const uint64_t h = hash_host_key(k);
    for (const Pipeline* pl : views) {
      const uint32_t i = pl->hosts().find(k, h);
      if (i != HashIndex::kNone && pl->hosts()[i].pkts(0) != 0) return true;
    }
    return false;
  };
  for (const Pipeline* pl : views) {
    const HostTable& ht = pl->hosts();
    const FlowTable& ft = pl->flows();
    for (uint32_t j = 0; j < ft.span(); j++) {
      if (!ft.used(j)) continue;
      const Flow& f = ft[j];
      if (f.cli_host == HashIndex::kNone || f.srv_host == HashIndex::kNone) continue;
      const fg::Host& s = ht[f.srv_host];
      if (s.flags & (kHostBroadcast | kHostMulticast) || s.pkts(0) != 0) continue;  // Host::isRxOnlyHost: this part first (cheap)
      auto c = at.find(ht[f.cli_host].key);
      if (c == at.end() || est[c->second].peer || sent(s.key)) continue;
      est[c->second].peer = true;
    }
  }
  for (const NoTxRow& r : est)
    if (r.out || r.in) rows.push_back({r.ip, r.out, r.in, r.ports, r.local, false});
  for (const NoTxRow& r : est)
    if (r.peer && (r.out || r.in)) rows.push_back({r.ip, r.out, r.in, r.ports, r.local, true});
}

}  // namespace

void throw_fg(Napi::Env env, const std::string& msg, const char* code) {
  auto* d = env.GetInstanceData<AddonData>();
  if (d && !d->error_class.IsEmpty()) {
    Napi::Object err = d->error_class.New({Napi::String::New(env, msg), Napi::String::New(env, code)});
    throw Napi::Error(env, err);
  }
  Napi::Error e = Napi::Error::New(env, msg);
  e.Set("code", code);
  throw e;
}

Napi::Function EngineWrap::Init(Napi::Env env) {
  return DefineClass(env, "NativeEngine",
                     {
                         InstanceMethod("start", &EngineWrap::Start),
                         InstanceMethod("stop", &EngineWrap::Stop),
                         InstanceMethod("state", &EngineWrap::State),
                         InstanceMethod("stats", &EngineWrap::Stats),
                         InstanceMethod("hosts", &EngineWrap::Hosts),
                         InstanceMethod("host", &EngineWrap::Host),
                         InstanceMethod("hostCheckHits", &EngineWrap::HostCheckHits),
                         InstanceMethod("hostScoresAbove", &EngineWrap::HostScoresAbove),
                         InstanceMethod("setRiskScores", &EngineWrap::SetRiskScores),
                         InstanceMethod("setHostPools", &EngineWrap::SetHostPools),
                         InstanceMethod("setIecConfig", &EngineWrap::SetIecConfig),
                         InstanceMethod("flows", &EngineWrap::Flows),
                         InstanceMethod("flowCounters", &EngineWrap::FlowCounters),
                         InstanceMethod("l7Stats", &EngineWrap::L7Stats),
                         InstanceMethod("setLocalNetworks", &EngineWrap::SetLocalNetworks),
                         InstanceMethod("setLimits", &EngineWrap::SetLimits),
                         InstanceMethod("drainExpired", &EngineWrap::DrainExpired),
                         InstanceMethod("expireActive", &EngineWrap::ExpireActive),
                         InstanceMethod("setEgressPolicies", &EngineWrap::SetEgressPolicies),
                         InstanceMethod("egressStats", &EngineWrap::EgressStats),
                         InstanceMethod("setTickListener", &EngineWrap::SetTickListener),
                         InstanceMethod("tickDone", &EngineWrap::TickDone),
                         InstanceMethod("trafficBy", &EngineWrap::TrafficBy),
                         InstanceMethod("networkCheckHits", &EngineWrap::NetworkCheckHits),
                         InstanceMethod("bcastTooLarge", &EngineWrap::BcastTooLargeEvents),
                         InstanceMethod("localMacs", &EngineWrap::LocalMacs),
                         InstanceMethod("gatewayHosts", &EngineWrap::GatewayHosts),
                         InstanceMethod("behaviourMap", &EngineWrap::BehaviourMapPage),
                         InstanceMethod("noTxPeers", &EngineWrap::NoTxPeers),
                         InstanceMethod("topSites", &EngineWrap::TopSitesList),
                         InstanceMethod("recorderStats", &EngineWrap::RecorderStatsJs),
                         InstanceMethod("replayInfo", &EngineWrap::ReplayInfo),
                         InstanceMethod("workerPackets", &EngineWrap::WorkerPackets),
                     });
}

EngineWrap::EngineWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EngineWrap>(info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsObject(), env, "NativeEngine(options: object)");
  Napi::Object o = info[0].As<Napi::Object>();
  EngineConfig cfg;
  parse_egress(env, o.Get("egress"), cfg.egress);
  Napi::Value files = o.Get("files");
  if (cfg.egress.bridge()) {
    require(files.IsUndefined(), env, "egress.bridge captures live: no files");
    cfg.live.snaplen = int(opt_u32(o, "snaplen", 65535));
    cfg.live.promisc = opt_bool(o, "promisc", true);
    cfg.live.bpf = opt_str(o, "bpf", "");
    cfg.live.buffer_mb = int(opt_u32(o, "bufferMb", 64));
  } else if (!files.IsUndefined()) {
    require(files.IsArray(), env, "files must be an array of paths");
    Napi::Array a = files.As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) {
      require(a.Get(i).IsString(), env, "files must be an array of paths");
      cfg.files.push_back(a.Get(i).As<Napi::String>().Utf8Value());
    }
    require(!cfg.files.empty(), env, "files must not be empty");
  } else {
    cfg.live.iface = opt_str(o, "iface", "");
    require(!cfg.live.iface.empty(), env, "either files or iface is required");
    cfg.live.snaplen = int(opt_u32(o, "snaplen", 65535));
    cfg.live.promisc = opt_bool(o, "promisc", true);
    cfg.live.bpf = opt_str(o, "bpf", "");
    cfg.live.buffer_mb = int(opt_u32(o, "bufferMb", 64));
  }
  cfg.limits.max_flows = opt_u32(o, "maxFlows", cfg.limits.max_flows);
  cfg.limits.max_hosts = opt_u32(o, "maxHosts", cfg.limits.max_hosts);
  cfg.limits.max_macs = opt_u32(o, "maxMacs", cfg.limits.max_macs);
  cfg.limits.flow_idle_ns = secs_ns(opt_num(o, "flowIdleSec", 60));
  cfg.limits.flow_lifetime_ns = secs_ns(opt_num(o, "flowLifetimeSec", 0));
  cfg.limits.periodic_dump_ns = secs_ns(opt_num(o, "periodicDumpSec", 300));
  cfg.limits.local_host_idle_ns = secs_ns(opt_num(o, "localHostIdleSec", 300));
  cfg.limits.remote_host_idle_ns = secs_ns(opt_num(o, "remoteHostIdleSec", 60));
  cfg.limits.dpi = opt_bool(o, "dpi", true);
  cfg.limits.checks = opt_bool(o, "checks", true);
  cfg.limits.l7_entries_per_host = opt_u32(o, "l7EntriesPerHost", cfg.limits.l7_entries_per_host);
  cfg.limits.flow_info_share = opt_num(o, "flowInfoShare", cfg.limits.flow_info_share);
  cfg.limits.flow_meta_share = opt_num(o, "flowMetaShare", cfg.limits.flow_meta_share);
  cfg.limits.host_side_share = opt_num(o, "hostSideShare", cfg.limits.host_side_share);
  cfg.limits.behaviour_map_entries = opt_u32(o, "behaviourMapEntries", cfg.limits.behaviour_map_entries);
  cfg.limits.iec_learning_s = opt_u32(o, "iecLearningSec", cfg.limits.iec_learning_s);
  require(cfg.limits.max_flows >= 1 && cfg.limits.max_hosts >= 2, env, "maxFlows must be >= 1 and maxHosts >= 2");
  cfg.mode = Mode(opt_u32(o, "mode", 0));
  require(uint32_t(cfg.mode) <= 2, env, "mode must be 0 (full), 1 (read-only) or 2 (decode-only)");
  cfg.replay_speed = opt_num(o, "replaySpeed", 0);
  cfg.loop = opt_bool(o, "loop", false);
  cfg.flush_at_end = opt_bool(o, "flushAtEnd", false);
  cfg.prefault = opt_bool(o, "prefault", false);
  cfg.ring_records = opt_u32(o, "ringRecords", cfg.ring_records);
  cfg.workers = opt_u32(o, "workers", 1);
  require(cfg.workers >= 1 && cfg.workers <= 64, env, "workers must be 1-64");
  Napi::Value rv = o.Get("record");
  if (!rv.IsUndefined() && !rv.IsNull()) {
    require(rv.IsObject(), env, "record must be an object: { dir, maxBytes, fileBytes?, ringBytes? }");
    Napi::Object r = rv.As<Napi::Object>();
    cfg.record = true;
    cfg.recorder.dir = opt_str(r, "dir", "");
    require(!cfg.recorder.dir.empty(), env, "record.dir is required");
    cfg.recorder.max_bytes = uint64_t(opt_num(r, "maxBytes", double(cfg.recorder.max_bytes)));
    cfg.recorder.file_bytes = uint64_t(opt_num(r, "fileBytes", 0));
    cfg.recorder.ring_bytes = opt_u32(r, "ringBytes", cfg.recorder.ring_bytes);
    require(cfg.recorder.max_bytes >= (8u << 20), env, "record.maxBytes must be at least 8 MiB");
  }
  const char* code = cfg.files.empty() ? "E_CAPTURE_OPEN" : "E_FILE_OPEN";
  try {
    engine_ = std::make_unique<Engine>(std::move(cfg));
  } catch (const OutputOpenError& e) {
    throw_fg(env, e.what(), "E_OUTPUT_OPEN");
  } catch (const std::bad_alloc&) {
    throw_fg(env, "the tables do not fit in this machine's memory (lower maxFlows / maxHosts)", "E_NOMEM");
  } catch (const std::exception& e) {
    throw_fg(env, e.what(), code);
  }
  data_ = env.GetInstanceData<AddonData>();
  if (data_) data_->live.insert(this);
}

EngineWrap::~EngineWrap() {
  shutdown();
  if (data_) data_->live.erase(this);
}

void EngineWrap::shutdown() {
  // Joining the worker is enough: its last act releases the thread-safe function.
  if (engine_) engine_->stop();
}

Napi::Value EngineWrap::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsFunction(), env, "start(onEvent: (event: string) => void)");
  if (engine_->state() != EngineState::Idle) throw_fg(env, "engine already started", "E_STATE");
  tsfn_ = Napi::ThreadSafeFunction::New(env, info[0].As<Napi::Function>(), "flowgate-engine", 0, 1);
  Ref();
  referenced_ = true;
  Napi::ThreadSafeFunction t = tsfn_;
  // Events are string literals ("done", "expired", "tick", "last_tick"): safe to pass by pointer.
  engine_->start([this, t](const char* ev, double a, double b) mutable {
    const bool done = std::strcmp(ev, "done") == 0;
    t.NonBlockingCall([this, ev, done, a, b](Napi::Env env, Napi::Function cb) {
      if (done && referenced_) {
        referenced_ = false;
        Unref();
      }
      // A C++ exception must not leave this callback (node's C trampoline
      // would terminate): it goes back to JS as an uncaught exception.
      try {
        cb.Call({Napi::String::New(env, ev), Napi::Number::New(env, a), Napi::Number::New(env, b)});
      } catch (const Napi::Error& e) {
        e.ThrowAsJavaScriptException();
      }
    });
    if (done) t.Release();  // the worker is exiting: nothing else will call
  });
  return env.Undefined();
}

Napi::Value EngineWrap::Stop(const Napi::CallbackInfo& info) {
  engine_->stop();
  return info.Env().Undefined();
}

Napi::Value EngineWrap::State(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  static const char* const kStates[] = {"idle", "running", "done", "stopped", "failed"};
  Napi::Object o = Napi::Object::New(env);
  o.Set("state", kStates[int(engine_->state())]);
  std::string err = engine_->error();
  o.Set("error", err.empty() ? env.Null() : Napi::Value(Napi::String::New(env, err)));
  o.Set("progress", engine_->progress());
  o.Set("live", engine_->is_live());
  o.Set("workers", double(engine_->workers()));  // what runs: egress and live recording take one
  return o;
}

Napi::Value EngineWrap::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array,
          env, "stats(buf: Float64Array)");
  Napi::Float64Array buf = info[0].As<Napi::Float64Array>();
  require(buf.ElementLength() >= stats_size(), env, "stats(): buffer too small");
  double* out = buf.Data();
  engine_->with_views([&](const Views& v) {
    stats_fill(*engine_, v, out);
    return 0;
  });
  stats_fill_memory(engine_->tables_views(), out, memory_);
  return env.Undefined();
}

Napi::Value EngineWrap::Hosts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsObject(), env, "hosts(query: object)");
  Napi::Object o = info[0].As<Napi::Object>();
  HostQuery q;
  q.sort = HostSort(opt_u32(o, "sort", 0));
  require(uint32_t(q.sort) <= uint32_t(HostSort::Score), env, "invalid host sort");
  q.desc = opt_bool(o, "desc", false);
  q.offset = opt_u32(o, "offset", 0);
  q.limit = opt_u32(o, "limit", 10);
  q.mode = HostMode(opt_u32(o, "mode", 0));
  require(uint32_t(q.mode) <= uint32_t(HostMode::Multicast), env, "invalid host mode");
  q.vlan = int(opt_num(o, "vlan", -1));
  q.pool = int(opt_num(o, "pool", -1));
  q.allowed = parse_cidrs(env, o.Get("allowed"), "network");
  q.detail = opt_bool(o, "detail", false);
  q.brief = opt_bool(o, "brief", false);
  if (opt_bool(o, "cursor", false)) {
    PageOrder order = engine_->with_views([&](const Views& v) { return order_hosts(v, q); });
    bool detail = q.detail, brief = q.brief;
    return page_cursor(env, info.This().As<Napi::Object>(), engine_.get(), std::move(order),
                       [detail, brief](const Views& v, const PageOrder& o, size_t from, size_t n) { return host_rows(v, o, from, n, detail, brief); },
                       host_to_js);
  }
  HostPage page = engine_->with_views([&](const Views& v) { return query_hosts(v, q); });
  Napi::Object r = Napi::Object::New(env);
  r.Set("total", double(page.total));
  Napi::Array rows = Napi::Array::New(env, page.rows.size());
  for (size_t i = 0; i < page.rows.size(); i++) rows.Set(uint32_t(i), host_to_js(env, page.rows[i]));
  r.Set("rows", rows);
  return r;
}

Napi::Value EngineWrap::Host(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() >= 1 && info[0].IsString(), env, "host(ip: string, vlan?: number)");
  IpAddr ip;
  std::string s = info[0].As<Napi::String>().Utf8Value();
  if (!parse_ip(s, ip)) throw Napi::TypeError::New(env, "invalid IP address '" + s + "'");
  int vlan = -1;
  if (info.Length() > 1 && info[1].IsNumber()) vlan = info[1].As<Napi::Number>().Int32Value();
  HostRow row;
  bool found = engine_->with_views([&](const Views& v) { return find_host(v, ip, vlan, row); });
  if (!found) return env.Null();
  return host_to_js(env, row);
}

// thresholds: one number per check in HostCheck order (ts/bindings validates
// them); a negative one leaves that check out.
Napi::Value EngineWrap::HostCheckHits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "hostCheckHits(thresholds: number[], one per info().hostChecks)";
  require(info.Length() == 1 && info[0].IsArray(), env, usage);
  Napi::Array a = info[0].As<Napi::Array>();
  require(a.Length() == kHostCheckCount, env, usage);
  double thr[kHostCheckCount];
  for (uint32_t c = 0; c < kHostCheckCount; c++) {
    Napi::Value v = a.Get(c);
    require(v.IsNumber(), env, usage);
    thr[c] = v.As<Napi::Number>().DoubleValue();
    require(thr[c] == thr[c], env, usage);  // NaN
  }
  std::vector<HostCheckRow> rows = engine_->with_views([&](const Views& v) { return query_host_checks(v, thr); });
  Napi::Array out = Napi::Array::New(env, rows.size());
  for (size_t i = 0; i < rows.size(); i++) out.Set(uint32_t(i), host_check_row_to_js(env, rows[i], thr));
  return out;
}

// The hosts whose score as client or as server is above `threshold` (score_threshold).
Napi::Value EngineWrap::HostScoresAbove(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsNumber(), env, "hostScoresAbove(threshold: number)");
  const double t = info[0].As<Napi::Number>().DoubleValue();
  require(t >= 0 && t <= 4294967295.0, env, "hostScoresAbove: threshold out of range");
  std::vector<HostScoreRow> rows = engine_->with_views([&](const Views& v) { return query_host_scores(v, uint64_t(t)); });
  Napi::Array out = Napi::Array::New(env, rows.size());
  for (size_t i = 0; i < rows.size(); i++) out.Set(uint32_t(i), host_score_row_to_js(env, rows[i]));
  return out;
}

// setRiskScores(cli: Uint16Array(64), srv: Uint16Array(64), category:
// Uint8Array(64), level: Uint8Array(64), alerting: [lo, hi]): per nDPI risk
// id, its alert's client and server shares, score category and severity
// level, and the risks whose alert is raised.
Napi::Value EngineWrap::SetRiskScores(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "setRiskScores(cli: Uint16Array(64), srv: Uint16Array(64), category: Uint8Array(64), level: Uint8Array(64), alerting: [lo, hi])";
  require(info.Length() == 5 && info[4].IsArray(), env, usage);
  auto arr = [&](int k, napi_typedarray_type type) {
    require(info[k].IsTypedArray() && info[k].As<Napi::TypedArray>().TypedArrayType() == type &&
                info[k].As<Napi::TypedArray>().ElementLength() == 64,
            env, usage);
  };
  arr(0, napi_uint16_array), arr(1, napi_uint16_array), arr(2, napi_uint8_array), arr(3, napi_uint8_array);
  Napi::Array m = info[4].As<Napi::Array>();
  require(m.Length() == 2 && m.Get(0u).IsNumber() && m.Get(1u).IsNumber(), env, usage);
  RiskScoreTable t;
  const uint16_t* cli = info[0].As<Napi::Uint16Array>().Data();
  const uint16_t* srv = info[1].As<Napi::Uint16Array>().Data();
  const uint8_t* cat = info[2].As<Napi::Uint8Array>().Data();
  const uint8_t* lvl = info[3].As<Napi::Uint8Array>().Data();
  for (int r = 0; r < 64; r++) {
    require(cat[r] < kScoreCategories, env, "setRiskScores: category is 0 (network) or 1 (security)");
    t.cli[r] = cli[r], t.srv[r] = srv[r], t.category[r] = cat[r], t.level[r] = lvl[r];
  }
  t.alerting = uint64_t(m.Get(0u).As<Napi::Number>().Uint32Value()) | uint64_t(m.Get(1u).As<Napi::Number>().Uint32Value()) << 32;
  engine_->set_risk_scores(t);
  return env.Undefined();
}

Napi::Value EngineWrap::Flows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsObject(), env, "flows(query: object)");
  Napi::Object o = info[0].As<Napi::Object>();
  FlowQuery q;
  q.sort = FlowSort(opt_u32(o, "sort", 0));
  require(uint32_t(q.sort) <= uint32_t(FlowSort::Score), env, "invalid flow sort");
  q.desc = opt_bool(o, "desc", true);
  q.offset = opt_u32(o, "offset", 0);
  q.limit = opt_u32(o, "limit", 10);
  std::string host = opt_str(o, "host", "");
  if (!host.empty()) {
    if (!parse_ip(host, q.host)) throw Napi::TypeError::New(env, "invalid host '" + host + "'");
    q.has_host = true;
    q.host_vlan = int(opt_num(o, "hostVlan", -1));
  }
  q.vlan = int(opt_num(o, "vlan", -1));
  q.l4proto = int(opt_num(o, "l4proto", -1));
  q.l7 = int(opt_num(o, "l7", -1));
  q.allowed = parse_cidrs(env, o.Get("allowed"), "network");
  if (opt_bool(o, "cursor", false)) {
    PageOrder order = engine_->with_views([&](const Views& v) { return order_flows(v, q); });
    return page_cursor(env, info.This().As<Napi::Object>(), engine_.get(), std::move(order),
                       [](const Views& v, const PageOrder& o, size_t from, size_t n) { return flow_rows(v, o, from, n); }, flow_to_js);
  }
  FlowPage page = engine_->with_views([&](const Views& v) { return query_flows(v, q); });
  Napi::Object r = Napi::Object::New(env);
  r.Set("total", double(page.total));
  Napi::Array rows = Napi::Array::New(env, page.rows.size());
  for (size_t i = 0; i < page.rows.size(); i++) rows.Set(uint32_t(i), flow_to_js(env, page.rows[i]));
  r.Set("rows", rows);
  return r;
}

Napi::Value EngineWrap::FlowCounters(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<Cidr> allowed;
  if (info.Length() > 0) allowed = parse_cidrs(env, info[0], "network");
  FlowCounts c = engine_->with_views([&](const Views& v) { return count_flows(v, allowed); });
  Napi::Object r = Napi::Object::New(env);
  Napi::Array l4 = Napi::Array::New(env, c.l4.size());
  for (size_t i = 0; i < c.l4.size(); i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("proto", double(c.l4[i].first));
    x.Set("count", double(c.l4[i].second));
    l4.Set(uint32_t(i), x);
  }
  Napi::Array l7 = Napi::Array::New(env, c.l7.size());
  for (size_t i = 0; i < c.l7.size(); i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("master", double(c.l7[i].key >> 16));
    x.Set("app", double(c.l7[i].key & 0xffff));
    x.Set("count", double(c.l7[i].flows));
    x.Set("bps", c.l7[i].bps);
    l7.Set(uint32_t(i), x);
  }
  r.Set("l4", l4);
  r.Set("l7", l7);
  return r;
}

Napi::Value EngineWrap::L7Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return engine_->with_views([&](const Views& v) { return l7_stats_to_js(env, v); });
}

// setIecConfig(allowedTypeIds: number[] | null): the type ids the IEC
// 60870-5-104 unexpected-type-id check allows (null: all, the check off);
// ids from 128 up are never checked (ntopng's Prefs::setIEC104AllowedTypeIDs).
Napi::Value EngineWrap::SetIecConfig(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "setIecConfig(allowedTypeIds: number[] | null)";
  require(info.Length() == 1 && (info[0].IsNull() || info[0].IsArray()), env, usage);
  uint64_t allowed[2] = {~uint64_t(0), ~uint64_t(0)};
  if (info[0].IsArray()) {
    allowed[0] = allowed[1] = 0;
    Napi::Array a = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) {
      Napi::Value v = a.Get(i);
      require(v.IsNumber(), env, usage);
      const double d = v.As<Napi::Number>().DoubleValue();
      require(d >= 0 && d <= 255 && d == double(uint32_t(d)), env, "setIecConfig: type ids are integers 0-255");
      const uint32_t t = uint32_t(d);
      if (t < 128) allowed[t >> 6] |= uint64_t(1) << (t & 63);
    }
  }
  engine_->set_iec_allowed(allowed[0], allowed[1]);
  return env.Undefined();
}

// members: [{ net: 'cidr', vlan, pool } | { mac: 'aa:bb:cc:dd:ee:ff', pool }]
Napi::Value EngineWrap::SetHostPools(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "setHostPools(members: ({ net: string, vlan: number, pool: number } | { mac: string, pool: number })[])";
  require(info.Length() == 1 && info[0].IsArray(), env, usage);
  auto t = std::make_shared<HostPoolTable>();
  Napi::Array a = info[0].As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    require(a.Get(i).IsObject(), env, usage);
    Napi::Object m = a.Get(i).As<Napi::Object>();
    const uint32_t pool = opt_u32(m, "pool", kMaxHostPools);
    require(pool > 0 && pool < kMaxHostPools, env, "setHostPools: pool ids are 1-127");
    if (m.Has("mac")) {
      std::string s = opt_str(m, "mac", "");
      uint8_t mac[6];
      unsigned v[6];
      char tail;
      require(std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) == 6, env,
              "setHostPools: invalid MAC '" + s + "'");
      for (int k = 0; k < 6; k++) mac[k] = uint8_t(v[k]);
      t->add_mac(mac, uint8_t(pool));
    } else {
      Cidr c;
      std::string s = opt_str(m, "net", "");
      require(parse_cidr(s, c), env, "setHostPools: invalid network '" + s + "'");
      const uint32_t vlan = opt_u32(m, "vlan", 0);
      require(vlan < 4096, env, "setHostPools: VLAN ids are 0-4095");
      t->add_net(c, uint16_t(vlan), uint8_t(pool));
    }
  }
  engine_->set_host_pools(std::move(t));
  return env.Undefined();
}

Napi::Value EngineWrap::SetLocalNetworks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1, env, "setLocalNetworks(cidrs: string[])");
  auto cfg = std::make_shared<NetConfig>();
  cfg->local = parse_cidrs(env, info[0], "local network");
  engine_->set_nets(std::move(cfg));
  return env.Undefined();
}

Napi::Value EngineWrap::SetLimits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 2 && info[0].IsNumber() && info[1].IsNumber(), env, "setLimits(maxFlows: number, maxHosts: number)");
  uint32_t mf = info[0].As<Napi::Number>().Uint32Value(), mh = info[1].As<Napi::Number>().Uint32Value();
  memory_.valid = false;  // the tables may be rebuilt
  bool ok;
  try {
    ok = engine_->set_limits(mf, mh);
  } catch (const std::bad_alloc&) {
    // the new tables are built before the old ones go: a worker whose
    // rebuild failed keeps its tables (earlier workers keep their new ones)
    throw_fg(env, "the new tables do not fit in this machine's memory", "E_NOMEM");
  }
  if (!ok) throw_fg(env, "table limits below the current number of flows or hosts", "E_LIMIT");
  return env.Undefined();
}

Napi::Value EngineWrap::DrainExpired(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() >= 1 && info[0].IsArrayBuffer(), env, "drainExpired(buf: ArrayBuffer, max?: number)");
  Napi::ArrayBuffer buf = info[0].As<Napi::ArrayBuffer>();
  size_t max = buf.ByteLength() / sizeof(ExpiredFlow);
  if (info.Length() > 1 && info[1].IsNumber()) max = std::min<size_t>(max, info[1].As<Napi::Number>().Uint32Value());
  size_t n = engine_->drain_expired(static_cast<ExpiredFlow*>(buf.Data()), max);
  return Napi::Number::New(env, double(n));
}

Napi::Value EngineWrap::SetTickListener(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsBoolean(), env, "setTickListener(on: boolean)");
  engine_->set_tick_listener(info[0].As<Napi::Boolean>().Value());
  return env.Undefined();
}

Napi::Value EngineWrap::TickDone(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsNumber(), env, "tickDone(boundary: number)");
  double b = info[0].As<Napi::Number>().DoubleValue();
  require(b >= 0, env, "tickDone(boundary: number)");
  engine_->tick_done(uint64_t(b));
  return env.Undefined();
}

// Traffic per VLAN (non-empty ones) and per local network (by index in the
// local network list), as credited by flow accounting steps.
// The last closed minute's network-check figures of the local networks with any.
Napi::Value EngineWrap::NetworkCheckHits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  struct N { uint32_t index; NetCheckHits h; };
  std::vector<N> nets;
  engine_->with_views([&](const Views& v) {
    // a network's hits are those of its hosts' traffic: summed over the shards
    NetCheckHits sum[Pipeline::kMaxNets] = {};
    for (const Pipeline* pl : v) {
      const NetCheckHits* h = pl->last_net_check_hits();
      for (uint32_t i = 0; i < Pipeline::kMaxNets; i++)
        sum[i].syn_scan_victim += h[i].syn_scan_victim, sum[i].flow_flood_victim += h[i].flow_flood_victim;
    }
    for (uint32_t i = 0; i < Pipeline::kMaxNets; i++)
      if (sum[i].syn_scan_victim | sum[i].flow_flood_victim) nets.push_back({i, sum[i]});
    return 0;
  });
  Napi::Array out = Napi::Array::New(env, nets.size());
  for (size_t i = 0; i < nets.size(); i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("index", double(nets[i].index));
    x.Set("syn_scan_victim", double(nets[i].h.syn_scan_victim));
    x.Set("flow_flood_victim", double(nets[i].h.flow_flood_victim));
    out.Set(uint32_t(i), x);
  }
  return out;
}

// The last closed minute's ARP packets naming a broadcast domain too large:
// {events: [{src_mac, dst_mac, vlan, spa, tpa}], over: those not kept}.
Napi::Value EngineWrap::BcastTooLargeEvents(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // worker 0 takes every ARP frame (engine/spread.h): its log is the interface's
  BcastTooLargeLog log = engine_->with_views([&](const Views& v) { return v[0]->last_bcast_too_large(); });
  auto mac = [](const uint8_t* m) {
    char b[18];
    std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
    return std::string(b);
  };
  auto ip = [](uint32_t a) { return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255); };
  Napi::Array ev = Napi::Array::New(env, log.n);
  for (uint32_t i = 0; i < log.n; i++) {
    const fg::BcastTooLarge& e = log.ev[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("src_mac", mac(e.src_mac));
    x.Set("dst_mac", mac(e.dst_mac));
    x.Set("vlan", double(e.vlan));
    x.Set("spa", ip(e.spa));
    x.Set("tpa", ip(e.tpa));
    ev.Set(i, x);
  }
  Napi::Object r = Napi::Object::New(env);
  r.Set("events", ev);
  r.Set("over", double(log.over));
  return r;
}

// The local hosts that have a MAC, packed for the device checks (no object
// per host): triplets [IPv4 address as a number (-1: IPv6), VLAN, MAC as a
// 48-bit number]. Over several shards, one triplet per host (its first part
// with a MAC).
Napi::Value EngineWrap::LocalMacs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<double> v;
  engine_->with_views([&](const Views& views) {
    std::unordered_set<HostKey, HostKeyHash> seen;  // several shards: the hosts listed
    for (const Pipeline* pl : views) {
      const HostTable& ht = pl->hosts();
      for (uint32_t i = 0; i < ht.span(); i++) {
        if (!ht.used(i)) continue;
        const fg::Host& h = ht[i];
        if ((h.flags & (kHostLocal | kHostHasMac)) != (kHostLocal | kHostHasMac)) continue;
        if (views.size() > 1 && !seen.insert(h.key).second) continue;
        uint64_t m = 0;
        for (int b = 0; b < 6; b++) m = (m << 8) | h.mac[b];
        v.push_back(h.key.ip.is_v4() ? double(h.key.ip.v4()) : -1.0);
        v.push_back(double(h.key.vlan));
        v.push_back(double(m));
      }
    }
    return 0;
  });
  Napi::Float64Array out = Napi::Float64Array::New(env, v.size());
  if (!v.empty()) std::memcpy(out.Data(), v.data(), v.size() * sizeof(double));
  return out;
}

// The local hosts whose MAC is a networking device (ntopng's IpAddress::isGateway,
// set by LocalHost::checkGatewayInfo): [{ip, vlan}], for the unexpected gateway check.
// Over several shards: each host once, a networking device when any shard's
// MAC table learned its MAC as one (as merge_host_row's device type).
Napi::Value EngineWrap::GatewayHosts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<std::pair<IpAddr, uint16_t>> v;
  engine_->with_views([&](const Views& views) {
    std::unordered_set<HostKey, HostKeyHash> seen;  // several shards: the hosts judged
    for (const Pipeline* pl : views) {
      const HostTable& ht = pl->hosts();
      for (uint32_t i = 0; i < ht.span(); i++) {
        if (!ht.used(i)) continue;
        const fg::Host& h = ht[i];
        if ((h.flags & (kHostLocal | kHostHasMac)) != (kHostLocal | kHostHasMac) || (h.flags & kHostBroadcast)) continue;
        if (views.size() > 1 && !seen.insert(h.key).second) continue;
        bool gateway = false;
        for (const Pipeline* m : views) gateway = gateway || m->mac_devtype(h.mac) == kDevNetworking;
        if (gateway) v.emplace_back(h.key.ip, h.key.vlan);
      }
    }
    return 0;
  });
  Napi::Array out = Napi::Array::New(env, v.size());
  for (size_t k = 0; k < v.size(); k++) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("ip", format_ip(v[k].first));
    o.Set("vlan", double(v[k].second));
    out.Set(uint32_t(k), o);
  }
  return out;
}

Napi::Value EngineWrap::TrafficBy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  struct V { uint32_t vlan; VlanTraffic t; };
  struct N { uint32_t index; NetTraffic t; };
  struct C { uint16_t cc; CountryTraffic t; };
  std::vector<V> vlans;
  std::vector<N> nets;
  std::vector<C> countries;
  engine_->with_views([&](const Views& views) {
    // flow accounting credits these: each flow's in its shard, summed here
    std::vector<VlanTraffic> vt(Pipeline::kVlans);
    std::vector<NetTraffic> nt(Pipeline::kMaxNets);
    std::vector<CountryTraffic> ct(kCountrySlots);
    for (const Pipeline* pl : views) {
      const VlanTraffic* a = pl->vlan_traffic();
      for (uint32_t v = 0; v < Pipeline::kVlans; v++)
        for (int d = 0; d < 2; d++) vt[v].bytes[d] += a[v].bytes[d], vt[v].pkts[d] += a[v].pkts[d];
      const NetTraffic* b = pl->net_traffic();
      for (uint32_t i = 0; i < Pipeline::kMaxNets; i++) {
        NetTraffic& x = nt[i];
        x.ingress += b[i].ingress, x.egress += b[i].egress, x.inner += b[i].inner, x.packets += b[i].packets;
        x.retr += b[i].retr, x.ooo += b[i].ooo, x.lost += b[i].lost;
      }
      const CountryTraffic* c = pl->country_traffic();
      for (uint16_t k = 1; k < kCountrySlots; k++) ct[k].ingress += c[k].ingress, ct[k].egress += c[k].egress, ct[k].inner += c[k].inner;
    }
    for (uint32_t v = 0; v < Pipeline::kVlans; v++)
      if (vt[v].pkts[0] | vt[v].pkts[1]) vlans.push_back({v, vt[v]});
    for (uint32_t i = 0; i < Pipeline::kMaxNets; i++)
      if (nt[i].ingress | nt[i].egress | nt[i].inner) nets.push_back({i, nt[i]});
    for (uint16_t c = 1; c < kCountrySlots; c++)
      if (ct[c].ingress | ct[c].egress | ct[c].inner) countries.push_back({c, ct[c]});
    return 0;
  });
  Napi::Object r = Napi::Object::New(env);
  Napi::Array va = Napi::Array::New(env, vlans.size());
  for (size_t i = 0; i < vlans.size(); i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("vlan", double(vlans[i].vlan));
    x.Set("bytes_sent", double(vlans[i].t.bytes[0]));
    x.Set("bytes_rcvd", double(vlans[i].t.bytes[1]));
    x.Set("packets_sent", double(vlans[i].t.pkts[0]));
    x.Set("packets_rcvd", double(vlans[i].t.pkts[1]));
    va.Set(uint32_t(i), x);
  }
  Napi::Array na = Napi::Array::New(env, nets.size());
  for (size_t i = 0; i < nets.size(); i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("index", double(nets[i].index));
    x.Set("ingress", double(nets[i].t.ingress));
    x.Set("egress", double(nets[i].t.egress));
    x.Set("inner", double(nets[i].t.inner));
    x.Set("packets", double(nets[i].t.packets));
    x.Set("retransmissions", double(nets[i].t.retr));
    x.Set("out_of_order", double(nets[i].t.ooo));
    x.Set("lost", double(nets[i].t.lost));
    na.Set(uint32_t(i), x);
  }
  Napi::Array ca = Napi::Array::New(env, countries.size());
  for (size_t i = 0; i < countries.size(); i++) {
    Napi::Object x = Napi::Object::New(env);
    char cc[3];
    country_letters(countries[i].cc, cc);
    x.Set("country", cc);
    x.Set("ingress", double(countries[i].t.ingress));
    x.Set("egress", double(countries[i].t.egress));
    x.Set("inner", double(countries[i].t.inner));
    ca.Set(uint32_t(i), x);
  }
  r.Set("vlans", va);
  r.Set("networks", na);
  r.Set("countries", ca);
  return r;
}

Napi::Value EngineWrap::ExpireActive(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsNumber(), env, "expireActive(max: number)");
  // never more than the rings can take before the caller drains them (Engine::expire_active)
  return Napi::Number::New(env, double(engine_->expire_active(info[0].As<Napi::Number>().Uint32Value())));
}

// The frames each worker took (its shard's packet counter), in worker order.
Napi::Value EngineWrap::WorkerPackets(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<uint64_t> n = engine_->with_views([&](const Views& v) {
    std::vector<uint64_t> r;
    for (const Pipeline* pl : v) r.push_back(pl->stats().packets);
    return r;
  });
  Napi::Array a = Napi::Array::New(env, n.size());
  for (size_t i = 0; i < n.size(); i++) a.Set(uint32_t(i), double(n[i]));
  return a;
}

Napi::Value EngineWrap::SetEgressPolicies(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1, env, "setEgressPolicies(policies: object)");
  const Egress* eg = engine_->egress();
  if (!eg) throw_fg(env, "this engine has no egress outputs (engine option egress)", "E_STATE");
  // Built here, off the packet path; swapped in whole between two batches.
  engine_->set_egress_policy(parse_policies(env, info[0], *eg));
  return env.Undefined();
}

Napi::Value EngineWrap::ReplayInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Engine::ReplayInfo r = engine_->replay_info();
  Napi::Object o = Napi::Object::New(env);
  o.Set("passes", double(r.passes));
  o.Set("periodNs", Napi::BigInt::New(env, r.period_ns));  // exact: ns times pass 2^53
  o.Set("firstNs", Napi::BigInt::New(env, r.first_ns));
  return o;
}

// null when the engine does not record.
Napi::Value EngineWrap::RecorderStatsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Recorder* r = engine_->recorder();
  if (!r) return env.Null();
  const RecorderStats s = r->stats();
  Napi::Object o = Napi::Object::New(env);
  o.Set("dir", r->dir());
  o.Set("packets", double(s.packets));
  o.Set("bytes", double(s.bytes));
  o.Set("drops", double(s.drops));
  o.Set("writeErrors", double(s.write_errors));
  o.Set("files", double(s.files));
  o.Set("filesDeleted", double(s.files_deleted));
  o.Set("diskBytes", double(s.disk_bytes));
  o.Set("ringBytes", double(s.ring_bytes));
  o.Set("ringUsed", double(s.ring_used));
  o.Set("lastError", s.last_error);
  return o;
}

Napi::Value EngineWrap::EgressStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object r = Napi::Object::New(env);
  Napi::Array rows = Napi::Array::New(env);
  r.Set("targets", rows);
  if (!engine_->egress()) return r;
  engine_->with_egress([&](const std::vector<const Egress*>& lanes, const PolicyTable& tab) {
    // one row per target, each worker's counters summed
    const Egress& eg = *lanes[0];
    for (size_t i = 0; i < eg.targets().size(); i++) {
      const Egress::Target& t = eg.targets()[i];
      Napi::Object x = Napi::Object::New(env);
      x.Set("target", target_kind_name(t.kind));
      if (t.kind == TargetKind::Aggregated) x.Set("queue", double(t.queue));
      std::string out;
      if (t.kind == TargetKind::Bridge) {
        out = "bridge:" + t.outputs[1]->name().substr(6) + "," + t.outputs[0]->name().substr(6);
      } else {
        for (size_t k = 0; k < t.outputs.size(); k++) out += (k ? "," : "") + t.outputs[k]->name();
      }
      x.Set("output", out);
      TargetCounters c;
      uint64_t drops = 0;
      for (const Egress* l : lanes) {
        const TargetCounters& lc = l->targets()[i].c;
        c.packets += lc.packets, c.bytes += lc.bytes, c.forwarded += lc.forwarded, c.forwarded_bytes += lc.forwarded_bytes;
        c.discarded += lc.discarded, c.shunted += lc.shunted, c.sliced += lc.sliced;
        for (int a = 0; a < kActionCount; a++) c.action_packets[a] += lc.action_packets[a];
        for (const auto& o : l->targets()[i].outputs) drops += o->drops;
      }
      x.Set("packets", double(c.packets));
      x.Set("bytes", double(c.bytes));
      x.Set("forwarded", double(c.forwarded));
      x.Set("forwarded_bytes", double(c.forwarded_bytes));
      x.Set("discarded", double(c.discarded));
      x.Set("shunted", double(c.shunted));
      x.Set("sliced", double(c.sliced));
      x.Set("output_drops", double(drops));
      Napi::Object acts = Napi::Object::New(env);
      for (int a = 0; a < kActionCount; a++) acts.Set(action_name(Action(a)), double(c.action_packets[a]));
      x.Set("actions", acts);
      Napi::Array pols = Napi::Array::New(env);
      if (i < tab.targets.size()) {
        const TargetPolicy& p = *tab.targets[i];
        static const char* const kScopes[] = {"default", "subnet", "protocol"};
        const size_t nr = p.rules.size();
        for (size_t k = 0; k < nr; k++) {
          Napi::Object y = Napi::Object::New(env);
          y.Set("scope", kScopes[p.rules[k].scope]);
          if (p.rules[k].scope != PolicyRule::Default) y.Set("match", p.rules[k].match);
          y.Set("action", action_name(p.rules[k].action));
          uint64_t rp = 0, rb = 0;
          for (size_t l = 0; l < lanes.size(); l++) rp += p.counters[l * nr + k].packets, rb += p.counters[l * nr + k].bytes;
          y.Set("packets", double(rp));
          y.Set("bytes", double(rb));
          pols.Set(uint32_t(k), y);
        }
      }
      x.Set("policies", pols);
      Napi::Array outs = Napi::Array::New(env);
      for (size_t k = 0; k < t.outputs.size(); k++) {
        const Output& o = *t.outputs[k];
        Napi::Object y = Napi::Object::New(env);
        y.Set("queue", double(k));
        y.Set("output", o.name());
        uint64_t packets = 0, bytes = 0, sent = 0, odrops = 0;
        std::string error;
        for (const Egress* l : lanes) {
          const Output& lo = *l->targets()[i].outputs[k];
          packets += lo.packets, bytes += lo.bytes, sent += lo.sent, odrops += lo.drops;
          if (error.empty()) error = lo.last_error;
        }
        const auto* f = dynamic_cast<const PcapFileOutput*>(&o);
        if (f) y.Set("file", f->current_path());
        y.Set("packets", double(packets));
        y.Set("bytes", double(bytes));
        y.Set("written", double(sent));
        y.Set("drops", double(odrops));
        y.Set("files", double(f ? f->files_opened() : o.files));
        if (!error.empty()) y.Set("error", error);
        outs.Set(uint32_t(k), y);
      }
      x.Set("outputs", outs);
      rows.Set(uint32_t(i), x);
    }
    return 0;
  });
  return r;
}

// A page of a behaviour map (flow/behaviour_maps.h): behaviourMap('service' |
// 'periodicity', {host?, vlan?, app?, allowed?, sort?, order?, start?, length?})
// → {total, entries, max, full, rows}. The periodicity map lists periodic keys
// only. Matching entries are copied under the batch lock (a few MB at most),
// sorted and cut outside it; only the page becomes JS objects. Over several
// shards the maps are merged by key (behaviour_merge) and entries / max /
// full are the shards' sums.
Napi::Value EngineWrap::BehaviourMapPage(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 2 && info[0].IsString() && info[1].IsObject(), env, "behaviourMap(which: string, query: object)");
  const std::string which = info[0].As<Napi::String>().Utf8Value();
  require(which == "service" || which == "periodicity", env, "behaviourMap: which is 'service' or 'periodicity'");
  const bool periodicity = which == "periodicity";
  Napi::Object o = info[1].As<Napi::Object>();
  const std::string host = opt_str(o, "host", "");
  IpAddr hip{};
  if (!host.empty()) require(parse_ip(host, hip), env, "invalid host '" + host + "'");
  const double vlan = opt_num(o, "vlan", -1), app = opt_num(o, "app", -1);
  const std::vector<Cidr> allowed = parse_cidrs(env, o.Get("allowed"), "network");
  const std::string sort = opt_str(o, "sort", "last_seen"), order = opt_str(o, "order", "desc");
  const uint32_t start = opt_u32(o, "start", 0), length = opt_u32(o, "length", 10);
  auto keep = [&](const BehaviourEntry& e) {
    if (!host.empty() && !(e.k.cli == hip) && !(e.k.srv == hip)) return false;
    if (vlan >= 0 && e.k.vlan != uint16_t(vlan)) return false;
    if (app >= 0 && e.k.app != uint16_t(app) && e.k.master != uint16_t(app)) return false;
    if (!allowed.empty() && !allowed_ip(allowed, e.k.cli) && !allowed_ip(allowed, e.k.srv)) return false;
    return true;
  };
  std::vector<BehaviourEntry> v;
  uint32_t entries = 0, max = 0;
  uint64_t full = 0;
  engine_->with_views([&](const Views& views) {
    if (views.size() == 1) {
      const Pipeline& pl = *views.front();
      const BehaviourMap& m = periodicity ? pl.periodicity_map() : pl.service_map();
      entries = m.size(), max = m.max(), full = m.full();
      for (uint32_t i = 0; i < m.slots(); i++) {
        const BehaviourEntry& e = m.slot(i);
        if (e.used && (!periodicity || BehaviourMap::periodic(e)) && keep(e)) v.push_back(e);
      }
      return;
    }
    std::unordered_map<BehaviourKey, uint32_t, BehaviourKeyHash> at;
    std::vector<uint32_t> best;  // per merged entry: the observations of the part its period and info came from
    for (const Pipeline* pl : views) {
      const BehaviourMap& m = periodicity ? pl->periodicity_map() : pl->service_map();
      entries += m.size(), max += m.max(), full += m.full();
      for (uint32_t i = 0; i < m.slots(); i++) {
        const BehaviourEntry& e = m.slot(i);
        if (!e.used || !keep(e)) continue;
        auto [it, fresh] = at.try_emplace(e.k, uint32_t(v.size()));
        if (fresh) {
          v.push_back(e), best.push_back(e.observations);
          continue;
        }
        behaviour_merge(v[it->second], best[it->second], e);
      }
    }
    // periodic or not as merged: the runs' starts of every shard
    if (periodicity) v.erase(std::remove_if(v.begin(), v.end(), [](const BehaviourEntry& e) { return !BehaviourMap::periodic(e); }), v.end());
  });
  // the sort column: a number, or an address (client, server)
  static const char* const kCols[] = {"last_seen", "first_seen", "num_uses", "observations", "frequency", "duration", "port", "l7proto", "client", "server"};
  int col = 0;
  for (int c = 0; c < 10; c++)
    if (sort == kCols[c]) col = c;
  auto num = [col](const BehaviourEntry& e) -> int64_t {
    switch (col) {
      case 1: return int64_t(e.first_ns);
      case 2: return e.uses;
      case 3: return e.observations;
      case 4: return e.period_ms;
      case 5: return int64_t(e.last_ns - e.first_ns);
      case 6: return e.k.port;
      case 7: return int64_t(e.k.master) << 16 | e.k.app;
      default: return int64_t(e.last_ns);
    }
  };
  auto ipcmp = [](const IpAddr& a, const IpAddr& b) { return std::memcmp(a.b, b.b, 16); };
  auto cmp = [&](const BehaviourEntry& a, const BehaviourEntry& b) {
    if (col == 8) return ipcmp(a.k.cli, b.k.cli);
    if (col == 9) return ipcmp(a.k.srv, b.k.srv);
    const int64_t x = num(a), y = num(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const bool desc = order != "asc";
  // ties in a fixed order (client, server, port): pages do not overlap
  std::sort(v.begin(), v.end(), [&](const BehaviourEntry& a, const BehaviourEntry& b) {
    int c = cmp(a, b);
    if (c) return desc ? c > 0 : c < 0;
    if ((c = ipcmp(a.k.cli, b.k.cli))) return c < 0;
    if ((c = ipcmp(a.k.srv, b.k.srv))) return c < 0;
    return std::memcmp(&a.k, &b.k, sizeof a.k) < 0;
  });
  const size_t from = std::min<size_t>(start, v.size()), to = std::min<size_t>(v.size(), from + length);
  Napi::Array rows = Napi::Array::New(env, to - from);
  for (size_t i = from; i < to; i++) {
    const BehaviourEntry& e = v[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("client", format_ip(e.k.cli));
    x.Set("server", format_ip(e.k.srv));
    x.Set("port", double(e.k.port));
    x.Set("l4", double(e.k.l4));
    x.Set("vlan", double(e.k.vlan));
    x.Set("l7_master", double(e.k.master));
    x.Set("l7_app", double(e.k.app));
    x.Set("first_seen", double(e.first_ns / 1000000000ULL));
    x.Set("last_seen", double(e.last_ns / 1000000000ULL));
    x.Set("uses", double(e.uses));
    x.Set("observations", double(e.observations));
    x.Set("period_ms", double(e.period_ms));
    x.Set("info", std::string(e.info, strnlen(e.info, sizeof e.info)));
    rows.Set(uint32_t(i - from), x);
  }
  Napi::Object r = Napi::Object::New(env);
  r.Set("total", double(v.size()));
  r.Set("entries", double(entries));
  r.Set("max", double(max));
  r.Set("full", double(full));
  r.Set("rows", rows);
  return r;
}

// ntopng's NetworkInterface::getRxOnlyHostsList, both ways, for local and
// remote hosts: noTxPeers(allowed?) → {local, remote}, each
// {hosts_with_ports_count, host_peers}: address → {tcp_num_contacted_peers_as_client,
// tcp_num_peers_contacts_rcvd_as_server, tcp_num_ports_contacted_as_client}.
// hosts_with_ports_count: the unicast hosts with a no-TX count; host_peers: the
// clients (with a count) of active flows whose server has never sent a packet.
Napi::Value EngineWrap::NoTxPeers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<Cidr> allowed = info.Length() > 0 ? parse_cidrs(env, info[0], "network") : std::vector<Cidr>{};
  std::vector<NoTxRow> rows;
  engine_->with_views([&](const Views& views) {
    if (views.size() > 1) return no_tx_rows_merged(views, allowed, rows);
    const Pipeline& pl = *views.front();
    const HostTable& ht = pl.hosts();
    const HostL7Table& l7 = pl.host_l7();
    auto counts = [&](uint32_t i, bool peer) {
      const fg::Host& h = ht[i];
      if (h.flags & (kHostBroadcast | kHostMulticast) || !allowed_ip(allowed, h.key.ip)) return;
      const uint32_t a = l7.contact_estimate(i, kContactNoTxOut), b = l7.contact_estimate(i, kContactNoTxIn);
      if (a || b) rows.push_back({h.key.ip, a, b, l7.contact_estimate(i, kContactNoTxPorts), bool(h.flags & kHostLocal), peer});
    };
    for (uint32_t i = 0; i < ht.span(); i++)
      if (ht.used(i)) counts(i, false);
    const FlowTable& ft = pl.flows();
    for (uint32_t j = 0; j < ft.span(); j++) {
      if (!ft.used(j)) continue;
      const Flow& f = ft[j];
      if (f.cli_host == HashIndex::kNone || f.srv_host == HashIndex::kNone) continue;
      const fg::Host& s = ht[f.srv_host];
      if (s.flags & (kHostBroadcast | kHostMulticast) || s.pkts(0) != 0) continue;  // Host::isRxOnlyHost
      counts(f.cli_host, true);
    }
  });
  Napi::Object out = Napi::Object::New(env);
  for (const bool local : {true, false}) {
    Napi::Object side = Napi::Object::New(env), with = Napi::Object::New(env), peers = Napi::Object::New(env);
    for (const NoTxRow& r : rows) {
      if (r.local != local) continue;
      Napi::Object x = Napi::Object::New(env);
      x.Set("tcp_num_contacted_peers_as_client", double(r.out));
      x.Set("tcp_num_peers_contacts_rcvd_as_server", double(r.in));
      x.Set("tcp_num_ports_contacted_as_client", double(r.ports));
      (r.peer ? peers : with).Set(format_ip(r.ip), x);  // a client of several such flows: once
    }
    side.Set("hosts_with_ports_count", with);
    side.Set("host_peers", peers);
    out.Set(local ? "local" : "remote", side);
  }
  return out;
}

// The top visited sites (flow/top_sites.h): topSites() the interface's,
// topSites(ip, vlan) a host's (null: no such host) → [{site, contacts}],
// most visited first.
Napi::Value EngineWrap::TopSitesList(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool one = info.Length() > 0 && !info[0].IsUndefined();
  IpAddr ip{};
  uint16_t vlan = 0;
  if (one) {
    require(info[0].IsString() && info.Length() > 1 && info[1].IsNumber(), env, "topSites(ip?: string, vlan: number)");
    require(parse_ip(info[0].As<Napi::String>().Utf8Value(), ip), env, "topSites: invalid IP address");
    vlan = uint16_t(info[1].As<Napi::Number>().Uint32Value());
  }
  // Over several shards: the interface's lists merged, or the host's parts'
  // (null only when no shard has the host).
  bool found = !one;
  TopSites t = engine_->with_views([&](const Views& views) {
    TopSites acc{};
    bool first = true;
    auto add = [&](const TopSites& s) {
      if (first) acc = s, first = false;
      else acc.merge(s);
    };
    const HostKey k{ip, vlan};
    const uint64_t hash = hash_host_key(k);
    for (const Pipeline* pl : views) {
      if (!one) {
        add(pl->iface_sites());
        continue;
      }
      const uint32_t i = pl->hosts().find(k, hash);
      if (i == HashIndex::kNone) continue;
      found = true;
      if (TopSites s; pl->host_sites(i, s)) add(s);
    }
    return acc;
  });
  if (!found) return env.Null();
  t.sort();
  Napi::Array a = Napi::Array::New(env, t.n);
  for (uint32_t i = 0; i < t.n; i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("site", t.name[i]);
    x.Set("contacts", double(t.count[i]));
    a.Set(i, x);
  }
  return a;
}

}  // namespace fg
