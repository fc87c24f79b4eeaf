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

 private:
  static void on_packet(u_char* user, const struct pcap_pkthdr* h, const u_char* bytes);

  pcap_t* pcap_ = nullptr;
  uint16_t linktype_ = 0;
  std::unique_ptr<uint8_t[]> arena_;
  size_t arena_size_ = 0;
  // Filled by on_packet during one pcap_dispatch call.
  RawPacket* batch_ = nullptr;
  size_t batch_n_ = 0, batch_max_ = 0, arena_used_ = 0;
  bool done_ = false;
  std::string error_;
};

}  // namespace fg
