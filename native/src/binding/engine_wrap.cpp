#include "binding/engine_wrap.h"

#include <algorithm>
#include <cstring>

#include "binding/convert.h"

namespace fg {
namespace {

void require(bool ok, Napi::Env env, const char* msg) {
  if (!ok) throw Napi::TypeError::New(env, msg);
}

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
                         InstanceMethod("flows", &EngineWrap::Flows),
                         InstanceMethod("flowCounters", &EngineWrap::FlowCounters),
                         InstanceMethod("l7Stats", &EngineWrap::L7Stats),
                         InstanceMethod("setLocalNetworks", &EngineWrap::SetLocalNetworks),
                         InstanceMethod("setLimits", &EngineWrap::SetLimits),
                         InstanceMethod("drainExpired", &EngineWrap::DrainExpired),
                     });
}

EngineWrap::EngineWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EngineWrap>(info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsObject(), env, "NativeEngine(options: object)");
  Napi::Object o = info[0].As<Napi::Object>();
  EngineConfig cfg;
  Napi::Value files = o.Get("files");
  if (!files.IsUndefined()) {
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
  cfg.limits.local_host_idle_ns = secs_ns(opt_num(o, "localHostIdleSec", 300));
  cfg.limits.remote_host_idle_ns = secs_ns(opt_num(o, "remoteHostIdleSec", 60));
  cfg.limits.dpi = opt_bool(o, "dpi", true);
  cfg.limits.l7_entries_per_host = opt_u32(o, "l7EntriesPerHost", cfg.limits.l7_entries_per_host);
  require(cfg.limits.max_flows >= 1 && cfg.limits.max_hosts >= 2, env, "maxFlows must be >= 1 and maxHosts >= 2");
  cfg.mode = Mode(opt_u32(o, "mode", 0));
  require(uint32_t(cfg.mode) <= 2, env, "mode must be 0 (full), 1 (read-only) or 2 (decode-only)");
  cfg.replay_speed = opt_num(o, "replaySpeed", 0);
  cfg.loop = opt_bool(o, "loop", false);
  cfg.flush_at_end = opt_bool(o, "flushAtEnd", false);
  cfg.prefault = opt_bool(o, "prefault", false);
  cfg.ring_records = opt_u32(o, "ringRecords", cfg.ring_records);
  const char* code = cfg.files.empty() ? "E_CAPTURE_OPEN" : "E_FILE_OPEN";
  try {
    engine_ = std::make_unique<Engine>(std::move(cfg));
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
  // Events are string literals ("done", "expired"): safe to pass by pointer.
  engine_->start([this, t](const char* ev) mutable {
    const bool done = std::strcmp(ev, "done") == 0;
    t.NonBlockingCall([this, ev, done](Napi::Env env, Napi::Function cb) {
      if (done && referenced_) {
        referenced_ = false;
        Unref();
      }
      cb.Call({Napi::String::New(env, ev)});
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
  return o;
}

Napi::Value EngineWrap::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return engine_->with_view([&](const Pipeline& pl) { return stats_to_js(env, *engine_, pl); });
}

Napi::Value EngineWrap::Hosts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsObject(), env, "hosts(query: object)");
  Napi::Object o = info[0].As<Napi::Object>();
  HostQuery q;
  q.sort = HostSort(opt_u32(o, "sort", 0));
  require(uint32_t(q.sort) <= uint32_t(HostSort::Rcvd), env, "invalid host sort");
  q.desc = opt_bool(o, "desc", false);
  q.offset = opt_u32(o, "offset", 0);
  q.limit = opt_u32(o, "limit", 10);
  q.mode = HostMode(opt_u32(o, "mode", 0));
  require(uint32_t(q.mode) <= uint32_t(HostMode::Multicast), env, "invalid host mode");
  q.vlan = int(opt_num(o, "vlan", -1));
  q.allowed = parse_cidrs(env, o.Get("allowed"), "network");
  q.detail = opt_bool(o, "detail", false);
  HostPage page = engine_->with_view([&](const Pipeline& pl) { return query_hosts(pl, q); });
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
  bool found = engine_->with_view([&](const Pipeline& pl) { return find_host(pl, ip, vlan, row); });
  if (!found) return env.Null();
  return host_to_js(env, row);
}

Napi::Value EngineWrap::Flows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require(info.Length() == 1 && info[0].IsObject(), env, "flows(query: object)");
  Napi::Object o = info[0].As<Napi::Object>();
  FlowQuery q;
  q.sort = FlowSort(opt_u32(o, "sort", 0));
  require(uint32_t(q.sort) <= uint32_t(FlowSort::Packets), env, "invalid flow sort");
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
  FlowPage page = engine_->with_view([&](const Pipeline& pl) { return query_flows(pl, q); });
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
  FlowCounts c = engine_->with_view([&](const Pipeline& pl) { return count_flows(pl, allowed); });
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
    x.Set("master", double(c.l7[i].first >> 16));
    x.Set("app", double(c.l7[i].first & 0xffff));
    x.Set("count", double(c.l7[i].second));
    l7.Set(uint32_t(i), x);
  }
  r.Set("l4", l4);
  r.Set("l7", l7);
  return r;
}

Napi::Value EngineWrap::L7Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return engine_->with_view([&](const Pipeline& pl) { return l7_stats_to_js(env, pl); });
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
  if (!engine_->set_limits(mf, mh))
    throw_fg(env, "table limits below the current number of flows or hosts", "E_LIMIT");
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

}  // namespace fg
