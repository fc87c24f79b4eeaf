// ① Capture: every packet source (file playlist, live interface) hands out
// batches of RawPacket. Time is the packet's own timestamp; the engine clock
// is built from it, never from the wall clock.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace fg {

// libpcap DLT / LINKTYPE values we decode.
enum LinkType : uint16_t {
  kLinkNull = 0,        // BSD loopback: 4-byte AF in host order of the writer
  kLinkEthernet = 1,
  kLinkPpp = 9,         // PPP (RFC 1661), possibly with HDLC-like framing
  kLinkPppSerial = 50,  // PPP in HDLC-like framing (RFC 1662), or Cisco HDLC
  kLinkPppEther = 51,   // PPPoE session header, no Ethernet
  kLinkRaw = 101,       // raw IPv4/IPv6
  kLinkCiscoHdlc = 104,
  kLinkIeee80211 = 105, // 802.11 frames, no FCS
  kLinkRadiotap = 127,  // radiotap header + 802.11
  kLinkPpi = 192,       // Per-Packet Information header + an inner link type
  kLinkLoop = 108,      // OpenBSD loopback: 4-byte AF, network order
  kLinkSll = 113,
  kLinkIpv4 = 228,
  kLinkIpv6 = 229,
  kLinkSll2 = 276,
};

struct RawPacket {
  const uint8_t* data;
  uint32_t caplen;
  uint32_t wirelen;
  uint64_t ts_ns;       // packet time, ns since the epoch
  uint16_t linktype;
  uint8_t port = 0;     // which input of a bridge (0: A, 1: B); 0 otherwise
};

class PacketSource {
 public:
  virtual ~PacketSource() = default;
  // Up to `max` packets; pointers stay valid until the next call.
  // Returns 0 when nothing is available right now or at the end (see done()).
  virtual size_t next_batch(RawPacket* out, size_t max) noexcept = 0;
  virtual bool done() const noexcept = 0;
  // Why the source ended early (truncated file, interface gone); empty if clean.
  virtual const std::string& error() const noexcept = 0;
  // Interrupt a blocking wait (live); called from another thread.
  virtual void interrupt() noexcept {}
  virtual uint64_t kernel_drops() noexcept { return 0; }
  // Progress for files: bytes consumed / total over the whole playlist.
  virtual uint64_t bytes_done() const noexcept { return 0; }
  virtual uint64_t bytes_total() const noexcept { return 0; }
  virtual bool is_live() const noexcept { return false; }
};

}  // namespace fg
