// ⑥ loadCountries(files): the engine's address → country table read from
// the city databases the API's geolocation opened (geo/country_table.h),
// in force for every host created from then on.
#include <napi.h>

#include <chrono>
#include <string>
#include <vector>

#include "binding/convert.h"
#include "flow/local_nets.h"
#include "geo/country_table.h"

namespace fg {
namespace {

// Read on a libuv thread (about a second for DB-IP Lite's 15 M networks):
// the promise settles once the table is in force.
class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::vector<std::string> files) : Napi::AsyncWorker(env), files_(std::move(files)), done_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return done_.Promise(); }

  void Execute() override {
    const auto t0 = std::chrono::steady_clock::now();
    if (!files_.empty() && !load_country_table(files_, table_, err_)) return SetError("loadCountries: " + err_);
    ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object r = Napi::Object::New(env);
    r.Set("networks", double(table_ ? table_->networks : 0));
    r.Set("ranges", double(table_ ? table_->ranges.ranges() : 0));
    r.Set("ms", ms_);
    set_country_table(std::move(table_));
    done_.Resolve(r);
  }
  void OnError(const Napi::Error& e) override { done_.Reject(e.Value()); }

 private:
  std::vector<std::string> files_;
  Napi::Promise::Deferred done_;
  std::shared_ptr<CountryTable> table_;
  std::string err_;
  double ms_ = 0;
};

Napi::Value LoadCountries(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "loadCountries(files: string[])");
  Napi::Array a = info[0].As<Napi::Array>();
  std::vector<std::string> files;
  for (uint32_t i = 0; i < a.Length(); i++) {
    if (!a.Get(i).IsString()) throw Napi::TypeError::New(env, "loadCountries(files: string[])");
    files.push_back(a.Get(i).As<Napi::String>().Utf8Value());
  }
  auto* w = new LoadWorker(env, std::move(files));
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

// The country the engine gives a host at this address ('' for none).
Napi::Value CountryOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "countryOf(ip: string)");
  IpAddr ip;
  if (!parse_ip(info[0].As<Napi::String>().Utf8Value(), ip)) throw Napi::TypeError::New(env, "countryOf: not an address");
  const CountryTable* t = country_table();
  char cc[3];
  country_letters(t && !is_private(ip) ? t->find(ip) : 0, cc);
  return Napi::String::New(env, cc);
}

}  // namespace

void register_countries(Napi::Env env, Napi::Object exports) {
  exports.Set("loadCountries", Napi::Function::New(env, LoadCountries));
  exports.Set("countryOf", Napi::Function::New(env, CountryOf));
}

}  // namespace fg
