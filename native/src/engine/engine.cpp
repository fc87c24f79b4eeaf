#include "engine/engine.h"

#include <pthread.h>

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
  if (cfg_.record) recorder_ = std::make_unique<Recorder>(cfg_.recorder);
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

void Engine::start(EventFn on_event) {
  EngineState expect = EngineState::Idle;
  if (!state_.compare_exchange_strong(expect, EngineState::Running)) throw std::logic_error("engine already started");
  on_event_ = std::move(on_event);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "fg-worker");  // named in top -H, perf and /proc
    run();
  });
}

void Engine::stop() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> g(tick_mu_);  // wakes a worker waiting for a tick's acknowledgement
  }
  tick_cv_.notify_all();
  if (source_) source_->interrupt();
  if (thread_.joinable()) thread_.join();
  if (egress_) {
    std::lock_guard<std::mutex> g(mu_);
    egress_->close();
  }
  if (recorder_) recorder_->stop();
  EngineState s = state_.load();
  if (s == EngineState::Running || s == EngineState::Idle) state_.store(EngineState::Stopped);
}

void Engine::reopen() {
  // Next pass of a looped playlist: shift its clock past the previous pass.
  loop_period_ns_.store((pass_last_ns_ - pass_first_ns_) + 1000000000ULL);
  loop_shift_ns_ += loop_period_ns_.load();
  pass_first_ns_ = pass_last_ns_ = 0;
  source_ = std::make_unique<FileSource>(cfg_.files);
}

// The capture ring's drops, read from the kernel at most once a second (a
// system call), outside the batch lock.
void Engine::poll_drops(uint64_t& last) {
  const uint64_t w = mono_ns();
  if (w - last < 1000000000ULL) return;
  kernel_drops_.store(source_->kernel_drops());
  last = w;
}

void Engine::unlock_and_yield(std::unique_lock<std::mutex>& lk) {
  lk.unlock();
  while (waiters_.load(std::memory_order_relaxed) > 0) std::this_thread::yield();
}

// Never blocks the worker: one pending call at most (drain re-arms it).
void Engine::ring_doorbell() {
  if (on_event_ && ring_.size() && !armed_.exchange(true)) on_event_("expired", 0, 0);
}

void Engine::tick_done(uint64_t boundary_s) {
  {
    std::lock_guard<std::mutex> g(tick_mu_);
    if (boundary_s > tick_ack_s_) tick_ack_s_ = boundary_s;
  }
  tick_cv_.notify_all();
}

// Called by the worker holding the batch lock, before any packet at or past
// `boundary_ns` is processed. One pass over the flow table per step.
void Engine::tick(std::unique_lock<std::mutex>& lk, uint64_t boundary_ns, bool last) {
  pipeline_->account_all();
  // ntopng runs its host checks once a minute: the minute's hits, counters reset
  pipeline_->close_host_checks_minute(boundary_ns);
  const uint64_t prev_ns = last_tick_ns_;
  last_tick_ns_ = boundary_ns;
  next_tick_ns_ = boundary_ns + kTickStep;
  ticks_.fetch_add(1, std::memory_order_relaxed);
  if (!on_event_ || !tick_listener_.load()) return;
  const uint64_t b = boundary_ns / 1000000000ULL, p = prev_ns / 1000000000ULL;
  lk.unlock();
  on_event_(last ? "last_tick" : "tick", double(b), double(p));
  {
    std::unique_lock<std::mutex> g(tick_mu_);
    auto acked = [&] { return stop_.load() || tick_ack_s_ >= b; };
    if (!is_live_) tick_cv_.wait(g, acked);
    else if (!tick_cv_.wait_for(g, std::chrono::milliseconds(kTickWaitLiveMs), acked)) ticks_late_.fetch_add(1, std::memory_order_relaxed);
  }
  lk.lock();
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
  if (on_event_) on_event_("done", 0, 0);
}

