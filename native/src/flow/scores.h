// ③ Flow and host scores as ntopng keeps them (Flow::setAlertsBitmap,
// Host::incScoreValue / decScoreValue, ScoreStats): each alert of a flow is
// worth its score, split into a client and a server share and filed under
// a score category (network or security); the flow's hosts carry the shares
// while the flow lives. Here a flow's alerts are its nDPI risks whose flow
// check is enabled, so its score follows its risk mask: when the mask or the
// table changes, the difference moves to its hosts; when it ends, all of it
// leaves them. The table comes from the control plane (the alert catalogue
// and the checks configuration).
#pragma once
#include <cstdint>

namespace fg {

constexpr int kScoreCategories = 2;  // ntopng's ScoreCategory: 0 network, 1 security

// ntopng's AlertLevelGroup of an alerted flow's predominant alert, as the
// interface counts them (NetworkInterface::incNumAlertedFlows): notice or
// lower, warning, error; critical and emergency fall in no counted group.
enum SeverityGroup : uint8_t { kSevNone = 0, kSevNotice = 1, kSevWarning = 2, kSevError = 3, kSevUncounted = 4, kSevGroups = 5 };

// ntopng's AlertLevel ids (debug 1 … emergency 8) to their group.
inline uint8_t severity_group(uint8_t level) {
  if (level == 0) return kSevNone;
  if (level <= 3) return kSevNotice;
  if (level == 4) return kSevWarning;
  if (level == 5) return kSevError;
  return kSevUncounted;
}

// Per nDPI risk id: what its alert is worth. A risk raises an alert when its
// bit is in `alerting` (enabled check and a known alert).
struct RiskScoreTable {
  uint64_t alerting = 0;
  uint16_t cli[64] = {}, srv[64] = {};
  uint8_t category[64] = {};  // ScoreCategory
  uint8_t level[64] = {};     // AlertLevel of the alert's score (the predominant alert's severity)
};

// What a flow's alerts credited to its hosts. Only flows that ever alerted
// have one: a side pool indexed by Flow::score, sized for a share of the
// table (Pipeline), as the flow entry has no room left.
constexpr int kAlertBits = 57;  // nDPI risk ids below 57 (dpi/risk.h kRiskMax)
struct FlowScore {
  uint64_t alerts : kAlertBits;              // the risk bits scored (risks & alerting)
  uint64_t group : 3;                        // SeverityGroup of the predominant alert (alerted: alerts != 0)
  uint64_t counted : 1;                      // its hosts' alerted_total counted it (once per flow, as ntopng's flows stay alerted)
  uint16_t cli[kScoreCategories], srv[kScoreCategories];
};
static_assert(sizeof(FlowScore) == 16);

// A host's score and alerted flows (by host slot).
struct HostScore {
  uint32_t score[2][kScoreCategories];  // [0 as client, 1 as server][category]
  uint32_t alerted_active;              // ntopng's active_alerted_flows
  uint32_t alerted_total[2];            // alerted_flows.as_client / .as_server since the host appeared
  uint32_t pad;
  uint32_t as_client() const { return score[0][0] + score[0][1]; }
  uint32_t as_server() const { return score[1][0] + score[1][1]; }
};
static_assert(sizeof(HostScore) == 32);

// The score a set of alerting risks is worth: shares per category, and the
// group of the predominant alert (the first, in id order, with the highest
// total score: setAlertsBitmap replaces it only when strictly higher).
inline FlowScore score_of(uint64_t alerts, const RiskScoreTable& t) {
  FlowScore s{};
  s.alerts = alerts;
  uint32_t top = 0;
  int top_risk = -1;
  for (uint64_t m = alerts; m; m &= m - 1) {
    const int r = __builtin_ctzll(m);
    const uint8_t c = t.category[r] < kScoreCategories ? t.category[r] : 0;
    s.cli[c] = uint16_t(s.cli[c] + t.cli[r]), s.srv[c] = uint16_t(s.srv[c] + t.srv[r]);
    const uint32_t total = uint32_t(t.cli[r]) + t.srv[r];
    if (top_risk < 0 || total > top) top = total, top_risk = r;
  }
  s.group = top_risk < 0 ? uint8_t(kSevNone) : severity_group(t.level[top_risk]);
  return s;
}

}  // namespace fg
