#include "engine/engine.h"

#include <chrono>
#include <stdexcept>

namespace fg {
namespace {

constexpr size_t kBatch = Pipeline::kBatch;

uint64_t wall_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}
uint64_t mono_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

}  // namespace

Engine::Engine(EngineConfig cfg)
    : cfg_(std::move(cfg)), is_live_(cfg_.files.empty()), ring_([&] {
        uint32_t c = 1024;
        while (c < cfg_.ring_records) c <<= 1;
        return c;
      }()) {
  if (cfg_.egress.bridge()) {
    LiveOptions a = cfg_.live, b = cfg_.live;
    a.iface = cfg_.egress.bridge_a, b.iface = cfg_.egress.bridge_b;
    source_ = std::make_unique<BridgeSource>(a, b);
  } else if (is_live_) {
    source_ = std::make_unique<LiveSource>(cfg_.live);
  } else {
    source_ = std::make_unique<FileSource>(cfg_.files);
  }
  if (cfg_.egress.any()) {
    if (cfg_.mode != Mode::Full) throw std::runtime_error("egress needs the full pipeline (mode 'full')");
    egress_ = std::make_unique<Egress>(cfg_.egress);
    policy_ = egress_->default_table();
  }
  t_prefault_tables = cfg_.prefault;
  struct Reset { ~Reset() { t_prefault_tables = false; } } reset;
  if (cfg_.mode != Mode::ReadOnly) pipeline_ = std::make_unique<Pipeline>(cfg_.limits, &ring_);
  else pipeline_ = std::make_unique<Pipeline>(PipelineLimits{16, 16, 16}, &ring_);
  nets_ = std::make_shared<NetConfig>();
}

Engine::~Engine() { stop(); }

std::string Engine::error() const {
  std::lock_guard<std::mutex> g(err_mu_);
  return error_;
}

double Engine::progress() const {
  uint64_t t = source_->bytes_total();
  if (!t) return state_.load() == EngineState::Running ? 0 : 1;
  double p = double(source_->bytes_done()) / double(t);
  return p > 1 ? 1 : p;
}

void Engine::start(std::function<void(const char*)> on_event) {
  EngineState expect = EngineState::Idle;
  if (!state_.compare_exchange_strong(expect, EngineState::Running)) throw std::logic_error("engine already started");
  on_event_ = std::move(on_event);
  thread_ = std::thread([this] { run(); });
}

void Engine::stop() {
  stop_.store(true);
  if (source_) source_->interrupt();
  if (thread_.joinable()) thread_.join();
  if (egress_) {
    std::lock_guard<std::mutex> g(mu_);
    egress_->close();
  }
  EngineState s = state_.load();
  if (s == EngineState::Running || s == EngineState::Idle) state_.store(EngineState::Stopped);
}

void Engine::reopen() {
  // Next pass of a looped playlist: shift its clock past the previous pass.
  loop_shift_ns_ += (pass_last_ns_ - pass_first_ns_) + 1000000000ULL;
  pass_first_ns_ = pass_last_ns_ = 0;
  source_ = std::make_unique<FileSource>(cfg_.files);
}

void Engine::unlock_and_yield(std::unique_lock<std::mutex>& lk) {
  lk.unlock();
  while (waiters_.load(std::memory_order_relaxed) > 0) std::this_thread::yield();
}

// Never blocks the worker: one pending call at most (drain re-arms it).
void Engine::ring_doorbell() {
  if (on_event_ && ring_.size() && !armed_.exchange(true)) on_event_("expired");
}

void Engine::run() noexcept {
  try {
    run_loop();
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> g(err_mu_);
    error_ = std::string("worker stopped: ") + e.what();
    state_.store(EngineState::Failed);
  } catch (...) {
    std::lock_guard<std::mutex> g(err_mu_);
    error_ = "worker stopped: unknown error";
    state_.store(EngineState::Failed);
  }
  if (on_event_) on_event_("done");
}

