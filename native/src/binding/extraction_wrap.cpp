// ⑥ NativeExtraction: one PCAP extraction (recorder/extract.h). Created on
// the JS thread (the filter is compiled there: a bad one throws E_BPF with
// libpcap's message); read(maxBytes) runs one slice on a libuv thread and
// resolves { data, done }; close() frees it, at once or when the slice in
// flight ends (a client that went away).
#include <napi.h>

#include <atomic>
#include <memory>
#include <vector>

#include "binding/convert.h"
#include "binding/engine_wrap.h"
#include "recorder/extract.h"

namespace fg {
namespace {

struct Job {
  std::unique_ptr<Extraction> x;
  std::atomic<bool> busy{false};
};

class ReadWorker : public Napi::AsyncWorker {
 public:
  ReadWorker(Napi::Env env, std::shared_ptr<Job> job, size_t max)
      : Napi::AsyncWorker(env), job_(std::move(job)), max_(max), done_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return done_.Promise(); }
  void Execute() override {
    out_.reserve(max_ + (1u << 18));
    more_ = job_->x->next(out_, max_);
  }
  void OnOK() override {
    Napi::Env env = Env();
    job_->busy.store(false);
    Napi::Object r = Napi::Object::New(env);
    r.Set("data", Napi::Buffer<uint8_t>::Copy(env, out_.data(), out_.size()));
    r.Set("done", !more_);
    r.Set("packets", double(job_->x->packets()));
    r.Set("error", job_->x->error());
    done_.Resolve(r);
  }
  void OnError(const Napi::Error& e) override {
    job_->busy.store(false);
    done_.Reject(e.Value());
  }

 private:
  std::shared_ptr<Job> job_;
  size_t max_;
  Napi::Promise::Deferred done_;
  std::vector<uint8_t> out_;
  bool more_ = false;
};

class ExtractionWrap : public Napi::ObjectWrap<ExtractionWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeExtraction",
                       {InstanceMethod("read", &ExtractionWrap::Read), InstanceMethod("close", &ExtractionWrap::Close),
                        InstanceAccessor("linktype", &ExtractionWrap::Linktype, nullptr)});
  }

  explicit ExtractionWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ExtractionWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "NativeExtraction({ dir | files, beginNs, endNs, filter, loopPeriodNs?, passes?, firstNs? })");
    Napi::Object o = info[0].As<Napi::Object>();
    ExtractOptions eo;
    Napi::Value dir = o.Get("dir"), files = o.Get("files");
    if (dir.IsString()) {
      eo.dir = dir.As<Napi::String>().Utf8Value();
    } else if (files.IsArray()) {
      Napi::Array a = files.As<Napi::Array>();
      for (uint32_t i = 0; i < a.Length(); i++) {
        if (!a.Get(i).IsString()) throw Napi::TypeError::New(env, "files must be strings");
        eo.files.push_back(a.Get(i).As<Napi::String>().Utf8Value());
      }
      if (eo.files.empty()) throw Napi::TypeError::New(env, "files must not be empty");
    } else {
      throw Napi::TypeError::New(env, "NativeExtraction needs dir or files");
    }
    Napi::Value b = o.Get("beginNs"), e = o.Get("endNs"), f = o.Get("filter"), l = o.Get("linktype");
    if (!b.IsNumber() || !e.IsNumber()) throw Napi::TypeError::New(env, "beginNs and endNs must be numbers");
    eo.begin_ns = uint64_t(b.As<Napi::Number>().DoubleValue());
    eo.end_ns = uint64_t(e.As<Napi::Number>().DoubleValue());
    if (f.IsString()) eo.filter = f.As<Napi::String>().Utf8Value();
    if (l.IsNumber()) eo.linktype = uint16_t(l.As<Napi::Number>().Uint32Value());
    Napi::Value lp = o.Get("loopPeriodNs"), ps = o.Get("passes"), fn = o.Get("firstNs");
    bool lossless = true;
    if (lp.IsBigInt()) eo.loop_period_ns = lp.As<Napi::BigInt>().Uint64Value(&lossless);
    if (ps.IsNumber()) eo.passes = uint64_t(ps.As<Napi::Number>().DoubleValue());
    if (fn.IsBigInt()) eo.first_ns = fn.As<Napi::BigInt>().Uint64Value(&lossless);
    job_ = std::make_shared<Job>();
    try {
      job_->x = std::make_unique<Extraction>(std::move(eo));
    } catch (const ExtractError& x) {
      throw_fg(env, x.what(), x.code);
    }
  }

 private:
  Napi::Value Read(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!job_) throw_fg(env, "extraction closed", "E_STATE");
    if (job_->busy.exchange(true)) throw Napi::TypeError::New(env, "read() while a read is in flight");
    size_t max = info.Length() > 0 && info[0].IsNumber() ? size_t(info[0].As<Napi::Number>().Uint32Value()) : (1u << 20);
    if (max < 4096) max = 4096;
    auto* w = new ReadWorker(env, job_, max);
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
  }
  // The job lives on in a read in flight (it holds a reference) and goes with it.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    job_.reset();
    return info.Env().Undefined();
  }
  Napi::Value Linktype(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), job_ ? job_->x->linktype() : 0);
  }

  std::shared_ptr<Job> job_;
};

}  // namespace

void register_extraction(Napi::Env env, Napi::Object exports) { exports.Set("NativeExtraction", ExtractionWrap::Init(env)); }

}  // namespace fg
