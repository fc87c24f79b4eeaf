// ② Decoding: one function per layer, each checking length before it reads and
// counting a named reason when it gives up. decode_ethertype() and
// decode_ip_proto() are the two tables choosing the next layer; tunnels
// re-enter them under a depth limit.
#pragma once
#include <array>
#include <cstdint>

#include "decode/packet.h"
#include "util/bytes.h"

namespace fg {

// X(enum, counter name). One counter per reason: decode.<layer>.<reason>.
#define FG_DECODE_ERRORS(X)                                   \
  X(UnknownLinkType, "decode.link.unknown_type")              \
  X(EthTooShort, "decode.ethernet.too_short")                 \
  X(VlanTooShort, "decode.vlan.too_short")                    \
  X(VlanTooDeep, "decode.vlan.too_deep")                      \
  X(MplsTooShort, "decode.mpls.too_short")                    \
  X(MplsTooDeep, "decode.mpls.too_deep")                      \
  X(PppoeTooShort, "decode.pppoe.too_short")                  \
  X(PppTooShort, "decode.ppp.too_short")                      \
  X(SllTooShort, "decode.sll.too_short")                      \
  X(Sll2TooShort, "decode.sll2.too_short")                    \
  X(NullTooShort, "decode.null.too_short")                    \
  X(HdlcTooShort, "decode.hdlc.too_short")                    \
  X(Ipv4TooShort, "decode.ipv4.too_short")                    \
  X(Ipv4BadVersion, "decode.ipv4.bad_version")                \
  X(Ipv4BadHeaderLen, "decode.ipv4.bad_header_len")           \
  X(Ipv4BadTotalLen, "decode.ipv4.bad_total_len")             \
  X(Ipv6TooShort, "decode.ipv6.too_short")                    \
  X(Ipv6BadVersion, "decode.ipv6.bad_version")                \
  X(Ipv6ExtTooShort, "decode.ipv6.ext_too_short")             \
  X(Ipv6TooManyExt, "decode.ipv6.too_many_ext")               \
  X(TcpTooShort, "decode.tcp.too_short")                      \
  X(TcpBadHeaderLen, "decode.tcp.bad_header_len")             \
  X(UdpTooShort, "decode.udp.too_short")                      \
  X(UdpBadLen, "decode.udp.bad_len")                          \
  X(IcmpTooShort, "decode.icmp.too_short")                    \
  X(Icmpv6TooShort, "decode.icmpv6.too_short")                \
  X(GreTooShort, "decode.gre.too_short")                      \
  X(GreBadVersion, "decode.gre.bad_version")                  \
  X(ErspanTooShort, "decode.erspan.too_short")                \
  X(VxlanTooShort, "decode.vxlan.too_short")                  \
  X(GtpTooShort, "decode.gtp.too_short")                      \
  X(GtpBadHeader, "decode.gtp.bad_header")                    \
  X(CapwapTooShort, "decode.capwap.too_short")                \
  X(TzspTooShort, "decode.tzsp.too_short")                    \
  X(WifiTooShort, "decode.wifi.too_short")                    \
  X(RadiotapTooShort, "decode.radiotap.too_short")            \
  X(PpiTooShort, "decode.ppi.too_short")                      \
  X(TunnelTooDeep, "decode.tunnel.too_deep")

enum class DecodeError : uint8_t {
#define FG_X(e, n) e,
  FG_DECODE_ERRORS(FG_X)
#undef FG_X
  Count
};

constexpr size_t kDecodeErrorCount = size_t(DecodeError::Count);
const char* decode_error_name(DecodeError e);

// Non-error outcomes worth counting.
struct DecodeStats {
  std::array<uint64_t, kDecodeErrorCount> errors{};
  uint64_t non_ip = 0;        // ARP, LLDP, STP, PPPoE discovery …: valid, not IP
  uint64_t fragments = 0;
  uint64_t tunneled = 0;
  uint64_t failed = 0;         // the sum of errors[]: decode_frame compares it per packet
  bool fail(DecodeError e) {
    errors[size_t(e)]++, failed++;
    return false;
  }
  uint64_t total_errors() const { return failed; }
};

enum class DecodeResult : uint8_t { Ip, NonIp, Malformed };

// The entry point: frame bytes of a given link type into `p`.
DecodeResult decode_frame(uint16_t linktype, Bytes frame, Packet& p, DecodeStats& s);

// Layer functions (one file each). Return false when the packet is dropped
// (malformed, counted) or not IP (p.ip_version stays 0).
bool decode_ethernet(Bytes b, Packet& p, DecodeStats& s);
bool decode_ethertype(uint16_t type, Bytes b, Packet& p, DecodeStats& s);
bool decode_vlan(Bytes b, Packet& p, DecodeStats& s);
bool decode_arp(Bytes b, Packet& p, DecodeStats& s);
bool decode_mpls(Bytes b, Packet& p, DecodeStats& s);
bool decode_pppoe(Bytes b, Packet& p, DecodeStats& s);
bool decode_ppp(Bytes b, Packet& p, DecodeStats& s);
bool decode_sll(Bytes b, Packet& p, DecodeStats& s);
bool decode_sll2(Bytes b, Packet& p, DecodeStats& s);
bool decode_null(Bytes b, bool network_order, Packet& p, DecodeStats& s);
bool decode_hdlc(Bytes b, Packet& p, DecodeStats& s);
// PPP link types (9, 50): Cisco HDLC framing when the address byte says so
bool decode_ppp_link(Bytes b, Packet& p, DecodeStats& s);
bool decode_ieee80211(Bytes b, Packet& p, DecodeStats& s);
bool decode_radiotap(Bytes b, Packet& p, DecodeStats& s);
bool decode_ppi(Bytes b, Packet& p, DecodeStats& s);
// An unprotected 802.11 data frame's ethertype and what follows its LLC/SNAP
// header (CAPWAP carries such frames too; some APs swap the frame control bytes).
bool ieee80211_payload(Bytes f, bool swapped_fc, Packet& p, DecodeStats& s, DecodeError short_error, uint16_t& ethertype, Bytes& rest);
bool decode_raw_ip(Bytes b, Packet& p, DecodeStats& s);
bool decode_ipv4(Bytes b, Packet& p, DecodeStats& s);
bool decode_ipv6(Bytes b, Packet& p, DecodeStats& s);
bool decode_ip_proto(uint8_t proto, Bytes b, Packet& p, DecodeStats& s);
bool decode_tcp(Bytes b, Packet& p, DecodeStats& s);
bool decode_udp(Bytes b, Packet& p, DecodeStats& s);
bool decode_icmp(Bytes b, Packet& p, DecodeStats& s);
bool decode_icmpv6(Bytes b, Packet& p, DecodeStats& s);
bool decode_gre(Bytes b, Packet& p, DecodeStats& s);
bool decode_vxlan(Bytes b, Packet& p, DecodeStats& s);
bool decode_gtpu(Bytes b, Packet& p, DecodeStats& s);
bool decode_capwap(Bytes b, Packet& p, DecodeStats& s);
bool decode_tzsp(Bytes b, Packet& p, DecodeStats& s);

// Starts a tunnel's inner packet: keeps L2 and capture fields, clears L3/L4.
bool enter_tunnel(Tunnel t, Packet& p, DecodeStats& s);

// Decodes a tunnel's inner packet; if that is not IP (or is malformed, which
// is counted), the packet stays the outer one, a flow of the tunnel protocol.
template <class Inner>
bool decode_tunnel_or_outer(Inner inner, Bytes b, Packet& p, DecodeStats& s) {
  Packet outer = p;
  if (inner(b, p, s) && p.ip_version) return true;
  p = outer;
  p.payload = b.data(), p.payload_len = uint32_t(b.size());
  return true;
}

}  // namespace fg