void Engine::run_loop() {
  RawPacket batch[kBatch];
  const bool timed = !is_live_ && cfg_.replay_speed > 0;
  uint64_t timed_wall0 = 0, timed_pkt0 = 0;
  uint64_t last_drop_poll = 0;
  std::unique_lock<std::mutex> lk(mu_, std::defer_lock);

  while (!stop_.load(std::memory_order_relaxed)) {
    size_t n = source_->next_batch(batch, kBatch);
    if (n == 0) {
      if (!source_->done()) {  // live and quiet: let time pass for expiry and throughput
        lk.lock();
        pipeline_->advance(wall_ns());
        if (egress_) egress_->flush_if_due(mono_ns());
        unlock_and_yield(lk);
        continue;
      }
      std::string err = source_->error();
      if (!err.empty()) {
        std::lock_guard<std::mutex> g(err_mu_);
        error_ = err;
      }
      if (cfg_.loop && !is_live_ && err.empty() && pass_last_ns_ != 0) {
        reopen();
        timed_wall0 = 0;
        continue;
      }
      break;
    }
    if (cfg_.mode == Mode::ReadOnly) {
      // The baseline of the benchmark: the same reader, touching every frame once.
      uint64_t b = 0, x = 0;
      for (size_t i = 0; i < n; i++) b += batch[i].wirelen, x += batch[i].data[0];
      ro_packets_.fetch_add(n, std::memory_order_relaxed);
      ro_bytes_.fetch_add(b, std::memory_order_relaxed);
      ro_sink_.store(x, std::memory_order_relaxed);  // keeps the reads
      continue;
    }
    lk.lock();
    std::shared_ptr<const NetConfig> nets = std::atomic_load(&nets_);
    std::shared_ptr<const PolicyTable> policy = egress_ ? std::atomic_load(&policy_) : nullptr;
    for (size_t i = 0; i < n; i++) {
      RawPacket& p = batch[i];
      if (!pass_first_ns_) pass_first_ns_ = p.ts_ns;
      if (p.ts_ns > pass_last_ns_) pass_last_ns_ = p.ts_ns;
      p.ts_ns += loop_shift_ns_;
    }
    if (cfg_.mode == Mode::DecodeOnly) {
      for (size_t i = 0; i < n; i++) pipeline_->decode_only(batch[i]);
    } else if (!timed) {
      pipeline_->process_batch(batch, n, *nets);
      if (egress_) egress_->process(batch, pipeline_->batch_packets(), pipeline_->batch_flow_refs(), n, *policy);
    } else {
      // Original timing: each packet waits for its moment, lock released.
      for (size_t i = 0; i < n && !stop_.load(); i++) {
        RawPacket& p = batch[i];
        if (!timed_wall0) timed_wall0 = mono_ns(), timed_pkt0 = p.ts_ns;
        uint64_t due = timed_wall0 + uint64_t(double(p.ts_ns > timed_pkt0 ? p.ts_ns - timed_pkt0 : 0) / cfg_.replay_speed);
        if (due > mono_ns()) {
          lk.unlock();
          while (!stop_.load() && mono_ns() < due) {
            uint64_t left = due - mono_ns();
            std::this_thread::sleep_for(std::chrono::nanoseconds(left > 50000000 ? 50000000 : left));
          }
          lk.lock();
          // The table may have been swapped while we waited.
          if (egress_) policy = std::atomic_load(&policy_);
        }
        pipeline_->process_batch(&p, 1, *nets);
        if (egress_) {
          egress_->process(&p, pipeline_->batch_packets(), pipeline_->batch_flow_refs(), 1, *policy);
          egress_->end_batch();
        }
      }
    }
    pipeline_->advance(pipeline_->now_ns());
    if (egress_) {
      egress_->end_batch();
      if (is_live_) egress_->flush_if_due(mono_ns());
    }
    if (is_live_) {
      uint64_t w = mono_ns();
      if (w - last_drop_poll > 1000000000ULL) kernel_drops_.store(source_->kernel_drops()), last_drop_poll = w;
    }
    unlock_and_yield(lk);
    ring_doorbell();
  }
  if (egress_) {  // before "done": what was forwarded is in the files
    lk.lock();
    egress_->flush();
    lk.unlock();
  }
  if (!stop_.load()) {
    // A replay that ended keeps serving what it learned: its flows' last
    // packets are credited to the per-application counters now, since packet
    // time (and so the sweep that would credit them) stops here.
    lk.lock();
    if (cfg_.flush_at_end) pipeline_->flush_all();
    else pipeline_->account_all();
    lk.unlock();
    ring_doorbell();
  }
  EngineState expect = EngineState::Running;
  state_.compare_exchange_strong(expect, stop_.load() ? EngineState::Stopped : EngineState::Done);
}

}  // namespace fg
