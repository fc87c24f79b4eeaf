// ⑦ A broadcast / multicast repeater between interfaces (nEdge's
// forwarders): UDP to one group (and port) seen on a trusted interface is
// sent out of every other member, seen on a restricted one only out of the
// trusted ones — the frame as it came, with the outgoing interface's MAC as
// its source (so the IP sender and TTL stay: mDNS answers go back to the
// asker the same way). A thread of its own; one reused buffer.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace fg {

struct RepeaterConfig {
  uint32_t group = 0;  // IPv4 destination, host order; 0 = any multicast (224.0.0.0/4)
  uint16_t port = 0;   // UDP destination port; 0 = any
  std::vector<std::string> trusted, restricted;
};

class Repeater {
 public:
  // Opens a socket per member; throws std::runtime_error with the reason.
  explicit Repeater(RepeaterConfig c);
  ~Repeater();
  Repeater(const Repeater&) = delete;
  Repeater& operator=(const Repeater&) = delete;
  uint64_t repeated() const { return repeated_.load(); }

 private:
  struct Member {
    std::string name;
    int fd = -1;
    bool trusted = false;
    uint8_t mac[6] = {};
  };
  void loop();
  RepeaterConfig cfg_;
  std::vector<Member> members_;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> repeated_{0};
  std::thread thread_;
};

}  // namespace fg
