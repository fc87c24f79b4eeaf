#include "engine/engine.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/spread.h"

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

// names told between two workers between two of their batches (a burst of
// DNS answers names at most a few per packet)
constexpr uint32_t kNameRing = 2048;

uint32_t pow2_at_least(uint32_t want) {
  uint32_t c = 1024;
  while (c < want) c <<= 1;
  return c;
}

// A worker's flow table: its share of the interface's, a quarter more since
// a hash does not split flows exactly evenly. Hosts are not split: a host
// talking to many peers has a part in every shard.
uint32_t shard_flows(uint32_t max_flows, uint32_t workers) {
  if (workers <= 1) return max_flows;
  const uint64_t n = (uint64_t(max_flows) * 5 + 4 * workers - 1) / (4 * workers);
  return uint32_t(std::min<uint64_t>(n, max_flows));
}

}  // namespace

Engine::Engine(EngineConfig cfg)
    : cfg_(std::move(cfg)), is_live_(cfg_.files.empty()), max_flows_(cfg_.limits.max_flows), max_hosts_(cfg_.limits.max_hosts) {
  uint32_t workers = std::max<uint32_t>(1, cfg_.workers);
  // One worker where the work is not split by flow: an inline bridge (both
  // interfaces in one capture loop) and the reader baselines.
  if (cfg_.egress.bridge() || cfg_.mode != Mode::Full) workers = 1;
  const uint32_t ring = pow2_at_least(cfg_.ring_records);
  const int fanout = is_live_ && workers > 1 ? LiveSource::new_fanout_group() : -1;
  // a file read by several workers: each chunk copied in once for all
  if (!is_live_ && workers > 1) shared_chunks_ = std::make_shared<SharedChunks>(FileSource::shared_span(), 4 * workers);
  for (uint32_t k = 0; k < workers; k++) {
    auto sh = std::make_unique<Shard>(ring);
    sh->index = k;
    if (cfg_.egress.bridge()) {
      LiveOptions a = cfg_.live, b = cfg_.live;
      a.iface = cfg_.egress.bridge_a, b.iface = cfg_.egress.bridge_b;
      sh->source = std::make_unique<BridgeSource>(a, b);
    } else if (is_live_) {
      LiveOptions o = cfg_.live;
      o.fanout_group = fanout;
      sh->source = std::make_unique<LiveSource>(o);
    } else {
      sh->source = std::make_unique<FileSource>(cfg_.files, shared_chunks_, 0);
    }
    shards_.push_back(std::move(sh));
  }
  if (cfg_.egress.any()) {
    if (cfg_.mode != Mode::Full) throw std::runtime_error("egress needs the full pipeline (mode 'full')");
    // each worker forwards its own flows' packets: an Egress per worker over
    // the same outputs (a lane of each pcap file, a socket of its own)
    egress_.push_back(std::make_unique<Egress>(cfg_.egress, uint32_t(shards_.size())));
    for (uint32_t k = 1; k < shards_.size(); k++) egress_.push_back(std::make_unique<Egress>(*egress_[0], k));
    for (uint32_t k = 0; k < shards_.size(); k++) shards_[k]->egress = egress_[k].get();
    policy_ = egress_[0]->default_table();
  }
  if (cfg_.record) {
    // live: each worker records what the kernel gave it (the writer merges
    // by time); a file: the first worker, which reads every packet
    RecorderConfig rc = cfg_.recorder;
    rc.producers = is_live_ ? uint32_t(shards_.size()) : 1;
    recorder_ = std::make_unique<Recorder>(rc);
  }
  t_prefault_tables = cfg_.prefault;
  struct Reset { ~Reset() { t_prefault_tables = false; } } reset;
  if (workers > 1) {
    liveness_ = std::make_shared<HostLiveness>(cfg_.limits.max_hosts, workers);
    name_rings_.resize(size_t(workers) * workers);
    for (uint32_t i = 0; i < workers; i++)
      for (uint32_t j = 0; j < workers; j++)
        if (i != j) name_rings_[i * workers + j] = std::make_unique<SpscRing<Pipeline::NameNote>>(kNameRing);
  }
  for (auto& sh : shards_) {
    PipelineLimits lim = cfg_.limits;
    lim.max_flows = shard_flows(lim.max_flows, workers);
    if (cfg_.mode == Mode::ReadOnly) lim = PipelineLimits{16, 16, 16};
    sh->pipeline = std::make_unique<Pipeline>(lim, &sh->ring);
    // serials unique over the interface: worker k's are k+1, k+1+N, …
    sh->pipeline->set_serials(sh->index + 1, workers);
    sh->pipeline->set_liveness(liveness_, sh->index);
    if (workers > 1) {
      std::vector<SpscRing<Pipeline::NameNote>*> out;
      for (uint32_t j = 0; j < workers; j++)
        if (j != sh->index) out.push_back(name_rings_[sh->index * workers + j].get());
      sh->pipeline->set_name_rings(std::move(out));
    }
    views_.push_back(sh->pipeline.get());
  }
  nets_ = std::make_shared<NetConfig>();
}

