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
};

}  // namespace fg
