// ③ One flow: a bidirectional conversation keyed by (VLAN, L4 protocol,
// the two endpoints in canonical order). [0] is client→server, [1] back.
#pragma once
#include <cstddef>
#include <cstdint>

#include "decode/packet.h"

namespace fg {

struct FlowKey {
  IpAddr lo, hi;           // lower endpoint first (address, then port)
  uint16_t port_lo, port_hi;
  uint16_t vlan;
  uint8_t proto;
  uint8_t pad = 0;
  bool operator==(const FlowKey& o) const {
    return std::memcmp(this, &o, sizeof(FlowKey)) == 0;
  }
};
static_assert(sizeof(FlowKey) == 40);

// Builds the canonical key; `swapped` says whether the packet's source is `hi`.
inline FlowKey make_flow_key(const Packet& p, uint16_t sport, uint16_t dport, bool& swapped) {
  FlowKey k;
  int c = std::memcmp(p.src.b, p.dst.b, 16);
  swapped = c > 0 || (c == 0 && sport > dport);
  if (!swapped) {
    k.lo = p.src, k.hi = p.dst, k.port_lo = sport, k.port_hi = dport;
  } else {
    k.lo = p.dst, k.hi = p.src, k.port_lo = dport, k.port_hi = sport;
  }
  k.vlan = p.vlan_id;
  k.proto = p.l4_proto;
  k.pad = 0;
  return k;
}

inline uint64_t hash_flow_key(const FlowKey& k) {
  uint64_t w[5];
  std::memcpy(w, &k, sizeof(w));
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (uint64_t v : w) h = mix64(h ^ v);
  return h;
}

// ntopng's TCP latencies of a flow (Flow::updateTcpFlags, Flow::updatePayload),
// kept beside the flow table by slot: times are µs after the flow's first
// packet + 1 (0: not seen); latencies in µs.
struct TcpTiming {
  uint32_t syn, synack;       // the first SYN, the first SYN|ACK after it
  uint32_t srv_lat, cli_lat;  // half of SYN → SYN|ACK, half of SYN|ACK → the handshake's ACK (0 above 5 s)
  uint32_t c2s, appl;         // the last client payload before the first server one; that gap
  bool twh_over() const { return cli_lat >> 31; }
  uint32_t client_latency() const { return cli_lat & 0x7fffffffu; }
};
static_assert(sizeof(TcpTiming) == 24);

enum class FlowEnd : uint8_t { Idle = 0, Lifetime = 1, Flushed = 2, Evicted = 3 };

struct alignas(64) Flow {
  // line 0: what a lookup compares, and the hosts to prefetch next
  FlowKey key;
  uint32_t hash;            // low half of hash_flow_key (the index's home slot)
  uint32_t score;           // its FlowScore entry + 1 (flow/scores.h); 0 = none
  uint32_t serial;          // ntopng's hash_id: unique per engine run
  uint32_t cli_host, srv_host;  // host table entries (kept alive by active flows)
  uint8_t cli_is_hi : 1;    // the client is key.hi
  // Copied from the hosts when the flow starts, so a packet need not read
  // their identity lines.
  uint8_t cli_local : 1, srv_local : 1, cli_bcast : 1, srv_bcast : 1;
  uint8_t acct_counted : 1;  // num_flows was counted for the current application
  // The periodic snapshot last taken (its period index mod 4): the sweep
  // visits a flow every few seconds, so two periods never pass unseen.
  uint8_t dump_epoch : 2;
  uint8_t ip_version : 3;   // 4 or 6
  // Payload retransmissions nDPI gave no dissector while the flow was
  // inspected (up to 3): dpi_packets counts them, as nDPI's packet_counter
  // does; dissected() does not, as a dissector's own stage counts only its calls
  uint8_t dpi_retrans : 2;
  // its TCP latencies are all taken (flow.h TcpTiming): later packets leave them alone
  uint8_t tcp_timed : 1;
  // nDPI's TCP connection issues (risk TcpIssues): a scan segment among the
  // packets nDPI dissects, or a refused / probing connection when it gave
  // up (Classifier::tcp_segment, give_up); kept here as such flows often
  // carry no payload and have no FlowInfo
  uint8_t tcp_issues : 1;
  // nDPI's client is this flow's server (ndpi_connection_tracking's rule
  // for a flow first seen without SYN differs from ntopng's check_swap):
  // the classifier reads the flow from nDPI's side (dpi_cli_is_hi)
  uint8_t dpi_flip : 1;
  union {
    struct {
      uint8_t type, code;
    } icmp;            // ICMP flows: the first message's type and code
    // TCP flows where nDPI's direction is one-sided (dpi/dpi.h
    // ndpi_one_sided): its sequence tracking (Pipeline::one_sided_skip)
    uint8_t ndpi_seq;
  };
  // packets either way so far
  uint32_t packets() const { return pkts[0] + pkts[1]; }
  // the payload packets given to dissectors so far (dpi_packets less the retransmissions)
  uint8_t dissected() const { return uint8_t(dpi_packets - dpi_retrans); }
  // what the API and records show as its ICMP type and code (0 for TCP, whose byte is ndpi_seq)
  uint8_t icmp_type() const { return key.proto == kProtoTcp ? 0 : icmp.type; }
  uint8_t icmp_code() const { return key.proto == kProtoTcp ? 0 : icmp.code; }
  // line 1: what every packet updates
  uint8_t tcp_flags[2];
  uint8_t dscp[2];          // last DSCP seen per direction
  uint8_t ttl[2];           // last TTL / hop limit seen per direction
  uint8_t dpi_packets;      // payload packets inspected so far
  uint8_t saw_syn : 1;
  // Scores (flow/scores.h): the flow has alerts scored, among them the
  // one-way risk's; a packet reads these bits rather than the side entry.
  // score_judged: a sweep step scored it with its one-way state (once: an
  // answered flow stays answered).
  uint8_t scored : 1, oneway_scored : 1, score_judged : 1;
  // The flow's last TCP segment (either way) carried payload: nDPI calls a
  // segment out of sequence a retransmission only after one that did.
  uint8_t tcp_last_payload : 1;
  // ntopng's TCP flow checks: a TCP payload byte was seen (either way: its
  // goodput is not 0), a zero window outside FIN/RST (Flow::updateTcpWindow)
  uint8_t tcp_data : 1, tcp_zero_win : 1;
  // Its classification's effects on its hosts were applied (services,
  // contacts, remote access: Pipeline::classified)
  uint8_t host_fx : 1;
  uint64_t first_ns, last_ns;
  uint64_t bytes[2];
  uint32_t pkts[2];
  // TCP sequence analysis per direction (ntopng's rules, see flow_table.cpp).
  uint32_t tcp_next[2], tcp_last[2];
  // line 2: rarely written
  uint32_t retr[2], ooo[2], lost[2];
  uint16_t l7_master, l7_app;  // application (the classification issue); 0 = unknown
  uint16_t l7_category;
  uint8_t dpi_state : 2;
  // its ports were noted on its local hosts' used ports (bit 0 the server's, bit 1 the client's; Pipeline::note_ports)
  uint8_t ports_noted : 2;
  // its client / server address is blacklisted (UserRules::blacklisted), as the flow began
  uint8_t cli_bl : 1, srv_bl : 1;
  // IEC 60870-5-104 state (Pipeline::iec_segment): 0 none yet, 1 an entry in
  // the IEC pool (found by the flow's slot), 2 the pool had no room
  uint8_t iec_state : 2;
  uint8_t tunnel : 3;       // Tunnel
  // The flow's first packet came from key.hi; a packet from the other side
  // came after nDPI was done with the flow (Pipeline::process, for nDPI's
  // one-way risk over IPv6 with equal ports: Classifier::risks)
  uint8_t first_hi : 1, back_after_dpi : 1;
  // nDPI stopped the flow's first payload packet before any dissector
  // (Classifier::user_port_first): a dissector that decides on the first
  // packet it reads reads the next one
  uint8_t dpi_first_skipped : 1;
  // a packet captured whole (not cut short of its IP length) was seen
  // client → server (bit 0) and back (bit 1): the packets nDPI's reader
  // counts (a cut one it drops), for nDPI's one-way risk
  uint8_t whole_dirs : 2;
  // Accounting steps (sweep, expiry, and each 1 GiB a direction carries)
  // credit hosts and interface with what the flow carried since the last
  // step: the low 32 bits already credited, deltas taken mod 2^32.
  uint32_t acct_bytes[2], acct_pkts[2];
  uint32_t thpt_ts;         // ms after first_ns of the last step
  float bps, pps;
  uint32_t info;            // the classifier's FlowInfo entry + 1; 0 = none
};
static_assert(offsetof(Flow, tcp_flags) == 64 && offsetof(Flow, retr) == 128, "hot fields in lines 0-1");
static_assert(sizeof(Flow) % 64 == 0);
static_assert(sizeof(Flow) <= 192, "keep a flow within three cache lines");

}  // namespace fg
