// ⑥ Addon entry: registers NativeEngine, the error class hook, and stops
// every engine when the environment shuts down.
#include <napi.h>
#include <pcap/pcap.h>

#include <cstring>
#include <string>

#include "binding/convert.h"
#include "binding/engine_wrap.h"
#include "dpi/sqli.h"
#include "dpi/xss.h"
#include "flow/flow.h"
#include "flow/host.h"
#include "flow/host_checks.h"

namespace fg {
namespace {

Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsFunction()) throw Napi::TypeError::New(env, "setErrorClass(cls)");
  env.GetInstanceData<AddonData>()->error_class = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

Napi::Value Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("libpcap", pcap_lib_version());
  o.Set("flowEntryBytes", double(sizeof(Flow)));
  o.Set("hostEntryBytes", double(sizeof(Host)));
  o.Set("expiredFlow", expired_layout(env));
  o.Set("stats", stats_layout(env));
  o.Set("dpi", dpi_registry(env));
  Napi::Array errs = Napi::Array::New(env, kDecodeErrorCount);
  for (size_t i = 0; i < kDecodeErrorCount; i++) errs.Set(uint32_t(i), decode_error_name(DecodeError(i)));
  o.Set("decodeErrors", errs);
  Napi::Array checks = Napi::Array::New(env, kHostCheckCount);
  for (uint32_t c = 0; c < kHostCheckCount; c++) checks.Set(c, kHostCheckNames[c]);
  o.Set("hostChecks", checks);  // the order hostCheckHits() takes its thresholds in
  return o;
}

// Diagnostics: libinjection's verdicts on one URL-decoded query value, as
// nDPI's URL validation asks them (read as a C string: up to a NUL).
Napi::Value Libinjection(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string v;
  if (info.Length() == 1 && info[0].IsString())
    v = info[0].As<Napi::String>().Utf8Value();
  else if (info.Length() == 1 && info[0].IsBuffer())
    v.assign(info[0].As<Napi::Buffer<char>>().Data(), info[0].As<Napi::Buffer<char>>().Length());
  else
    throw Napi::TypeError::New(env, "libinjection(value: string | Buffer)");
  v.resize(strnlen(v.data(), v.size()));
  char fp[8];
  Napi::Object o = Napi::Object::New(env);
  o.Set("xss", xss(v.data(), v.size()));
  o.Set("sqli", sqli(v.data(), v.size(), fp));
  o.Set("fingerprint", fp);  // the deciding context's, "" when not SQLi
  return o;
}

void Cleanup(void* arg) {
  auto* d = static_cast<AddonData*>(arg);
  auto live = d->live;
  for (EngineWrap* w : live) w->shutdown();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData<AddonData>(data);
  data->engine_ctor = Napi::Persistent(EngineWrap::Init(env));
  exports.Set("NativeEngine", data->engine_ctor.Value());
  exports.Set("setErrorClass", Napi::Function::New(env, SetErrorClass));
  exports.Set("info", Napi::Function::New(env, Info));
  exports.Set("libinjection", Napi::Function::New(env, Libinjection));
  register_user_rules(env, exports);
  register_countries(env, exports);
  register_extraction(env, exports);
  register_edge(env, exports);
  napi_add_env_cleanup_hook(env, Cleanup, data);
  return exports;
}

}  // namespace
}  // namespace fg

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return fg::Init(env, exports); }
NODE_API_MODULE(flowgate, InitAddon)
