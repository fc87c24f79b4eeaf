// One engine per monitored interface (its ifid): N workers ("shards"), each a
// thread with its own capture source and Pipeline, and the lock-protected
// tables JS queries.
//
// Spreading: packets go to workers by a hash symmetric in the two endpoints,
// so a flow (both directions, its fragments) lives in one shard. A file
// playlist is read by every worker, each keeping its own packets (reading is
// a small part of a packet's cost, and no packet is copied between threads);
// live capture opens one handle per worker and lets the kernel spread packets
// (PACKET_FANOUT, hash mode, defragmented first). A host has a part in each
// shard that saw one of its flows; queries merge the parts (query.h).
//
// Locking: a worker holds its shard's `mu` while it processes a batch (≤ 256
// packets) and releases it between batches; JS takes every shard's lock to
// copy out a consistent view. That is one uncontended lock per batch, not per
// packet, and no lock shared between workers; a JS waiter raises the shard's
// `waiters` so the worker yields instead of re-taking the lock at once.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capture/file_source.h"
#include "capture/live_source.h"
#include "engine/pipeline.h"
#include "recorder/recorder.h"

namespace fg {

struct EngineConfig {
  std::vector<std::string> files;  // a playlist; empty for live capture
  LiveOptions live;
  PipelineLimits limits;
  Mode mode = Mode::Full;
  double replay_speed = 0;         // 0: as fast as possible; 1: original timing; 2: twice as fast …
  bool loop = false;               // replay the playlist forever (time keeps moving forward)
  bool flush_at_end = false;       // expire every flow when a file playlist ends
  bool prefault = false;           // fault the tables in now rather than on first use
  uint32_t ring_records = 1 << 16;  // per worker
  uint32_t workers = 1;            // shards; a bridge and the reader baselines run on one
  EgressConfig egress;             // egress queues; with a bridge, capture is on both bridge interfaces
  bool record = false;             // keep every packet in a recording (recorder.h)
  RecorderConfig recorder;
};

enum class EngineState : uint8_t { Idle = 0, Running = 1, Done = 2, Stopped = 3, Failed = 4 };

class Engine {
 public:
  explicit Engine(EngineConfig cfg);  // opens the sources; throws std::runtime_error
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // `on_event` is called from a worker thread: "done" once when a file
  // playlist ends (or the source fails) in every worker, "expired" when
  // records wait in a ring and no doorbell is pending (drain to get them;
  // draining re-arms), "tick" (a = the boundary, b = the previous tick's
  // boundary, epoch seconds) when a tick listener is set (see below),
  // "last_tick" for the one after a file playlist's last packet.
  using EventFn = std::function<void(const char* ev, double a, double b)>;
  void start(EventFn on_event);

  // Timeseries ticks on packet time. Before the first packet at or past the
  // next multiple of kTickStep is processed, every flow's per-application
  // counters are credited (account_all) so the tables hold exactly the
  // traffic before the boundary; a packet jumping several steps makes one
  // tick at the last boundary before it, and a file playlist that ends makes
  // one at the boundary after its last packet. The traffic between two ticks
  // then lies in the step starting at the earlier one. Every worker reaches
  // each boundary (a file's workers all read every packet's time); the last
  // to arrive signals "tick" once. With a listener set, the workers release
  // their batch locks and wait for tick_done(boundary): without limit for
  // files (a replay gives the same series at any speed), at most
  // kTickWaitLive for live capture (capture never stalls; such ticks are
  // counted late). Each tick, listener or not, also closes the host checks'
  // minute (Pipeline::close_host_checks_minute) in every shard: the hits of
  // the traffic between the previous tick and this one.
  static constexpr uint64_t kTickStep = 60ULL * 1000000000;
  // How far behind the wall clock a quiet live worker's next packet can be
  // stamped: the capture ring hands packets over in blocks retired after
  // 50 ms (live_source.cpp), and a batch takes its time.
  static constexpr uint64_t kRecorderLagNs = 250ULL * 1000000;
  static constexpr int kTickWaitLiveMs = 250;
  void set_tick_listener(bool on) { tick_listener_.store(on); }
  void tick_done(uint64_t boundary_s);
  uint64_t ticks() const { return ticks_.load(std::memory_order_relaxed); }
  uint64_t ticks_late() const { return ticks_late_.load(std::memory_order_relaxed); }
  void stop();  // idempotent: joins the workers