Engine::~Engine() { stop(); }

std::string Engine::error() const {
  std::lock_guard<std::mutex> g(err_mu_);
  return error_;
}

void Engine::set_error(const std::string& e) {
  std::lock_guard<std::mutex> g(err_mu_);
  if (error_.empty()) error_ = e;
}

double Engine::progress() const {
  // every worker reads the whole playlist: the slowest tells
  double p = 1;
  for (auto& sh : shards_) {
    const uint64_t t = sh->source->bytes_total();
    if (!t) return state_.load() == EngineState::Running ? 0 : 1;
    p = std::min(p, double(sh->source->bytes_done()) / double(t));
  }
  return p > 1 ? 1 : p;
}

uint64_t Engine::kernel_drops() const {
  uint64_t n = 0;
  for (auto& sh : shards_) n += sh->kernel_drops.load();
  return n;
}

void Engine::start(EventFn on_event) {
  EngineState expect = EngineState::Idle;
  if (!state_.compare_exchange_strong(expect, EngineState::Running)) throw std::logic_error("engine already started");
  on_event_ = std::move(on_event);
  running_.store(uint32_t(shards_.size()));
  for (auto& p : shards_) {
    Shard* sh = p.get();
    sh->thread = std::thread([this, sh] {
      pthread_setname_np(pthread_self(), "fg-worker");  // named in top -H, perf and /proc
      run(*sh);
    });
  }
}

void Engine::stop() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> g(tick_mu_);  // wakes workers waiting at a tick
  }
  tick_cv_.notify_all();
  for (auto& sh : shards_)
    if (sh->source) sh->source->interrupt();
  for (auto& sh : shards_)
    if (sh->thread.joinable()) sh->thread.join();
  if (!egress_.empty()) {
    AllLocks g(*this);
    for (auto& sh : shards_) sh->egress->close();
  }
  if (recorder_) recorder_->stop();
  EngineState s = state_.load();
  if (s == EngineState::Running || s == EngineState::Idle) state_.store(EngineState::Stopped);
}

bool Engine::set_limits(uint32_t max_flows, uint32_t max_hosts) {
  AllLocks g(*this);
  const uint32_t per = shard_flows(max_flows, uint32_t(shards_.size()));
  for (auto& sh : shards_)
    if (per < sh->pipeline->flows().size() || max_hosts < sh->pipeline->hosts().size()) return false;
  for (auto& sh : shards_)
    if (!sh->pipeline->resize(per, max_hosts)) return false;
  // (the host lifetimes' slots stay: a new table would know no part until
  // every worker's sweep published them again, and idle parts could go early)
  max_flows_ = max_flows, max_hosts_ = max_hosts;
  return true;
}

uint32_t Engine::expire_active(uint32_t max) {
  AllLocks g(*this);
  uint32_t done = 0;
  for (auto& sh : shards_) {
    if (done >= max) break;
    const uint64_t room = sh->ring.capacity() - sh->ring.size();
    done += sh->pipeline->expire_some(uint32_t(std::min<uint64_t>(max - done, room)));
  }
  return done;
}

size_t Engine::drain_expired(ExpiredFlow* out, size_t max) {
  armed_.store(false);
  size_t n = 0;
  for (auto& sh : shards_) n += sh->ring.drain(out + n, max - n);
  return n;
}

uint64_t Engine::expired_pending() const {
  uint64_t n = 0;
  for (auto& sh : shards_) n += sh->ring.size();
  return n;
}

// The names the other workers learned since this one's last batch (under its batch lock).
void Engine::learn_told_names(Shard& sh) noexcept {
  if (name_rings_.empty()) return;
  const size_t nw = shards_.size();
  Pipeline::NameNote notes[64];
  for (size_t j = 0; j < nw; j++) {
    if (j == sh.index) continue;
    SpscRing<Pipeline::NameNote>& r = *name_rings_[j * nw + sh.index];
    for (size_t n; (n = r.drain(notes, 64)) > 0;)
      for (size_t k = 0; k < n; k++) sh.pipeline->learn_told_name(notes[k]);
  }
}

