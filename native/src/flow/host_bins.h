// ③ A host's flow bins, as ntopng 4.0 kept them (Bin, NewFlowFrequencyBin,
// FlowDurationBin; Host::lua_get_bins, removed from ntopng in July 2020 but
// in the REST spec's host data): per role (client, server), the seconds
// between one new flow and the next, and each ended flow's duration, in
// eight ranges. Beside the host table, one entry per host slot.
#pragma once
#include <cstdint>

namespace fg {

struct HostFlowBins {
  static constexpr int kBins = 8;
  uint32_t frequency[2][kBins];  // [0 as client, 1 as server]
  uint32_t duration[2][kBins];
  uint32_t last_new_s[2];  // packet time (s) of the role's latest new flow, 0 before the first

  // Bin::incBin's ranges: <= 1, 3, 5, 10, 30, 60, 300 seconds, then more.
  static int bin_of(uint32_t secs) {
    static constexpr uint32_t kUpTo[kBins - 1] = {1, 3, 5, 10, 30, 60, 300};
    for (int i = 0; i < kBins - 1; i++)
      if (secs <= kUpTo[i]) return i;
    return kBins - 1;
  }
  // NewFlowFrequencyBin::incFrequency: the gap from the previous new flow
  // (unsigned, as ntopng's: an earlier timestamp falls in the last range).
  void flow_begin(int role, uint32_t epoch_s) {
    if (last_new_s[role] != 0) frequency[role][bin_of(epoch_s - last_new_s[role])]++;
    last_new_s[role] = epoch_s;
  }
  // FlowDurationBin::incDuration, at the flow's end (Host::decNumFlows).
  void flow_end(int role, uint32_t duration_s) { duration[role][bin_of(duration_s)]++; }
  void merge(const HostFlowBins& o) {
    for (int r = 0; r < 2; r++)
      for (int i = 0; i < kBins; i++) frequency[r][i] += o.frequency[r][i], duration[r][i] += o.duration[r][i];
  }
};
static_assert(sizeof(HostFlowBins) == 136);

}  // namespace fg
