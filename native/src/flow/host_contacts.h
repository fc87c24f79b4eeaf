// ③ What ntopng's contact host checks count per local host
// (src/host_checks/DNSServerContacts, NTPServerContacts, SMTPServerContacts,
// DomainNamesContacts; LocalHostStats' Cardinality estimators): the distinct
// DNS, NTP and SMTP servers a host used as client, and the distinct domain
// names its flows named (reset after each minute's run). One 32-byte sketch
// per (host, kind), kept in the host L7 table (host_l7.h) as entries of kind
// 0, so only hosts that used such a service hold one and a host's sketches
// go when it does.
//
// The sketch counts exactly up to kExact distinct values (their 32-bit
// hashes kept), then turns into a HyperLogLog of 32 one-byte registers (the
// size ntopng gives its server estimators). ntopng estimates from the first
// value on; exact small counts keep the packet truth where its thresholds
// (5 servers by default) are decided.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fg {

// The L7 table's kind-0 ids of the sketches (id 0 would make an empty kid).
// kContactCountries: the countries of the peers of a local host (5 minutes).
// kContactNoTx*: ntopng's no-TX estimators (Host::setUnidirectionalTCPUDPNoTX*,
// any host, its whole life): the (server, port) pairs of the one-way TCP/UDP
// flows it started, the (client, port) pairs of those it got as server, and
// the server ports of the latter.
// kCountOneWay: not a sketch but counters (HostL7Table::count_add): the
// one-way TCP/UDP flows ended as server [0] and as client [1] (ntopng's
// unidirectionalTCPUDPFlows.numIngressFlows / numEgressFlows).
enum ContactKind : uint16_t {
  kContactDns = 1, kContactNtp = 2, kContactSmtp = 3, kContactDomains = 4, kContactCountries = 5,
  kContactNoTxOut = 6, kContactNoTxIn = 7, kContactNoTxPorts = 8, kCountOneWay = 9,
  kContactImap = 10, kContactPop = 11,  // the IMAP and POP servers a local host used (LocalHostStats)
  // a local host's lifetime cardinalities (LocalHostStats): the peers it contacted as client,
  // the peers that contacted it, the service names it contacted (SNI, Host, DNS query)
  kContactPeersOut = 12, kContactPeersIn = 13, kContactServices = 14,
  // counters: flows with a blacklisted peer as server [0] / as client [1] (Host::num_blacklisted_flows)
  kCountBlacklisted = 15,
  // the names a local host visited in the current 5 minutes (LocalHostStats' num_contacted_hosts)
  kContactVisited = 16,
};

// Host::host_services_bitmap's servers (HOST_IS_*_SERVER), as seen on the wire.
enum HostService : uint8_t { kSvcDhcp = 1, kSvcDns = 2, kSvcSmtp = 4, kSvcNtp = 8, kSvcImap = 16, kSvcPop = 32 };

struct ContactSketch {
  static constexpr uint16_t kExact = 8, kHll = 0xffff;
  static constexpr int kRegs = 32;

  // mode: the number of exact hashes held (0 … kExact), or kHll
  static void add(uint8_t* s, uint16_t& mode, uint32_t h) noexcept {
    if (mode != kHll) {
      uint32_t v[kExact];
      std::memcpy(v, s, sizeof(v));
      for (uint16_t i = 0; i < mode; i++)
        if (v[i] == h) return;
      if (mode < kExact) {
        std::memcpy(s + 4 * mode, &h, 4);
        mode++;
        return;
      }
      std::memset(s, 0, kRegs);  // the kExact values become registers, then h
      for (uint32_t x : v) reg(s, x);
      mode = kHll;
    }
    reg(s, h);
  }

  static uint32_t estimate(const uint8_t* s, uint16_t mode) noexcept {
    if (mode != kHll) return mode;
    double sum = 0;
    int zeros = 0;
    for (int i = 0; i < kRegs; i++) sum += std::ldexp(1.0, -s[i]), zeros += s[i] == 0;
    const double m = kRegs, e = 0.697 * m * m / sum;  // alpha_32
    // small range: linear counting over the empty registers
    if (e <= 2.5 * m && zeros) return uint32_t(std::lround(m * std::log(m / zeros)));
    return uint32_t(std::lround(e));
  }

 private:
  // register = low 5 bits, rank = 1 + leading zeros of the other 27 (at most 28)
  static void reg(uint8_t* s, uint32_t h) noexcept {
    const uint32_t w = h >> 5;
    const uint8_t rank = uint8_t(w ? __builtin_clz(w) - 4 : 28);
    uint8_t& r = s[h & (kRegs - 1)];
    if (rank > r) r = rank;
  }
};

}  // namespace fg
