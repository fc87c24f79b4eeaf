// One engine per monitored interface (its ifid): a capture source, a worker
// thread running the Pipeline, and the lock-protected tables JS queries.
//
// Locking: the worker holds `mu_` while it processes a batch (≤ 256 packets)
// and releases it between batches; JS takes it to copy out a consistent view.
// That is one uncontended lock per batch, not per packet; a JS waiter raises
// `waiters_` so the worker yields instead of re-taking the lock at once.
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
  uint32_t ring_records = 1 << 16;
  EgressConfig egress;             // egress queues; with a bridge, capture is on both bridge interfaces
  bool record = false;             // keep every packet in a recording (recorder.h)
  RecorderConfig recorder;
};

enum class EngineState : uint8_t { Idle = 0, Running = 1, Done = 2, Stopped = 3, Failed = 4 };

class Engine {
 public:
  explicit Engine(EngineConfig cfg);  // opens the source; throws std::runtime_error
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // `on_event` is called from the worker thread: "done" once when a file
  // playlist ends (or the source fails), "expired" when records wait in the
  // ring and no doorbell is pending (drain to get them; draining re-arms),
  // "tick" (a = the boundary, b = the previous tick's boundary, epoch
  // seconds) when a tick listener is set (see below), "last_tick" for the
  // one after a file playlist's last packet.
  using EventFn = std::function<void(const char* ev, double a, double b)>;
  void start(EventFn on_event);

  // Timeseries ticks on packet time. Before the first packet at or past the
  // next multiple of kTickStep is processed, every flow's per-application
  // counters are credited (account_all) so the tables hold exactly the
  // traffic before the boundary; a packet jumping several steps makes one
  // tick at the last boundary before it, and a file playlist that ends makes
  // one at the boundary after its last packet. The traffic between two ticks
  // then lies in the step starting at the earlier one. With a listener set,
  // the worker releases the batch lock, signals "tick" and waits for
  // tick_done(boundary): without limit for files (a replay gives the same
  // series at any speed), at most kTickWaitLive for live capture (capture
  // never stalls; such ticks are counted late). Each tick, listener or not,
  // also closes the host checks' minute (Pipeline::close_host_checks_minute):
  // the hits of the traffic between the previous tick and this one.
  static constexpr uint64_t kTickStep = 60ULL * 1000000000;
  static constexpr int kTickWaitLiveMs = 250;
  void set_tick_listener(bool on) { tick_listener_.store(on); }
  void tick_done(uint64_t boundary_s);
  uint64_t ticks() const { return ticks_.load(std::memory_order_relaxed); }
  uint64_t ticks_late() const { return ticks_late_.load(std::memory_order_relaxed); }
  void stop();  // idempotent: joins the worker

  EngineState state() const { return state_.load(); }
  std::string error() const;
  bool is_live() const { return is_live_; }
  double progress() const;  // 0..1 for files
  uint64_t read_only_packets() const { return ro_packets_.load(); }
  uint64_t read_only_bytes() const { return ro_bytes_.load(); }
  uint64_t kernel_drops() const { return kernel_drops_.load(); }

  void set_nets(std::shared_ptr<const NetConfig> n) { std::atomic_store(&nets_, std::move(n)); }
  std::shared_ptr<const NetConfig> nets() const { return std::atomic_load(&nets_); }

  // Egress (null when no egress target is configured). The policy table is
  // swapped under the batch lock: a batch sees the old table or the new one.
  const Egress* egress() const { return egress_.get(); }
  void set_egress_policy(std::shared_ptr<const PolicyTable> t) {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    std::atomic_store(&policy_, std::move(t));
  }
  template <class F>
  auto with_egress(F&& f) const {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    return f(*egress_, *std::atomic_load(&policy_));
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
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    const std::vector<const Pipeline*> v{pipeline_.get()};
    return f(v);
  }
  size_t workers() const { return 1; }