void Engine::reopen(Shard& sh) {
  // Next pass of a looped playlist: shift its clock past the previous pass.
  // (Every worker reads the same files, so each computes the same shift.)
  const uint64_t period = (sh.pass_last_ns - sh.pass_first_ns) + 1000000000ULL;
  if (sh.index == 0) loop_period_ns_.store(period);
  sh.loop_shift_ns += period;
  sh.pass_first_ns = sh.pass_last_ns = 0;
  sh.source = std::make_unique<FileSource>(cfg_.files, shared_chunks_, ++sh.pass);
}

// The capture ring's drops, read from the kernel at most once a second (a
// system call), outside the batch lock.
void Engine::poll_drops(Shard& sh, uint64_t& last) {
  const uint64_t w = mono_ns();
  if (w - last < 1000000000ULL) return;
  sh.kernel_drops.store(sh.source->kernel_drops());
  last = w;
}

void Engine::unlock_and_yield(Shard& sh, std::unique_lock<std::mutex>& lk) {
  lk.unlock();
  while (sh.waiters.load(std::memory_order_relaxed) > 0) std::this_thread::yield();
}

// Never blocks a worker: one pending call at most (drain re-arms it).
void Engine::ring_doorbell() {
  if (on_event_ && expired_pending() && !armed_.exchange(true)) on_event_("expired", 0, 0);
}

void Engine::tick_done(uint64_t boundary_s) {
  {
    std::lock_guard<std::mutex> g(tick_mu_);
    if (boundary_s > tick_ack_s_) tick_ack_s_ = boundary_s;
  }
  tick_cv_.notify_all();
}

// Called by a worker holding its batch lock, before any packet at or past
// `boundary_ns` is processed. One pass over its flow table per step; the
// last worker to reach the boundary signals it.
void Engine::tick(Shard& sh, std::unique_lock<std::mutex>& lk, uint64_t boundary_ns, bool last) {
  sh.pipeline->account_all();
  // ntopng runs its host checks once a minute: the minute's hits, counters reset
  sh.pipeline->close_host_checks_minute(boundary_ns);
  const uint64_t prev_ns = sh.last_tick_ns;  // before the first tick: the step the first packet fell in
  sh.last_tick_ns = boundary_ns;
  sh.next_tick_ns = boundary_ns + kTickStep;
  const uint64_t b = boundary_ns / 1000000000ULL;
  lk.unlock();
  const bool listener = on_event_ && tick_listener_.load();
  std::unique_lock<std::mutex> g(tick_mu_);
  sh.tick_reached_ns = boundary_ns;
  signal_ticks(g, prev_ns, last, listener);
  if (listener) {
    // wait for the whole round and for the listener to be done with it
    auto done = [&] { return stop_.load() || (tick_signalled_ns_ >= boundary_ns && tick_ack_s_ >= b); };
    if (!is_live_) tick_cv_.wait(g, done);
    else if (!tick_cv_.wait_for(g, std::chrono::milliseconds(kTickWaitLiveMs), done)) ticks_late_.fetch_add(1, std::memory_order_relaxed);
  } else if (!is_live_ && shards_.size() > 1) {
    // no listener: a file's workers still keep in step at boundaries, so a
    // listener set later finds every shard at the same one
    tick_cv_.wait(g, [&] { return stop_.load() || tick_signalled_ns_ >= boundary_ns; });
  }
  g.unlock();
  lk.lock();
  // every worker passed the boundary: what they told before it is here
  learn_told_names(sh);
}

void Engine::signal_ticks(std::unique_lock<std::mutex>& g, uint64_t prev_ns, bool last, bool listener) {
  uint64_t low = UINT64_MAX;
  for (auto& s : shards_)
    if (!s->tick_gone) low = std::min(low, s->tick_reached_ns);
  if (low == UINT64_MAX || low <= tick_signalled_ns_) return;
  // every worker still here is at or past `low`: each holds exactly the traffic before it
  const uint64_t p = (tick_signalled_ns_ ? tick_signalled_ns_ : prev_ns) / 1000000000ULL;
  tick_signalled_ns_ = low;
  ticks_.fetch_add(1, std::memory_order_relaxed);
  if (listener) {
    g.unlock();
    on_event_(last ? "last_tick" : "tick", double(low / 1000000000ULL), double(p));
    g.lock();
  }
  tick_cv_.notify_all();
}

