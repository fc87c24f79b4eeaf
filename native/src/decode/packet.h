// ② What decoding learns about one packet. Filled layer by layer; plain data,
// reset per packet without allocation.
#pragma once
#include <cstdint>
#include <cstring>

#include "util/bytes.h"

namespace fg {

// An IPv4 address is stored v4-mapped (::ffff:a.b.c.d) so both families share
// one 16-byte key; `v6` says which one it really is.
struct IpAddr {
  alignas(8) uint8_t b[16];
  bool is_v4() const { return load_be32(b) == 0 && load_be32(b + 4) == 0 && load_be32(b + 8) == 0xffff; }
  uint32_t v4() const { return load_be32(b + 12); }
  // 0.0.0.0 or ::
  bool is_unspecified() const {
    static constexpr uint8_t kZero[16] = {};
    return is_v4() ? v4() == 0 : std::memcmp(b, kZero, 16) == 0;
  }
  void set_v4(const uint8_t* p) {
    std::memset(b, 0, 10);
    b[10] = b[11] = 0xff;
    std::memcpy(b + 12, p, 4);
  }
  void set_v6(const uint8_t* p) { std::memcpy(b, p, 16); }
  bool operator==(const IpAddr& o) const { return std::memcmp(b, o.b, 16) == 0; }
  bool operator<(const IpAddr& o) const { return std::memcmp(b, o.b, 16) < 0; }
};

enum class Tunnel : uint8_t { None = 0, Gre = 1, Erspan = 2, Vxlan = 3, GtpU = 4, IpInIp = 5, Capwap = 6, Tzsp = 7 };

enum L4Proto : uint8_t {
  kProtoIcmp = 1, kProtoIgmp = 2, kProtoIpip = 4, kProtoTcp = 6, kProtoUdp = 17,
  kProtoIpv6 = 41, kProtoGre = 47, kProtoEsp = 50, kProtoIcmpv6 = 58,
};

enum TcpFlag : uint8_t {
  kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10, kUrg = 0x20, kEce = 0x40, kCwr = 0x80,
};

constexpr int kMaxVlanDepth = 2;
constexpr int kMaxTunnelDepth = 3;

struct Packet {
  // capture
  const uint8_t* frame;  // start of the captured frame: offsets below are from here
  uint64_t ts_ns;
  uint32_t wirelen;
  uint32_t caplen;
  // L2 (the outermost Ethernet header, as seen on the wire)
  uint8_t src_mac[6], dst_mac[6];
  bool has_mac;
  uint8_t vlan_depth;
  uint16_t vlan[kMaxVlanDepth];  // outer first
  uint16_t vlan_id;              // the innermost tag: the flow key (as ntopng/nDPI)
  uint8_t mpls_depth;
  // L3 (of the innermost decoded IP header: tunnels are followed)
  uint8_t ip_version;  // 0 = not IP
  uint8_t l4_proto;
  uint8_t ttl;
  uint8_t dscp;
  IpAddr src, dst;
  uint32_t ip_len;       // bytes from the IP header on (total length)
  bool is_fragment;      // any fragment
  bool first_fragment;   // offset 0 (carries the L4 header)
  uint32_t frag_id;      // IPv4 id or IPv6 identification
  Tunnel tunnel;
  uint8_t tunnel_depth;
  // L4
  uint16_t sport, dport;
  uint8_t tcp_flags;
  uint32_t tcp_seq, tcp_ack;
  uint16_t tcp_win;
  uint8_t icmp_type, icmp_code;
  bool has_l4;            // ports are known (TCP/UDP header present)
  const uint8_t* payload;  // L4 payload (or IP payload for other protocols)
  uint32_t payload_len;   // captured payload bytes
  uint32_t l4_payload_wire;  // payload length per the headers (not truncated by snaplen)
  uint8_t arp_op;          // ARP request 1 / reply 2 (non-IP frames), else 0
  uint32_t arp_spa, arp_tpa;  // ARP sender / target IPv4 (host order)
  uint32_t l3_offset;      // offset of the innermost IP header in the frame
  uint32_t l4_offset;      // offset of the L4 header in the frame

  // Captured shorter than its headers say (a snap length): nDPI's reader
  // drops such a packet (ndpiReader's get_ndpi_flow_info)
  bool cut() const { return caplen < wirelen && payload_len < l4_payload_wire; }

  void reset(uint64_t ts, uint32_t wire, uint32_t cap) {
    std::memset(this, 0, sizeof(*this));
    ts_ns = ts, wirelen = wire, caplen = cap;
  }
};

}  // namespace fg
