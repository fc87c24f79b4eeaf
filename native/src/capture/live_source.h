// ① Live capture through libpcap (TPACKET_V3 underneath on Linux). Packets are
// copied into a preallocated arena because libpcap reuses its buffers.
#pragma once
#include <pcap/pcap.h>

#include <atomic>
#include <memory>
#include <string>

#include "capture/source.h"

namespace fg {

struct LiveOptions {
  std::string iface;
  int snaplen = 65535;
  bool promisc = true;
  std::string bpf;
  int buffer_mb = 64;
  // Bridge inputs: only frames the interface received (not the ones sent
  // out of it, by the bridge itself), delivered at once, never waiting.
  bool inbound_only = false;
  bool immediate = false;
  // The caller polls (a bridge's two sides); otherwise next_batch() waits
  // for packets itself, 50 ms at most.
  bool nonblock = false;
  uint8_t port = 0;  // RawPacket::port of what this source captures
  // Several workers on one interface: each opens its own handle and joins
  // this AF_PACKET fanout group, which hashes packets over them symmetric in
  // the endpoints (both directions of a flow meet in one worker) after IP
  // reassembly (a fragmented datagram lands with its flow). -1: no fanout.
  int fanout_group = -1;
};

class LiveSource final : public PacketSource {
 public:
  // Throws std::runtime_error: unknown interface, no permission, bad filter.
  explicit LiveSource(const LiveOptions& o);
  ~LiveSource() override;
  LiveSource(const LiveSource&) = delete;
  LiveSource& operator=(const LiveSource&) = delete;

  size_t next_batch(RawPacket* out, size_t max) noexcept override;
  bool done() const noexcept override { return done_; }
  const std::string& error() const noexcept override { return error_; }
  void interrupt() noexcept override;
  uint64_t kernel_drops() noexcept override;
  bool is_live() const noexcept override { return true; }
  int selectable_fd() const noexcept { return pcap_ ? pcap_get_selectable_fd(pcap_) : -1; }
  // A fanout group id (16 bits) for the workers of one interface. Groups are
  // per network namespace and a socket of another process joining the same
  // id on the same interface would share its packets: the pid is mixed in,
  // and successive calls in this process never repeat (up to 65536 calls).
  static int new_fanout_group() noexcept;

 private:
  static void on_packet(u_char* user, const struct pcap_pkthdr* h, const u_char* bytes);

  pcap_t* pcap_ = nullptr;
  uint16_t linktype_ = 0;
  uint8_t port_ = 0;
  std::unique_ptr<uint8_t[]> arena_;
  size_t arena_size_ = 0;
  // Filled by on_packet during one pcap_dispatch call.
  RawPacket* batch_ = nullptr;
  size_t batch_n_ = 0, batch_max_ = 0, arena_used_ = 0;
  bool done_ = false;
  bool own_poll_ = false;  // next_batch() polls the non-blocking handle itself
  std::string error_;
  uint32_t last_ps_drop_ = 0;  // libpcap's 32-bit count at the previous reading
  uint64_t drops_ = 0;
};

// Both interfaces of a bridge in one worker: two non-blocking libpcap
// handles polled together, so both directions of a flow meet in one table.
class BridgeSource final : public PacketSource {
 public:
  BridgeSource(const LiveOptions& a, const LiveOptions& b);
  size_t next_batch(RawPacket* out, size_t max) noexcept override;
  bool done() const noexcept override { return a_.done() || b_.done(); }
  const std::string& error() const noexcept override { return a_.error().empty() ? b_.error() : a_.error(); }
  void interrupt() noexcept override;
  uint64_t kernel_drops() noexcept override { return a_.kernel_drops() + b_.kernel_drops(); }
  bool is_live() const noexcept override { return true; }

 private:
  LiveSource a_, b_;
  bool a_first_ = true;
  std::atomic<bool> stop_{false};
};

}  // namespace fg
