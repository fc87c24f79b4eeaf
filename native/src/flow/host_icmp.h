// ③ ntopng's per-host ICMP statistics (LocalHostStats' ICMPstats, host data
// ICMPv4 / ICMPv6): per (type, code), the packets a local host sent and
// received and the last peer each way. Counted per packet under the
// packet's own type and code (ntopng credits a flow update's packets to the
// last type seen each way). A local host gets a pool entry at its first ICMP
// packet; kMax pairs each, those past it counted apart, not kept.
#pragma once
#include <cstdint>

#include "decode/packet.h"

namespace fg {

struct IcmpPair {
  uint8_t v6, type, code, pad;
  uint16_t sent_vlan, rcvd_vlan;
  uint32_t sent, rcvd;
  IpAddr sent_peer, rcvd_peer;  // the last host it sent to / received from (valid when the count is not 0)
};

struct HostIcmp {
  static constexpr uint32_t kMax = 8;
  uint32_t n;
  IcmpPair e[kMax];

  // false: a new pair and no room
  bool add(bool v6, uint8_t type, uint8_t code, bool sent, const IpAddr& peer, uint16_t vlan) noexcept {
    IcmpPair* x = nullptr;
    for (uint32_t i = 0; i < n && !x; i++)
      if (e[i].v6 == v6 && e[i].type == type && e[i].code == code) x = &e[i];
    if (!x) {
      if (n == kMax) return false;
      x = &e[n++];
      *x = IcmpPair{};
      x->v6 = v6, x->type = type, x->code = code;
    }
    if (sent) x->sent++, x->sent_peer = peer, x->sent_vlan = vlan;
    else x->rcvd++, x->rcvd_peer = peer, x->rcvd_vlan = vlan;
    return true;
  }

  // Adds another worker's part of the same host (query.cpp merges shards):
  // counts summed per (type, code). Which part saw the last peer is not
  // kept, so the first part's peer stays (a part without one takes the
  // other's). Pairs past kMax are dropped, as add() drops them.
  void merge(const HostIcmp& o) noexcept {
    for (uint32_t j = 0; j < o.n; j++) {
      const IcmpPair& y = o.e[j];
      IcmpPair* x = nullptr;
      for (uint32_t i = 0; i < n && !x; i++)
        if (e[i].v6 == y.v6 && e[i].type == y.type && e[i].code == y.code) x = &e[i];
      if (!x) {
        if (n < kMax) e[n++] = y;
        continue;
      }
      if (y.sent && !x->sent) x->sent_peer = y.sent_peer, x->sent_vlan = y.sent_vlan;
      if (y.rcvd && !x->rcvd) x->rcvd_peer = y.rcvd_peer, x->rcvd_vlan = y.rcvd_vlan;
      x->sent += y.sent, x->rcvd += y.rcvd;
    }
  }
};

}  // namespace fg