// A worker that stops reading (its file ended early, an error, a stop) no
// longer holds the others at boundaries it will never reach.
void Engine::leave_ticks(Shard& sh) {
  std::unique_lock<std::mutex> g(tick_mu_);
  sh.tick_gone = true;
  signal_ticks(g, sh.last_tick_ns, false, !stop_.load() && on_event_ && tick_listener_.load());
  tick_cv_.notify_all();
}

void Engine::run(Shard& sh) noexcept {
  try {
    run_loop(sh);
  } catch (const std::exception& e) {
    set_error(std::string("worker stopped: ") + e.what());
    state_.store(EngineState::Failed);
    stop_.store(true);  // the others stop too: the interface's view would be partial
    tick_cv_.notify_all();
  } catch (...) {
    set_error("worker stopped: unknown error");
    state_.store(EngineState::Failed);
    stop_.store(true);
    tick_cv_.notify_all();
  }
  leave_ticks(sh);
  finish(sh);
}

// The last worker out settles the state and says "done".
void Engine::finish(Shard&) noexcept {
  if (running_.fetch_sub(1) != 1) return;
  EngineState expect = EngineState::Running;
  state_.compare_exchange_strong(expect, stop_.load() ? EngineState::Stopped : EngineState::Done);
  if (on_event_) on_event_("done", 0, 0);
}

// Packets [b, b+n) of a batch through the pipeline (and egress); with
// original timing each waits for its moment, the batch lock released.
void Engine::process_range(Shard& sh, std::unique_lock<std::mutex>& lk, RawPacket* b, size_t n, std::shared_ptr<const NetConfig>& nets,
                           std::shared_ptr<const PolicyTable>& policy, bool timed, uint64_t& wall0, uint64_t& pkt0,
                           const uint64_t* raw_ts) {
  Pipeline& pl = *sh.pipeline;
  if (!timed) {
    pl.process_batch(b, n, *nets);
    if (sh.egress) {
      // forwarded with the time it was captured, not the clock's
      if (raw_ts)
        for (size_t i = 0; i < n; i++) b[i].ts_ns = raw_ts[i];
      sh.egress->process(b, pl.batch_packets(), pl.batch_flow_refs(), n, *policy);
    }
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
      if (!egress_.empty()) policy = std::atomic_load(&policy_);
    }
    pl.process_batch(&p, 1, *nets);
    if (sh.egress) {
      if (raw_ts) p.ts_ns = raw_ts[i];
      sh.egress->process(&p, pl.batch_packets(), pl.batch_flow_refs(), 1, *policy);
      sh.egress->end_batch();
    }
  }
}

