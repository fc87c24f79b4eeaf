// ⑦ 802.1Q VLAN subinterfaces in user space, for kernels built without
// 8021q (the gateway's add_vlan where `ip link add … type vlan` is refused):
// each VLAN is a TAP device named <parent>.<id> with the parent's MAC; a
// thread of its own moves frames between the parent (an AF_PACKET socket)
// and the TAPs — a frame tagged with a VLAN id (in the frame, or as the
// kernel's PACKET_AUXDATA when it took the tag off) goes untagged into that
// VLAN's TAP; what the kernel sends out of a TAP goes out of the parent with
// the tag. One reused buffer, no allocation per frame.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace fg {

class VlanBridge {
 public:
  // Opens the parent's socket; throws std::runtime_error with the reason.
  explicit VlanBridge(const std::string& parent);
  ~VlanBridge();
  VlanBridge(const VlanBridge&) = delete;
  VlanBridge& operator=(const VlanBridge&) = delete;

  // Creates the TAP <parent>.<vid> (the parent's MAC); throws std::runtime_error.
  std::string add(uint16_t vid);
  // Closes the TAP (the kernel removes the device); false when not there.
  bool remove(uint16_t vid);
  struct Counters {
    uint64_t in, out, dropped;  // frames parent → TAP, TAP → parent, not delivered
  };
  Counters counters() const { return {in_.load(), out_.load(), dropped_.load()}; }

 private:
  void loop();
  std::string parent_;
  int ifindex_ = 0;
  int sock_ = -1;
  int wake_[2] = {-1, -1};
  uint8_t mac_[6] = {};
  mutable std::mutex mu_;
  std::map<uint16_t, int> taps_;  // vid → TAP fd (the thread reads a copy at each wake)
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> in_{0}, out_{0}, dropped_{0};
  std::thread thread_;
};

}  // namespace fg
