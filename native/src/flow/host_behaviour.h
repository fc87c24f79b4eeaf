// ③ ntopng's behavioural counters of a host, kept for local hosts in a
// fixed pool (remote hosts have none here; ntopng keeps them for every host):
//
// - DES (HostStats' DESCounter: nDPI's double exponential smoothing, alpha
//   0.9, beta 0.035, 5 % significance), one observation every 5 minutes of
//   the score as client / as server and the active flows as client / as
//   server (score_behaviour, active_flows_behaviour), and of the names a
//   local host visited in those 5 minutes (LocalHostStats'
//   contacted_hosts_behaviour): the forecast ± the
//   confidence band gives the bounds; a value outside them, once past the
//   first observation, is an anomaly.
// - RSI-like anomaly index (MonitoredCounter) of the bytes and packets sent
//   and received (bytes.sent.anomaly_index …) and of each L4 family's bytes
//   (tcp.bytes.sent.anomaly_index …, L4Stats): at most once a minute, when
//   the group's traffic moved (ntopng updates a direction pair whenever the
//   host, or the family, carried traffic), the change of the per-minute
//   increase feeds gains / losses EWMAs (integer, 50 %);
//   index = 100 − 100 / (gains / losses + 1).
#pragma once
#include <cmath>
#include <cstdint>

namespace fg {

struct DesCounter {
  static constexpr double kAlpha = 0.9, kBeta = 0.035;
  static constexpr uint8_t kRollup = 64;  // nDPI's MAX_SQUARE_ERROR_ITERATIONS
  // (nDPI's rollup counter is n mod kRollup, and its anomaly flag follows
  // from the last value and bounds: neither is stored, 64 bytes a counter)
  uint32_t n;
  uint32_t tot_anomalies;
  uint64_t value, lower, upper;
  double sse, prev_sse, forecast, trend;

  // nDPI's ndpi_normal_cdf_inverse(1 - 0.05 / 2): Abramowitz and Stegun 26.2.23
  static double ro() {
    const double t = std::sqrt(-2.0 * std::log(1 - (1 - double(0.05f) / 2.0)));
    return t - ((0.010328 * t + 0.802853) * t + 2.515517) / (((0.001308 * t + 0.189269) * t + 1.432788) * t + 1.0);
  }

  // the last observation was outside its bounds (none before the second)
  bool anomaly() const noexcept { return n > 1 && (value < lower || value > upper); }

  void add(uint64_t v) noexcept {
    const double x = double(v);
    double f;
    if (n == 0) f = x, trend = 0;
    else {
      f = kAlpha * x + (1 - kAlpha) * (forecast + trend);
      trend = kBeta * (f - forecast) + (1 - kBeta) * trend;
    }
    const double err = x - f;
    sse += err * err, prev_sse += err * err;
    double band = 0;
    const bool ready = n > 0;
    if (ready) {
      const uint32_t obs = n < kRollup ? n + 1 : (n % kRollup) + kRollup + 1;
      band = ro() * std::sqrt(sse / obs);
    }
    n++, forecast = f;
    if (n % kRollup == 0) sse = prev_sse, prev_sse = 0;
    const double lo = f - band, hi = f + band;
    value = v;
    lower = uint64_t(std::floor(lo < 0 ? 0 : lo));
    upper = uint64_t(std::round(hi + 0.5));
    if (ready) tot_anomalies += anomaly();
  }
};
static_assert(sizeof(DesCounter) == 64);

// The index itself (0-100) is the caller's to keep (HostBehaviour::rsi_index).
struct RsiCounter {
  uint64_t last_value, last_diff, gains, losses;

  static uint64_t ewma(uint64_t sample, uint64_t avg) { return (50 * sample + 50 * avg) / 100; }
  // `first`: no update yet (ntopng's last_update 0: no index from one point).
  // Returns the new index.
  uint8_t update(uint64_t value, bool first) noexcept {
    const uint64_t diff = value - last_value;
    const int64_t delta = int64_t(diff) - int64_t(last_diff);
    if (delta > 0) gains = ewma(uint64_t(delta), gains), losses = ewma(0, losses);
    else gains = ewma(0, gains), losses = ewma(uint64_t(-delta), losses);
    uint64_t index = 0;
    if (delta && !first && (gains || losses)) {
      float ratio = 1;
      if (losses) ratio = float(gains) / float(losses) + 1;
      if (ratio != 0) index = uint64_t(100 - 100 / ratio);
    }
    last_value = value, last_diff = diff;
    return uint8_t(index);
  }
};

struct HostBehaviour {
  static constexpr uint32_t kDesPeriodS = 300;  // HOST_SITES_REFRESH
  static constexpr uint32_t kRsiPeriodS = 60;
  static constexpr int kRsi = 12, kGroups = 5, kDes = 5;
  uint32_t n;                // pool convention: 0 = fresh entry
  uint32_t next_des_s;       // engine second of the next DES observation
  uint32_t rsi_last_s[kGroups];  // engine second of each group's last RSI update (0: none)
  // score as client, as server; active flows as client, as server; names visited (LocalHostStats' contacted_hosts)
  DesCounter des[kDes];
  // group 0: bytes sent, rcvd, packets sent, rcvd; groups 1-4: bytes sent, rcvd of TCP, UDP, ICMP, other IP
  RsiCounter rsi[kRsi];
  uint8_t rsi_index[kRsi];  // each counter's anomaly index (0-100)

  static int group_of(int k) { return k < 4 ? 0 : 1 + (k - 4) / 2; }
  bool des_due(uint32_t now_s) const { return n == 0 || now_s >= next_des_s; }

  // One minute pass: the DES observations when due, each RSI group's when
  // its traffic moved at least a minute after its last update. Returns the
  // anomalies of the score and active-flow counters found at an observation
  // (HostStats::updateStats' count for the interface; the names visited, a
  // local host's own counter, are not among them). `local`: observe the
  // names visited too (LocalHostStats).
  uint32_t minute(uint32_t now_s, const uint64_t des_values[kDes], const uint64_t rsi_values[kRsi], bool local) noexcept {
    if (n == 0) *this = HostBehaviour{}, n = 1;
    uint32_t found = 0;
    if (now_s >= next_des_s) {
      for (int k = 0; k < kDes; k++) {
        if (k == 4 && !local) continue;
        des[k].add(des_values[k]);
        if (k < 4 && des[k].anomaly()) found++;
      }
      next_des_s = now_s + kDesPeriodS;
    }
    bool moved[kGroups] = {};
    for (int k = 0; k < kRsi; k++) moved[group_of(k)] |= rsi_values[k] != rsi[k].last_value;
    bool due[kGroups];
    for (int g = 0; g < kGroups; g++) due[g] = moved[g] && (rsi_last_s[g] == 0 || now_s - rsi_last_s[g] >= kRsiPeriodS);
    for (int k = 0; k < kRsi; k++)
      if (due[group_of(k)]) rsi_index[k] = rsi[k].update(rsi_values[k], rsi_last_s[group_of(k)] == 0);
    for (int g = 0; g < kGroups; g++)
      if (due[g]) rsi_last_s[g] = now_s;
    return found;
  }
};

}  // namespace fg