  EngineState state() const { return state_.load(); }
  std::string error() const;
  bool is_live() const { return is_live_; }
  double progress() const;  // 0..1 for files
  uint64_t read_only_packets() const { return ro_packets_.load(); }
  uint64_t read_only_bytes() const { return ro_bytes_.load(); }
  uint64_t kernel_drops() const;  // every worker's capture ring
  size_t workers() const { return shards_.size(); }
  // The interface's table maximums as configured (a worker's flow table holds
  // its share of them, a little more: hashes do not split exactly).
  uint32_t max_flows() const { return max_flows_; }
  uint32_t max_hosts() const { return max_hosts_; }

  void set_nets(std::shared_ptr<const NetConfig> n) { std::atomic_store(&nets_, std::move(n)); }
  std::shared_ptr<const NetConfig> nets() const { return std::atomic_load(&nets_); }

  // Egress (null when no egress target is configured): the first worker's. The
  // policy table is swapped under the batch lock: a batch sees the old table
  // or the new one.
  const Egress* egress() const { return egress_.empty() ? nullptr : egress_[0].get(); }
  void set_egress_policy(std::shared_ptr<const PolicyTable> t) {
    AllLocks g(*this);
    std::atomic_store(&policy_, std::move(t));
  }
  // f(lanes, table): every worker's Egress (the first is egress()), batches held.
  template <class F>
  auto with_egress(F&& f) const {
    AllLocks g(*this);
    std::vector<const Egress*> lanes;
    for (auto& sh : shards_) lanes.push_back(sh->egress);
    return f(lanes, *std::atomic_load(&policy_));
  }

  // A looped playlist's passes so far (0 before the first packet), the time
  // shift between two passes and the first packet's time of the first pass:
  // pass k's packets carry their file time + k * period (extraction maps a
  // window back onto the files with it).
  struct ReplayInfo {
    uint64_t passes, period_ns, first_ns;
  };
  ReplayInfo replay_info() const { return {passes_.load(), loop_period_ns_.load(), first_ns_.load()}; }

  // The packet recorder (null when not recording).
  const Recorder* recorder() const { return recorder_.get(); }

  // Runs f(views) under every worker's batch lock: a consistent view of
  // every shard's tables (query.h's Views, in worker order).
  template <class F>
  auto with_views(F&& f) const {
    AllLocks g(*this);
    return f(views_);
  }
  // The shards without their locks, for what only reads the tables' mappings
  // (their resident pages): only the JS thread, which alone rebuilds tables
  // (set_limits), may ask.
  const std::vector<const Pipeline*>& tables_views() const { return views_; }

  // Hosts and devices counted once over the shards (binding/convert.cpp's
  // stats), kept with the shards' host counters they were counted at.
  struct Distinct {
    uint64_t hosts, local, rx_only, local_rx_only, devices;
    uint64_t key = ~uint64_t(0), at_ns = 0;
  };
  Distinct& distinct_cache() const { return distinct_; }

  // Between two batches, the tables are rebuilt with new maximums; false
  // (and nothing changed) when a maximum is below what a shard holds.
  bool set_limits(uint32_t max_flows, uint32_t max_hosts);

  // A new score table: a batch sees the old table or the new one, and every
  // active flow is re-scored with it before the next batch.
  void set_risk_scores(const RiskScoreTable& t) {
    AllLocks g(*this);
    for (auto& s : shards_) s->pipeline->set_risk_scores(t);
  }

  // The IEC checks' allowed type ids (Pipeline::set_iec_allowed): a batch
  // sees the old set or the new one.
  void set_iec_allowed(uint64_t lo, uint64_t hi) {
    AllLocks g(*this);
    for (auto& s : shards_) s->pipeline->set_iec_allowed(lo, hi);
  }

  // A new host pool table: every host is re-assigned before this returns,
  // so the next answer shows the new membership.
  void set_host_pools(std::shared_ptr<const HostPoolTable> t) {
    AllLocks g(*this);
    for (auto& s : shards_) s->pipeline->set_host_pools(t);
  }

  // Expires up to `max` active flows into the rings (under the batch locks,
  // so also while running), never more than a ring has room for; the
  // caller drains between calls.
  uint32_t expire_active(uint32_t max);

  // Clears the doorbell first: records pushed after this ring it again.
  size_t drain_expired(ExpiredFlow* out, size_t max);
  uint64_t expired_pending() const;

