// ③ ntopng's used ports of a local host (LocalHost's UsedPorts, host data
// used_ports): the TCP/UDP ports it served (local_server_ports) and the
// server ports it contacted as client (remote_contacted_ports), each with
// the application of the last flow seen on it. Noted once per flow after
// its classification, under ntopng's conditions (Flow::updateServerPortsStats
// and updateClientContactedPorts: see Pipeline::note_ports). A local host
// gets a pool entry at its first port; kMax ports each, those past it
// counted apart, not kept (ntopng's maps are unbounded).
#pragma once
#include <cstdint>

namespace fg {

struct UsedPort {
  uint16_t port;
  uint8_t tcp, server;  // TCP (else UDP); served (else contacted as client)
  uint16_t master, app;
};

struct HostPorts {
  static constexpr uint32_t kMax = 24;
  uint32_t n;
  UsedPort e[kMax];

  // false: a new port and no room
  bool add(bool tcp, bool server, uint16_t port, uint16_t master, uint16_t app) noexcept {
    for (uint32_t i = 0; i < n; i++)
      if (e[i].port == port && e[i].tcp == tcp && e[i].server == server) return e[i].master = master, e[i].app = app, true;
    if (n == kMax) return false;
    e[n++] = UsedPort{port, uint8_t(tcp), uint8_t(server), master, app};
    return true;
  }

  // Adds another worker's part of the same host (query.cpp merges shards):
  // the union of the ports; a port both know keeps the first part's
  // application (which flow came last is not known). Bounded by kMax as add().
  void merge(const HostPorts& o) noexcept {
    for (uint32_t j = 0; j < o.n; j++) {
      const UsedPort& y = o.e[j];
      bool known = false;
      for (uint32_t i = 0; i < n && !known; i++) known = e[i].port == y.port && e[i].tcp == y.tcp && e[i].server == y.server;
      if (!known && n < kMax) e[n++] = y;
    }
  }
};

}  // namespace fg
