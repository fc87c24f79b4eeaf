// ③ What ntopng's packet-counting host checks read (src/host_checks/:
// SYNScan, FINScan, RSTScan, FlowFlood, ICMPFlood): per-host counters the
// packet path feeds, turned into the minute's hits and reset at each engine
// tick, as ntopng runs these checks once a minute per host and resets after
// each run. The entries sit beside the host table, indexed by host slot (the
// host entry has no room); the FIN-scan counters live in the host's hot
// packet lines instead (HostPktStats), since every ACK packet updates them.
#pragma once
#include <cstdint>

#include "flow/host.h"

namespace fg {

// ntopng's AlertCounter: the peak number of events inside a window of at most
// two seconds (a window opens at an event and takes the events up to one
// second after its opening second; the opening event itself is not counted),
// since the last reset. Its quirks are kept: after a reset, the first event
// opens a window and IS counted (AlertCounter restarts the window, then
// increments); hits() reads 0 from a reset until the next event; the counts
// are 16-bit and wrap.
struct PeakCounter {
  static constexpr uint32_t kReset = 0xffffffffu;  // reset asked, no event since
  uint32_t start;  // second the current window opened (0 for a new host, as AlertCounter starts)
  uint16_t cur, peak;

  void inc(uint32_t s) noexcept {
    if (start == kReset) {
      start = s, cur = 1, peak = 0;
    } else if (int64_t(s) - int64_t(start) > 1) {
      if (cur > peak) peak = cur;
      start = s, cur = 0;
    } else {
      cur++;
    }
  }
  uint16_t hits() const noexcept { return start == kReset ? 0 : peak > cur ? peak : cur; }
  void reset() noexcept { start = kReset, cur = peak = 0; }
};

// The first kFlowHitsChecks are ntopng's FlowHits-style checks (an attacker
// and a victim figure, shown in host data's hits.*); the others have one
// figure, the host's own ([0]), taken when the minute closes:
// scan_detection (its flows that ended unanswered this minute),
// dns/ntp/smtp_contacts (the distinct servers it used, a local host that is
// not such a server itself), domain_names_contacts (distinct names this
// minute, local hosts), remote_connection (its live remote-access flows) and
// countries_contacts (the distinct countries of a local host's peers over
// ntopng's 5-minute window).
enum HostCheck : uint8_t {
  kSynScan = 0, kFinScan = 1, kRstScan = 2, kFlowFlood = 3, kIcmpFlood = 4, kFlowHitsChecks = 5,
  kScanDetection = 5, kDnsContacts = 6, kNtpContacts = 7, kSmtpContacts = 8, kDomainNames = 9, kRemoteConnection = 10,
  kCountriesContacts = 11, kHostCheckCount = 12
};
// The names of ts/services/alerts/types.ts (HostCheckName), by HostCheck.
inline constexpr const char* kHostCheckNames[kHostCheckCount] = {
    "syn_scan", "fin_scan", "rst_scan", "flow_flood", "icmp_flood", "scan_detection",
    "dns_contacts", "ntp_contacts", "smtp_contacts", "domain_names_contacts", "remote_connection", "countries_contacts"};

// One host's counters of the current minute: [0] what it sent (attacker
// side; as client for flows), [1] what it received (victim side). One cache
// line: a SYN, RST, ICMP packet or a new flow touches one line per host.
struct alignas(64) HostCheckCounters {
  uint32_t syn[2];     // SYN without ACK (ECE/CWR ignored): ntopng's syn_{sent,recvd}_last_min
  uint32_t synack[2];  // SYN|ACK (ECE/CWR ignored): synack_{sent,recvd}_last_min
  PeakCounter rst[2];  // the first RST of a flow (either direction)
  PeakCounter flows[2];  // each new flow, as client / as server
  PeakCounter icmp[2];   // each ICMP/ICMPv6 packet
};
static_assert(sizeof(HostCheckCounters) == 64, "one cache line per host slot");

// A minute's hits of one host slot: [check][0 attacker, 1 victim].
struct HostCheckHits {
  uint32_t hits[kHostCheckCount][2];
  bool any() const noexcept {
    for (const auto& h : hits)
      if (h[0] | h[1]) return true;
    return false;
  }
};

inline uint32_t excess(uint32_t a, uint32_t b) { return a > b ? a - b : 0; }

// ntopng's Host::<check>_attacker_hits() / _victim_hits(): SYN (FIN) scan =
// SYNs (first FINs) sent beyond the SYN|ACKs (FIN/ACK packets) received, and
// the reverse for the victim; the others are their counters' peaks. (The
// one-figure checks are left 0: Pipeline::close_host_checks_minute.)
inline HostCheckHits hits_of(const HostCheckCounters& c, const Host& h) noexcept {
  HostCheckHits r{};
  r.hits[kSynScan][0] = excess(c.syn[0], c.synack[1]);
  r.hits[kSynScan][1] = excess(c.syn[1], c.synack[0]);
  r.hits[kFinScan][0] = excess(h.pkt[0].scan_fin, h.pkt[1].scan_finack);
  r.hits[kFinScan][1] = excess(h.pkt[1].scan_fin, h.pkt[0].scan_finack);
  for (int d = 0; d < 2; d++) {
    r.hits[kRstScan][d] = c.rst[d].hits();
    r.hits[kFlowFlood][d] = c.flows[d].hits();
    r.hits[kIcmpFlood][d] = c.icmp[d].hits();
  }
  return r;
}

// One local network's counters of the current minute (ntopng's NetworkStats):
// SYNs its hosts received and SYN|ACKs they sent, and the flows with a server
// in it, counted by an AlertCounter of the network's own (its peak rate, not
// the sum of its hosts' peaks).
struct NetCheckCounters {
  uint32_t syn_recvd, synack_sent;
  PeakCounter flows_srv;
};

// The minute's figures of NetworkStats::lua: hits.syn_scan_victim (SYNs
// received beyond SYN|ACKs sent), hits.flow_flood_victim.
struct NetCheckHits {
  uint32_t syn_scan_victim, flow_flood_victim;
};

inline NetCheckHits net_hits_of(const NetCheckCounters& c) noexcept { return {excess(c.syn_recvd, c.synack_sent), c.flows_srv.hits()}; }

// NetworkStats::housekeepAlerts (minute)
inline void reset_net_checks(NetCheckCounters& c) noexcept {
  c.syn_recvd = c.synack_sent = 0;
  c.flows_srv.reset();
}

// The resets ntopng's checks do after each run (Host::reset_*_hits).
inline void reset_checks(HostCheckCounters& c, Host& h) noexcept {
  for (int d = 0; d < 2; d++) {
    c.syn[d] = c.synack[d] = 0;
    c.rst[d].reset(), c.flows[d].reset(), c.icmp[d].reset();
    h.pkt[d].scan_fin = h.pkt[d].scan_finack = 0;
  }
}

}  // namespace fg
