// ④ Classification: one dissector per protocol (dpi/protocols/<name>.cpp),
// each looking only at the first packets of a flow. A dissector answers
// no (never asked again on this flow), need-more, or a match. The dispatcher
// (classify.cpp) enforces each dissector's packet budget, gives up after
// nDPI's window of packets (dpi_window), then guesses by port as nDPI does.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

#include "decode/packet.h"
#include "dpi/meta.h"
#include "dpi/registry.h"
#include "dpi/risk.h"
#include "flow/flow.h"

namespace fg {

// nDPI as its reader runs it (ndpiReader, the source of its test results)
// dissects a TCP flow's packets while fewer than its packets_limit_per_flow
// (32) were processed, with or without payload, and a UDP flow's up to the
// reader's 24 packets and the one passing them; then it gives up.
constexpr uint32_t kTcpDpiWindow = 31, kUdpDpiWindow = 25;
inline uint32_t dpi_window(const Flow& f) { return f.key.proto == kProtoTcp ? kTcpDpiWindow : kUdpDpiWindow; }
// nDPI's client is key.hi (Flow::dpi_flip: nDPI's client may be the flow's server)
inline bool dpi_cli_is_hi(const Flow& f) { return f.cli_is_hi != f.dpi_flip; }
// The flow's ends as nDPI tells them apart: client and server, their ports.
struct DpiSides {
  const IpAddr& cli;
  const IpAddr& srv;
  uint16_t cport, sport;
};
inline DpiSides dpi_sides(const Flow& f) {
  return dpi_cli_is_hi(f) ? DpiSides{f.key.hi, f.key.lo, f.key.port_hi, f.key.port_lo} : DpiSides{f.key.lo, f.key.hi, f.key.port_lo, f.key.port_hi};
}
// nDPI's direction puts every packet of an IPv6 flow between equal ports
// (or without ports) on one side (ndpi_direction.h): its one-way risk then
// holds whatever came back (Classifier::risks).
inline bool ndpi_one_sided(const Flow& f) { return f.key.port_lo == f.key.port_hi && !f.key.lo.is_v4(); }  // ports first: rarely equal
// Payload packets a flow can have inspected at most (a dissector's budget
// when nDPI gives it the whole window).
constexpr uint8_t kMaxDpiPackets = 31;
constexpr size_t kMaxDissectors = 256;
// A flow is TCP or UDP for life, so its exclusion mask needs a bit only per
// dissector of its own L4: 192 per L4, 256 in all. Two mask words are
// FlowInfo::excluded, the third lives in host[1..9) (kMaskInHost), free
// while no name is set (FlowInfo grows by nothing: memory per flow holds).
constexpr size_t kMaxPerL4 = 192;
constexpr size_t kMaskInHost = 1;

// A metadata entry + 1 kept in 24 bits (FlowInfo::meta, FlowResult::meta).
inline uint32_t meta24(const uint8_t (&m)[3]) { return uint32_t(m[0]) | uint32_t(m[1]) << 8 | uint32_t(m[2]) << 16; }

// What the classifier keeps of a flow beyond its ids: during inspection the
// dissectors' state, afterwards what they learned. One pool entry per flow
// under inspection or with something to show (hash index kept in Flow::info).
struct alignas(64) FlowInfo {
  union {
    uint64_t excluded[2];   // while inspecting: dissectors of the flow's L4 that answered no
    struct {                // once a dissector matched
      union {
        DnsMeta dns;        // kind Dns
        uint8_t state[15];  // the dissector reading on (Match::more): its own, set at the match
      };
      uint8_t extra;        // the dissector still reading metadata (registry index)
    };
  };
  char host[40];            // SNI / Host / DNS query, NUL-terminated, ≤ 39 characters
  uint8_t confidence : 4;   // Confidence
  uint8_t kind : 4;         // MetaKind of what the flow's dissector extracts
  uint8_t meta[3];          // FlowMeta entry + 1 (24 bits), 0 = none
  uint32_t risks;           // kStoredRisks bits (dpi/risk.h)
  uint32_t meta_index() const { return meta24(meta); }
  void set_meta_index(uint32_t i) { meta[0] = uint8_t(i), meta[1] = uint8_t(i >> 8), meta[2] = uint8_t(i >> 16); }
};
static_assert(sizeof(FlowInfo) == 64);

// What the classifier keeps of a flow it is done with (no packet inspected
// or read any more: Classifier::settle): FlowInfo's results without the
// dissectors' state, the name interned — 24 bytes where FlowInfo and its
// second risk word take 68. Flow::info then holds kSettled | entry + 1.
struct FlowResult {
  uint32_t risks, risks2;   // FlowInfo::risks and the second word (its host-exception bits included)
  MetaStr host;             // the name (Classifier's names), 0 = none
  uint8_t meta[3];          // as FlowInfo's
  uint8_t confidence : 4, kind : 4;
  uint16_t qtype, answers;  // DnsMeta's, kind Dns
  uint8_t rcode, dns_flags;
  uint8_t ssh_unanswered;   // SSH's probing state as the flow settled (ssh_unanswered)
  uint8_t pad;
  void dns_from(const DnsMeta& d) { qtype = d.qtype, answers = d.answers, rcode = d.rcode, dns_flags = d.flags; }
  void dns_into(DnsMeta& d) const { d.qtype = qtype, d.answers = answers, d.rcode = rcode, d.flags = dns_flags; }
  // The results a FlowInfo and its second risk word hold, both ways (the
  // name and SSH's probing state are the caller's).
  void results_from(const FlowInfo& fi, uint32_t fi_risks2) {
    risks = fi.risks, risks2 = fi_risks2;
    std::memcpy(meta, fi.meta, sizeof(meta));
    confidence = fi.confidence, kind = fi.kind;
    if (MetaKind(fi.kind) == MetaKind::Dns) dns_from(fi.dns);
  }
  void results_into(FlowInfo& fi, uint32_t& fi_risks2) const {
    fi.risks = risks, fi_risks2 = risks2;
    std::memcpy(fi.meta, meta, sizeof(fi.meta));
    fi.confidence = confidence, fi.kind = kind;
    if (MetaKind(kind) == MetaKind::Dns) dns_into(fi.dns);
  }
};
static_assert(sizeof(FlowResult) == 24);
constexpr uint32_t kSettled = 0x80000000u;

enum class Verdict : uint8_t { No, NeedMore, Match };

struct Match {
  uint16_t master = 0, app = 0;
  // The dissector wants the flow's next packets after the match, for
  // metadata (certificate, response …): it is called again with
  // DpiCtx::extra set until it answers anything but NeedMore.
  bool more = false;
  bool cached = false;  // named from an earlier flow (nDPI's "DPI (cache)")
  bool by_ip = false;   // named from the flow's addresses by a dissector ("Match by IP")
  // nDPI names the flow before it sets the flow's name on this packet (its
  // host risk exceptions then see no name: Classifier::set)
  bool name_after = false;
};

class Classifier;

// Offsets into DpiCtx::scratch(), one range per dissector keeping state:
// host[9..40), after the third mask word.
constexpr size_t kScratchBytes = 31;
enum ScratchSlot : uint8_t {
  kScratchRx = 0,          // 5 bytes: stored flag, connection epoch and id folded to 32 bits
  kScratchOpenVpnTcp = 0,  //   TCP flows (RX is UDP only): OpenVPN's 5 bytes, as kScratchVpnUdp*
  kScratchEpicGames = 0,   //   UDP flows whose first datagram EpicGames keeps (bytes 10..33 zero, so
                           //   RX's type byte 20 is 0 and RX is ruled out on it, storing nothing): 5 bytes
  kScratchEaq = 0,         //   UDP flows whose first datagram is 16 bytes (EAQ's only size; RX wants 28
                           //   bytes or more, EpicGames 34 or more: both rule it out storing nothing): 3 bytes
  kScratchMumble = 0,      //   UDP flows whose first datagram is a 12-byte Mumble ping (RX, EpicGames and
                           //   EAQ rule it out storing nothing): the ping's ident folded, 4 bytes
  kScratchLine = 5,        // 4 bytes (UDP only; free on TCP): LineCall's counter base and count per nDPI direction
  kScratchSmtp = 5,        //   TCP flows (LineCall is UDP only): SMTP's marks (2 bytes) and AUTH / host flags
  kScratchZattooTcp = 8,   //   TCP flows (past OpenVPN's 5; LineCall's bytes are UDP only): Zattoo's stage (UDP Zattoo keeps none)
  kScratchTeamViewer = 9,  // 1 byte: stage
  kScratchUsenet = 10,     // bits 0-1: Usenet's direction of the greeting + 1; the byte's other bits, TCP
                           //   dissectors' own (Telnet's IAC packets 2-3, VNC's first banner's side + 1 4-5)
  kScratchVpnUdp = 10,     //   UDP flows (Usenet is TCP only): OpenVPN's packet counts or WireGuard's stage
  kScratchHalfLife2 = 11,  // 1 byte: direction of the request + 1
  kScratchImap = 11,       //   TCP flows (HalfLife2 is UDP only): IMAP's line count (bits 0-2), STARTTLS pending (3), user seen (4)
  kScratchBfcpUdp = 11,    //   UDP flows whose first datagram is a BFCP header (0x20..0x37 first, never
                           //   HalfLife2's 0xff, so it stores nothing): BFCP's fold, high byte
  kScratchRtp = 12,        // 6 bytes: RTP / RTCP stages, first sequence number per direction
  kScratchActivision = 18, // 1 byte: nDPI directions whose first packet was seen (bits 0-1)
  kScratchStarcraftUdp = 18, //   bits 2-4 of that byte: StarCraft's UDP size run (a UDP flow can be a
                             //   candidate of both, so the two keep to their own bits)
  kScratchZ3950 = 18,      //   TCP flows (Activision's and StarCraft's bits are UDP only): bits 0-3, Z39.50's
                           //   directions with payload and packets with six elements
  kScratchDnsCrypt = 18,   //   bits 5-6 of that byte: DNSCrypt's nDPI directions with a payload packet
  kScratchSoap = 18,       //   bit 7 of that byte: SOAP's XML declaration seen (SOAP is TCP only)
  kScratchMemcached = 19,  // 1 byte: command / reply lines seen
  kScratchTftp = 20,       // 5 bytes: last DATA and ACK block numbers, packets counted
  kScratchRtmpLen = 20,    //   TCP flows (TFTP is UDP only): RTMP's 16-bit byte count, 2 bytes
  kScratchBfcpTcp = 20,    //   or, TCP flows whose first payload is a BFCP header (0x20..0x37 first: RTMP, asked
                           //   before BFCP, ruled the flow out on it storing nothing): BFCP's fold, high byte
  kScratchTcpBits = 22,    //   TCP flows: one byte of TCP-only dissectors' bit fields, each
                           //   keeping to its own bits (Cassandra 0-3, ZeroMQ 4-6, Icecast 7)
  kScratchPop = 23,        //   TCP flows (TFTP is UDP only; RTMP's 2 and the bit byte end at 22): POP3's marks, replies, flags, 2 bytes
  kScratchIrc = 25,        // 2 bytes: command packets, ':' lines
  kScratchVpnUdpId0 = 25,  //   UDP flows (IRC is TCP only): the client's id folded (OpenVPN, WireGuard)
  kScratchRtmp = 27,       // 1 byte: RTMP's stage (nDPI direction of its first packet + 1) — or BFCP's
  kScratchBfcp = 27,       //   conference id's fold, low byte: a flow is never a candidate of both
  kScratchRadmin = 28,     // 1 byte: stage
  kScratchVpnUdpId1Lo = 28,  //   UDP flows (Radmin is TCP only): the server's id folded, low byte
  kScratchXbox = 29,       // 1 byte (UDP only): fixed-size packets on port 3074 seen
  kScratchNestLogSink = 29,  // 1 byte (TCP only): matching packets seen
  kScratchWow = 30,        // 1 byte: World of Warcraft's stage
  kScratchVpnUdpId1Hi = 30,  //   UDP flows (WoW is TCP only): the server's id folded, high byte
  kScratchEnd = 31,
};
// OpenVPN and WireGuard share the kScratchVpnUdp* bytes on UDP: a flow's
// first datagram rules one of them out before it writes anything (OpenVPN's
// opcode byte is 8 or more, WireGuard's message type 1 to 4), so a flow is
// never a candidate of both.

static_assert(kScratchEnd <= kScratchBytes);
static_assert(kMaskInHost + 8 + kScratchBytes <= sizeof(FlowInfo::host));

// What a dissector sees.
struct DpiCtx {
  const Packet& p;
  Bytes payload;
  bool from_client;
  Flow& flow;
  FlowInfo* info;   // may be null when the info pool is full
  uint16_t cli_port, srv_port;
  Classifier* clf;
  bool extra = false;  // called after the match, for metadata only
  // After the match only: a TCP segment nDPI calls a retransmission. nDPI
  // gives its reading-on functions (extra_packets_func) every packet; most
  // read these again, TLS's and HTTP's pass them by.
  bool retrans = false;
  void set_host(const char* s, size_t n) const;
  // The flow's metadata entry of that kind, allocated on first use; null
  // when the pool is full or the flow has another kind.
  FlowMeta* meta(MetaKind k) const;
  // Sets one of the entry's interned strings (Classifier::set_meta_str).
  void set_meta_str(MetaStr& ref, size_t cap, const char* s, size_t n) const;
  void set_alpn(MetaStr& ref, Bytes s) const;
  // A few bytes a dissector carries from one packet of the flow to the
  // next while it is under inspection (RX's connection ids, a stage
  // counter): the tail of FlowInfo::host, which holds no name until a
  // dissector matched (host[0] stays 0, so nothing reads them as one); null
  // when the pool is full or a name is already there. Each dissector keeps
  // to its own ScratchSlot.
  uint8_t* scratch(ScratchSlot slot) const { return scratch_of(info, slot); }
  static uint8_t* scratch_of(const FlowInfo* fi, ScratchSlot slot) {
    if (!fi || fi->host[0]) return nullptr;
    return reinterpret_cast<uint8_t*>(const_cast<char*>(fi->host)) + sizeof(fi->host) - kScratchBytes + slot;
  }
  // nDPI's HTTP content check (http.c, ndpi_validate_http_content) keeps the
  // entropy of a text/JSON/form body of 8 bytes or more as the flow's; the
  // classifier judges it at the end of the packet (Susp Entropy, for a flow
  // named plain HTTP, whose packet entropy nDPI does not compute). A no-op
  // in the reading after the match, where nDPI judges no entropy.
  void body_entropy(Bytes body) const;
  // Raises (clears) a risk kept by the classifier (dpi/risk.h: either word).
  void risk(Risk r) const;
  void unrisk(Risk r) const;
  bool has_risk(Risk r) const;
  // `proto` carrying a name (SNI, Host, DNS query): proto.App when the name
  // is a known application's, else proto alone, as nDPI reports it. True
  // when an unclaimed name looks machine-generated (risk SuspDgaDomain).
  bool match_named(Match& m, uint16_t proto, const char* name, size_t len) const;
};

using DissectFn = Verdict (*)(DpiCtx& c, Match& m);

// FTP's and POP3's reading after their match: the client's USER or PASS
// raises clear-text credentials and ends it, as does `starts_tls` (AUTH,
// STLS: what follows is TLS); anything else waits for the next command.
Verdict read_on_for_login(DpiCtx& c, const char* starts_tls);

// nDPI's checks of a User-Agent (http.c ndpi_check_user_agent): suspicious,
// exploit, crawler risks (dpi/protocols/http.cpp), also for gQUIC's UAID tag.
void http_user_agent_risks(DpiCtx& c, const char* ua, size_t n);

// nDPI's ndpi_seen_flow_beginning over TCP, from the flags each side sent:
// the client's SYN, the server's SYN+ACK, then a segment acknowledging
// without SYN (the client's SYN carries no ACK, so any ACK of the client's
// came after it; a server segment is judged by itself, the one being read).
// nDPI also checks their order; this does not.
inline bool seen_flow_beginning(const Flow& f, uint8_t packet_flags) {
  const uint8_t cli = f.tcp_flags[0], srv = f.tcp_flags[1];
  if (!(cli & kSyn) || (srv & (kSyn | kAck)) != (kSyn | kAck)) return false;
  return (cli & kAck) || (packet_flags & (kSyn | kAck)) == kAck;
}
inline bool seen_flow_beginning(const DpiCtx& c) { return seen_flow_beginning(c.flow, c.p.tcp_flags); }

enum L4Mask : uint8_t { kL4Tcp = 1, kL4Udp = 2, kL4Both = 3 };

struct Dissector {
  const char* name;
  uint16_t id;
  uint8_t l4;
  uint8_t max_packets;  // payload packets after which it gives up on a flow
  DissectFn fn;
};

// Registration at static initialisation; the list is complete before any
// engine starts.
bool register_dissector(const Dissector& d);
#define FG_DISSECTOR(name, ...) \
  static const bool fg_dissector_registered_##name = ::fg::register_dissector(::fg::Dissector __VA_ARGS__)

// Hostname → application (dpi/host_match.cpp), 0 when no pattern matches.
// `category`, when given, receives the category + 1 of the nDPI pattern
// that named it (0: none, or the operator's rule named it).
uint16_t app_by_host(const char* host, size_t len, uint16_t* category = nullptr);
// nDPI's built-in host risk exceptions (ndpi_add_domain_risk_exceptions)
// for a flow's lower-case name: the mask its risks are ANDed with (all ones
// when none applies).
uint64_t builtin_host_risk_mask(std::string_view name);
// What an accepted exception leaves (the only mask besides all and none).
constexpr uint64_t kHostExceptionMask = ~(uint64_t(1) << uint8_t(Risk::SuspDgaDomain) | uint64_t(1) << uint8_t(Risk::BinaryAppTransfer) |
                                          uint64_t(1) << uint8_t(Risk::NumericIpHost) | uint64_t(1) << uint8_t(Risk::MaliciousFingerprint));

// Address → application (dpi/ip_match.cpp): nDPI's per-application IP
// prefix lists, longest prefix first; 0 when no prefix holds it.
uint16_t app_by_ip(const IpAddr& ip);
// Address → risk id (dpi/ip_match.cpp): nDPI's ip_risk lists (anonymous
// subscribers, crawlers), longest prefix first; 0 when none holds it.
uint8_t risk_by_ip(const IpAddr& ip);

// nDPI's guessed_protocol_id_by_ip: the flow's server address first, then
// its client's (ndpi_guess_host_protocol_id).
inline uint16_t app_by_flow_ip(const Flow& f) {
  const DpiSides s = dpi_sides(f);
  const uint16_t srv = app_by_ip(s.srv);
  return srv ? srv : app_by_ip(s.cli);
}

// The flow's address application (app_by_flow_ip) when nDPI files it under
// the VPN category, else 0: OpenVPN and WireGuard name such a flow
// <protocol>.<that VPN> (their subclassification_by_ip, on by default).
inline uint16_t vpn_app_by_flow_ip(const Flow& f) {
  constexpr uint16_t kCategoryVpn = 2;
  const uint16_t app = app_by_flow_ip(f);
  const ProtoInfo* p = app ? proto_info(app) : nullptr;
  return p && p->category == kCategoryVpn ? app : 0;
}

// nDPI's WireGuard dissector makes WireGuard the flow's guessed protocol on
// a transport-data message (dpi/protocols/wireguard.cpp): from then on the
// dissector asked first and the give-up's guess. True when it did so for
// this UDP flow (read from its scratch byte while the flow is inspected).
bool wireguard_guessed(const Flow& f, const FlowInfo* fi);

// nDPI keeps one password for FTP, POP, IMAP and SMTP (ftp_imap_pop_smtp):
// POP3's dissector, reading "PASS" in any case on TCP while it is a
// candidate, sets what FTP_CONTROL's reply test reads (pop3.cpp).
bool pop3_password_seen(const DpiCtx& c);

}  // namespace fg