 private:
  struct Shard {
    explicit Shard(uint32_t ring_records) : ring(ring_records) {}
    uint32_t index = 0;
    std::unique_ptr<PacketSource> source;
    SpscRing<ExpiredFlow> ring;
    std::unique_ptr<Pipeline> pipeline;
    mutable std::mutex mu;
    mutable std::atomic<int> waiters{0};
    std::thread thread;
    std::atomic<uint64_t> kernel_drops{0};
    // Ticks: this worker's positions.
    uint64_t next_tick_ns = 0, last_tick_ns = 0;
    // Replay-loop time shift: each pass starts after the previous one ended.
    uint64_t loop_shift_ns = 0, pass_first_ns = 0, pass_last_ns = 0;
    uint64_t read_ns = 0;  // the latest packet time read (a file read by several workers)
    uint64_t pass = 0;     // a looped playlist's passes (the shared chunks' key)
    // Under the engine's tick_mu_: the last boundary this worker reached, and
    // whether it left (a worker gone counts as past every boundary).
    uint64_t tick_reached_ns = 0;
    bool tick_gone = false;
    Egress* egress = nullptr;  // this worker's (null: no egress)
  };
  // Every shard's batch lock, taken in worker order (workers take only their
  // own, so no order can deadlock).
  struct AllLocks {
    const Engine& e;
    explicit AllLocks(const Engine& en) : e(en) {
      for (auto& s : e.shards_) {
        s->waiters.fetch_add(1);
        s->mu.lock();
        s->waiters.fetch_sub(1);
      }
    }
    ~AllLocks() {
      for (auto it = e.shards_.rbegin(); it != e.shards_.rend(); ++it) (*it)->mu.unlock();
    }
  };

  void run(Shard& sh) noexcept;
  void run_loop(Shard& sh);
  void finish(Shard& sh) noexcept;
  void reopen(Shard& sh);
  void unlock_and_yield(Shard& sh, std::unique_lock<std::mutex>& lk);
  void poll_drops(Shard& sh, uint64_t& last);
  void ring_doorbell();
  void tick(Shard& sh, std::unique_lock<std::mutex>& lk, uint64_t boundary_ns, bool last = false);
  // Signals the highest boundary every worker still running has reached, when
  // not signalled yet (tick_mu_ held by `g`); a worker leaving calls it too.
  void signal_ticks(std::unique_lock<std::mutex>& g, uint64_t prev_ns, bool last, bool listener);
  void leave_ticks(Shard& sh);
  void process_range(Shard& sh, std::unique_lock<std::mutex>& lk, RawPacket* b, size_t n, std::shared_ptr<const NetConfig>& nets,
                     std::shared_ptr<const PolicyTable>& policy, bool timed, uint64_t& wall0, uint64_t& pkt0,
                     const uint64_t* raw_ts = nullptr);  // the packets' own times where b carries the clock
  void set_error(const std::string& e);

  EngineConfig cfg_;
  bool is_live_;
  uint32_t max_flows_, max_hosts_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<const Pipeline*> views_;
  std::shared_ptr<HostLiveness> liveness_;  // several workers: host parts' lifetimes
  std::shared_ptr<SharedChunks> shared_chunks_;  // several workers reading files
  // Several workers: names worker i learned for worker j at [i * N + j].
  std::vector<std::unique_ptr<SpscRing<Pipeline::NameNote>>> name_rings_;
  void learn_told_names(Shard& sh) noexcept;
  mutable Distinct distinct_{};
  std::shared_ptr<const NetConfig> nets_;
  std::vector<std::unique_ptr<Egress>> egress_;  // per worker (the first opened the outputs; the others take lanes of them)
  std::unique_ptr<Recorder> recorder_;
  std::shared_ptr<const PolicyTable> policy_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> armed_{false};  // an "expired" doorbell is pending
  std::atomic<EngineState> state_{EngineState::Idle};
  std::atomic<uint32_t> running_{0};  // workers not finished yet
  mutable std::mutex err_mu_;
  std::string error_;
  EventFn on_event_;
  // Ticks across workers, under tick_mu_ (with each Shard's tick_reached_ns
  // and tick_gone): the last boundary signalled and the last acknowledged.
  std::mutex tick_mu_;
  std::condition_variable tick_cv_;
  uint64_t tick_signalled_ns_ = 0;
  uint64_t tick_ack_s_ = 0;
  std::atomic<bool> tick_listener_{false};
  std::atomic<uint64_t> ticks_{0}, ticks_late_{0};
  std::atomic<uint64_t> ro_packets_{0}, ro_bytes_{0}, ro_sink_{0};
  std::atomic<uint64_t> passes_{0}, loop_period_ns_{0}, first_ns_{0};
};

}  // namespace fg