// Packets [b, b+n) of a batch through the pipeline (and egress); with
// original timing each waits for its moment, the batch lock released.
void Engine::process_range(std::unique_lock<std::mutex>& lk, RawPacket* b, size_t n, std::shared_ptr<const NetConfig>& nets,
                           std::shared_ptr<const PolicyTable>& policy, bool timed, uint64_t& wall0, uint64_t& pkt0) {
  if (!timed) {
    pipeline_->process_batch(b, n, *nets);
    if (egress_) egress_->process(b, pipeline_->batch_packets(), pipeline_->batch_flow_refs(), n, *policy);
    return;
  }
  for (size_t i = 0; i < n && !stop_.load(); i++) {
    RawPacket& p = b[i];
    if (!wall0) wall0 = mono_ns(), pkt0 = p.ts_ns;
    uint64_t due = wall0 + uint64_t(double(p.ts_ns > pkt0 ? p.ts_ns - pkt0 : 0) / cfg_.replay_speed);
    if (due > mono_ns()) {
      lk.unlock();
      while (!stop_.load() && mono_ns() < due) {
        uint64_t left = due - mono_ns();
        std::this_thread::sleep_for(std::chrono::nanoseconds(left > 50000000 ? 50000000 : left));
      }
      lk.lock();
      // The tables may have been swapped while we waited.
      nets = std::atomic_load(&nets_);
      if (egress_) policy = std::atomic_load(&policy_);
    }
    pipeline_->process_batch(&p, 1, *nets);
    if (egress_) {
      egress_->process(&p, pipeline_->batch_packets(), pipeline_->batch_flow_refs(), 1, *policy);
      egress_->end_batch();
    }
  }
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
        const uint64_t now = wall_ns();
        pipeline_->advance(now);
        // A quiet link still closes its steps.
        if (next_tick_ns_ && cfg_.mode == Mode::Full && now >= next_tick_ns_) tick(lk, now / kTickStep * kTickStep);
        if (egress_) egress_->flush_if_due(mono_ns());
        unlock_and_yield(lk);
        poll_drops(last_drop_poll);  // a ring that overflowed and went quiet still tells
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
      if (!pass_first_ns_) {
        pass_first_ns_ = p.ts_ns;
        if (!passes_.load(std::memory_order_relaxed)) first_ns_.store(p.ts_ns);
        passes_.fetch_add(1, std::memory_order_relaxed);
      }
      if (p.ts_ns > pass_last_ns_) pass_last_ns_ = p.ts_ns;
      p.ts_ns += loop_shift_ns_;
    }
    if (cfg_.mode == Mode::DecodeOnly) {
      for (size_t i = 0; i < n; i++) pipeline_->decode_only(batch[i]);
    } else {
      // The batch is cut before the first packet at or past the next tick
      // boundary: one compare per packet, nothing else on the packet path.
      size_t from = 0;
      while (from < n && !stop_.load(std::memory_order_relaxed)) {
        if (!next_tick_ns_) last_tick_ns_ = batch[from].ts_ns / kTickStep * kTickStep, next_tick_ns_ = last_tick_ns_ + kTickStep;
        size_t to = from;
        while (to < n && batch[to].ts_ns < next_tick_ns_) to++;
        if (to > from) process_range(lk, batch + from, to - from, nets, policy, timed, timed_wall0, timed_pkt0);
        if (to == n) break;
        tick(lk, batch[to].ts_ns / kTickStep * kTickStep);
        // The lock was released: the tables may have been swapped meanwhile.
        nets = std::atomic_load(&nets_);
        if (egress_) policy = std::atomic_load(&policy_);
        from = to;
      }
    }
    pipeline_->advance(pipeline_->now_ns());
    if (egress_) {
      egress_->end_batch();
      if (is_live_) egress_->flush_if_due(mono_ns());
    }
    unlock_and_yield(lk);
    if (is_live_) poll_drops(last_drop_poll);
    // Recorded outside the batch lock: a replay waits for the disk, live capture never does.
    if (recorder_) recorder_->put(batch, n, !is_live_);
    ring_doorbell();
  }
  if (recorder_ && !is_live_) recorder_->flush();  // before "done": the recording holds the whole replay
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
    // The last (partial) step closes at the boundary after the last packet.
    if (next_tick_ns_ && cfg_.mode == Mode::Full && !is_live_) tick(lk, next_tick_ns_, true);
    if (cfg_.flush_at_end) pipeline_->flush_all();
    else pipeline_->account_all();
    lk.unlock();
    ring_doorbell();
  }
  EngineState expect = EngineState::Running;
  state_.compare_exchange_strong(expect, stop_.load() ? EngineState::Stopped : EngineState::Done);
}

}  // namespace fg
