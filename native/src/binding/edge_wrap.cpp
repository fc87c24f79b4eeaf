// ⑥ Gateway mode's native parts: NativeVlanBridge, user-space 802.1Q
// subinterfaces of one parent (edge/vlan_bridge.h), for kernels without
// 8021q; NativeRepeater, a broadcast / multicast forwarder (edge/repeater.h).
#include <napi.h>

#include <memory>
#include <stdexcept>

#include "binding/convert.h"
#include "binding/engine_wrap.h"
#include "edge/repeater.h"
#include "edge/vlan_bridge.h"

namespace fg {
namespace {

class VlanWrap : public Napi::ObjectWrap<VlanWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeVlanBridge",
                       {InstanceMethod("add", &VlanWrap::Add), InstanceMethod("remove", &VlanWrap::Remove),
                        InstanceMethod("counters", &VlanWrap::Counters), InstanceMethod("close", &VlanWrap::Close)});
  }

  explicit VlanWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<VlanWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "NativeVlanBridge(parent)");
    try {
      b_ = std::make_unique<VlanBridge>(info[0].As<Napi::String>().Utf8Value());
    } catch (const std::exception& e) {
      throw_fg(env, e.what(), "E_VLAN");
    }
  }

 private:
  uint16_t vid(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!b_) throw_fg(env, "VLAN bridge closed", "E_STATE");
    if (info.Length() != 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "a VLAN id");
    uint32_t v = info[0].As<Napi::Number>().Uint32Value();
    if (v < 1 || v > 4094) throw Napi::RangeError::New(env, "VLAN id 1-4094");
    return uint16_t(v);
  }
  Napi::Value Add(const Napi::CallbackInfo& info) {
    uint16_t v = vid(info);
    try {
      return Napi::String::New(info.Env(), b_->add(v));
    } catch (const std::exception& e) {
      throw_fg(info.Env(), e.what(), "E_VLAN");
    }
    return info.Env().Undefined();
  }
  Napi::Value Remove(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), b_->remove(vid(info))); }
  Napi::Value Counters(const Napi::CallbackInfo& info) {
    Napi::Object o = Napi::Object::New(info.Env());
    VlanBridge::Counters c = b_ ? b_->counters() : VlanBridge::Counters{0, 0, 0};
    o.Set("in", double(c.in)), o.Set("out", double(c.out)), o.Set("dropped", double(c.dropped));
    return o;
  }
  Napi::Value Close(const Napi::CallbackInfo& info) {
    b_.reset();
    return info.Env().Undefined();
  }

  std::unique_ptr<VlanBridge> b_;
};

class RepeaterWrap : public Napi::ObjectWrap<RepeaterWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeRepeater", {InstanceMethod("repeated", &RepeaterWrap::Repeated), InstanceMethod("close", &RepeaterWrap::Close)});
  }

  explicit RepeaterWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RepeaterWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "NativeRepeater({ group, port, trusted, restricted })");
    Napi::Object o = info[0].As<Napi::Object>();
    RepeaterConfig c;
    c.group = o.Get("group").IsNumber() ? o.Get("group").As<Napi::Number>().Uint32Value() : 0;
    c.port = o.Get("port").IsNumber() ? uint16_t(o.Get("port").As<Napi::Number>().Uint32Value()) : 0;
    auto names = [&](const char* k, std::vector<std::string>& out) {
      Napi::Value v = o.Get(k);
      if (!v.IsArray()) return;
      Napi::Array a = v.As<Napi::Array>();
      for (uint32_t i = 0; i < a.Length(); i++)
        if (a.Get(i).IsString()) out.push_back(a.Get(i).As<Napi::String>().Utf8Value());
    };
    names("trusted", c.trusted);
    names("restricted", c.restricted);
    try {
      r_ = std::make_unique<Repeater>(std::move(c));
    } catch (const std::exception& e) {
      throw_fg(env, e.what(), "E_REPEATER");
    }
  }

 private:
  Napi::Value Repeated(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), r_ ? double(r_->repeated()) : 0); }
  Napi::Value Close(const Napi::CallbackInfo& info) {
    r_.reset();
    return info.Env().Undefined();
  }
  std::unique_ptr<Repeater> r_;
};

}  // namespace

void register_edge(Napi::Env env, Napi::Object exports) {
  exports.Set("NativeVlanBridge", VlanWrap::Init(env));
  exports.Set("NativeRepeater", RepeaterWrap::Init(env));
}

}  // namespace fg