void Engine::run_loop(Shard& sh) {
  RawPacket batch[kBatch];
  RawPacket mine[kBatch];  // this worker's packets of a range (several workers reading a file)
  uint64_t mine_ts[kBatch];  // their times as captured (mine[] carries the clock: the latest time read)
  const uint32_t nw = uint32_t(shards_.size());
  const bool split = nw > 1 && !is_live_;  // live: the kernel already split
  const bool timed = !is_live_ && cfg_.replay_speed > 0;
  uint64_t timed_wall0 = 0, timed_pkt0 = 0;
  uint64_t last_drop_poll = 0;
  Pipeline& pl = *sh.pipeline;
  std::unique_lock<std::mutex> lk(sh.mu, std::defer_lock);

  while (!stop_.load(std::memory_order_relaxed)) {
    size_t n = sh.source->next_batch(batch, kBatch);
    if (n == 0) {
      if (!sh.source->done()) {  // live and quiet: let time pass for expiry and throughput
        lk.lock();
        const uint64_t now = wall_ns();
        pl.advance(now);
        // A quiet link still closes its steps.
        if (sh.next_tick_ns && cfg_.mode == Mode::Full && now >= sh.next_tick_ns) tick(sh, lk, now / kTickStep * kTickStep);
        if (sh.egress) sh.egress->flush_if_due(mono_ns());
        unlock_and_yield(sh, lk);
        // nothing of this worker's still to come is older than the capture
        // ring's block timeout (with a margin): the others' records go on
        if (recorder_) recorder_->clock(sh.index, now - kRecorderLagNs);
        poll_drops(sh, last_drop_poll);  // a ring that overflowed and went quiet still tells
        continue;
      }
      std::string err = sh.source->error();
      if (!err.empty()) set_error(err);
      if (cfg_.loop && !is_live_ && err.empty() && sh.pass_last_ns != 0) {
        reopen(sh);
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
    learn_told_names(sh);
    std::shared_ptr<const NetConfig> nets = std::atomic_load(&nets_);
    std::shared_ptr<const PolicyTable> policy = !egress_.empty() ? std::atomic_load(&policy_) : nullptr;
    uint64_t batch_last_ns = 0;
    for (size_t i = 0; i < n; i++) {
      RawPacket& p = batch[i];
      if (!sh.pass_first_ns) {
        sh.pass_first_ns = p.ts_ns;
        if (sh.index == 0) {
          if (!passes_.load(std::memory_order_relaxed)) first_ns_.store(p.ts_ns);
          passes_.fetch_add(1, std::memory_order_relaxed);
        }
      }
      if (p.ts_ns > sh.pass_last_ns) sh.pass_last_ns = p.ts_ns;
      p.ts_ns += sh.loop_shift_ns;
      batch_last_ns = std::max(batch_last_ns, p.ts_ns);
    }
    if (cfg_.mode == Mode::DecodeOnly) {
      for (size_t i = 0; i < n; i++) pl.decode_only(batch[i]);
    } else {
      // The batch is cut before the first packet at or past the next tick
      // boundary: one compare per packet, nothing else on the packet path.
      // Workers reading a file see every packet's time, so all cut alike.
      size_t from = 0;
      while (from < n && !stop_.load(std::memory_order_relaxed)) {
        if (!sh.next_tick_ns) sh.last_tick_ns = batch[from].ts_ns / kTickStep * kTickStep, sh.next_tick_ns = sh.last_tick_ns + kTickStep;
        size_t to = from;
        while (to < n && batch[to].ts_ns < sh.next_tick_ns) to++;
        if (to > from) {
          if (!split) {
            process_range(sh, lk, batch + from, to - from, nets, policy, timed, timed_wall0, timed_pkt0);
          } else {
            // this worker's packets, in order; another's ARP frame teaches
            // its broadcast domain here too, at its place in that order
            size_t m = 0;
            for (size_t i = from; i < to; i++) {
              // the engine's clock never goes back (Pipeline::process_batch):
              // a packet carries the latest time read so far, every worker's
              // packets counted, as it would with one worker
              if (batch[i].ts_ns > sh.read_ns) sh.read_ns = batch[i].ts_ns;
              if (spread_worker(batch[i], nw) == sh.index) {
                mine[m] = batch[i];
                mine_ts[m] = batch[i].ts_ns;
                mine[m++].ts_ns = sh.read_ns;
              } else if (spread_arp(batch[i])) {
                if (m) process_range(sh, lk, mine, m, nets, policy, timed, timed_wall0, timed_pkt0, mine_ts), m = 0;
                pl.learn_arp(batch[i]);
              }
            }
            if (m) process_range(sh, lk, mine, m, nets, policy, timed, timed_wall0, timed_pkt0, mine_ts);
          }
        }
        if (to == n) break;
        tick(sh, lk, batch[to].ts_ns / kTickStep * kTickStep);
        // The lock was released: the tables may have been swapped meanwhile.
        nets = std::atomic_load(&nets_);
        if (!egress_.empty()) policy = std::atomic_load(&policy_);
        from = to;
      }
    }
    // The clock moves with every packet read, this worker's or not, so the
    // sweep expires flows at the same packet times as with one worker.
    pl.advance(split ? std::max(pl.now_ns(), batch_last_ns) : pl.now_ns());
    if (sh.egress) {
      sh.egress->end_batch();
      if (is_live_) sh.egress->flush_if_due(mono_ns());
    }
    unlock_and_yield(sh, lk);
    if (is_live_) poll_drops(sh, last_drop_poll);
    // Recorded outside the batch lock: a replay waits for the disk, live
    // capture never does. The first worker reads every packet of a file.
    if (recorder_ && (is_live_ || sh.index == 0)) recorder_->put(is_live_ ? sh.index : 0, batch, n, !is_live_);
    ring_doorbell();
  }
  if (recorder_ && !is_live_ && sh.index == 0) recorder_->flush();  // before "done": the recording holds the whole replay
  if (!egress_.empty()) {  // before "done": what was forwarded is in the files
    lk.lock();
    sh.egress->flush();
    lk.unlock();
  }
  if (!stop_.load()) {
    // A replay that ended keeps serving what it learned: its flows' last
    // packets are credited to the per-application counters now, since packet
    // time (and so the sweep that would credit them) stops here.
    lk.lock();
    // The last (partial) step closes at the boundary after the last packet.
    if (sh.next_tick_ns && cfg_.mode == Mode::Full && !is_live_) tick(sh, lk, sh.next_tick_ns, true);
    if (cfg_.flush_at_end) pl.flush_all();
    else pl.account_all();
    lk.unlock();
    ring_doorbell();
  }
}

}  // namespace fg