  // Runs f(pipeline) under the batch lock: a consistent view of every table.
  template <class F>
  auto with_view(F&& f) const {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    return f(*pipeline_);
  }

  // Between two batches, the tables are rebuilt with new maximums.
  bool set_limits(uint32_t max_flows, uint32_t max_hosts) {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    return pipeline_->resize(max_flows, max_hosts);
  }

  // A new score table: a batch sees the old table or the new one, and every
  // active flow is re-scored with it before the next batch.
  void set_risk_scores(const RiskScoreTable& t) {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    pipeline_->set_risk_scores(t);
  }

  // The IEC checks' allowed type ids (Pipeline::set_iec_allowed): a batch
  // sees the old set or the new one.
  void set_iec_allowed(uint64_t lo, uint64_t hi) {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    pipeline_->set_iec_allowed(lo, hi);
  }

  // A new host pool table: every host is re-assigned before this returns,
  // so the next answer shows the new membership.
  void set_host_pools(std::shared_ptr<const HostPoolTable> t) {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    pipeline_->set_host_pools(std::move(t));
  }

  // Expires up to `max` active flows into the ring (under the batch lock,
  // so also while running); the caller drains between calls.
  uint32_t expire_active(uint32_t max) {
    waiters_.fetch_add(1);
    std::lock_guard<std::mutex> g(mu_);
    waiters_.fetch_sub(1);
    return pipeline_->expire_some(max);
  }

  // Clears the doorbell first: records pushed after this ring it again.
  size_t drain_expired(ExpiredFlow* out, size_t max) {
    armed_.store(false);
    return ring_.drain(out, max);
  }
  uint64_t expired_pending() const { return ring_.size(); }
  uint64_t expired_capacity() const { return ring_.capacity(); }

 private:
  void run() noexcept;
  void run_loop();
  void reopen();
  void unlock_and_yield(std::unique_lock<std::mutex>& lk);
  void poll_drops(uint64_t& last);
  void ring_doorbell();
  void tick(std::unique_lock<std::mutex>& lk, uint64_t boundary_ns, bool last = false);
  void process_range(std::unique_lock<std::mutex>& lk, RawPacket* b, size_t n, std::shared_ptr<const NetConfig>& nets,
                     std::shared_ptr<const PolicyTable>& policy, bool timed, uint64_t& wall0, uint64_t& pkt0);

  EngineConfig cfg_;
  bool is_live_;
  std::unique_ptr<PacketSource> source_;
  SpscRing<ExpiredFlow> ring_;
  std::unique_ptr<Pipeline> pipeline_;
  std::shared_ptr<const NetConfig> nets_;
  std::unique_ptr<Egress> egress_;
  std::unique_ptr<Recorder> recorder_;
  std::shared_ptr<const PolicyTable> policy_;
  mutable std::mutex mu_;
  mutable std::atomic<int> waiters_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> armed_{false};  // an "expired" doorbell is pending
  std::atomic<EngineState> state_{EngineState::Idle};
  mutable std::mutex err_mu_;
  std::string error_;
  std::thread thread_;
  EventFn on_event_;
  // Ticks: worker-only positions, the acknowledgement under tick_mu_.
  uint64_t next_tick_ns_ = 0, last_tick_ns_ = 0;
  std::mutex tick_mu_;
  std::condition_variable tick_cv_;
  uint64_t tick_ack_s_ = 0;
  std::atomic<bool> tick_listener_{false};
  std::atomic<uint64_t> ticks_{0}, ticks_late_{0};
  std::atomic<uint64_t> ro_packets_{0}, ro_bytes_{0}, ro_sink_{0}, kernel_drops_{0};
  // Replay-loop time shift: each pass starts after the previous one ended.
  uint64_t loop_shift_ns_ = 0, pass_first_ns_ = 0, pass_last_ns_ = 0;
  std::atomic<uint64_t> passes_{0}, loop_period_ns_{0}, first_ns_{0};
};

}  // namespace fg
