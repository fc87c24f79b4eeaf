#include "edge/repeater.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fg {

Repeater::Repeater(RepeaterConfig c) : cfg_(std::move(c)) {
  auto open_member = [&](const std::string& name, bool trusted) {
    Member m;
    m.name = name, m.trusted = trusted;
    const int idx = int(if_nametoindex(name.c_str()));
    if (!idx) throw std::runtime_error(name + ": " + std::strerror(errno));
    m.fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_IP));
    if (m.fd < 0) throw std::runtime_error(std::string("AF_PACKET socket: ") + std::strerror(errno));
    members_.push_back(m);  // closed by the destructor from here on
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET, sll.sll_protocol = htons(ETH_P_IP), sll.sll_ifindex = idx;
    if (bind(m.fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) < 0) throw std::runtime_error("bind to " + name + ": " + std::strerror(errno));
    // multicast frames are delivered whatever groups the interface joined
    packet_mreq mr{};
    mr.mr_ifindex = idx, mr.mr_type = PACKET_MR_ALLMULTI;
    (void)setsockopt(m.fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
    if (ioctl(m.fd, SIOCGIFHWADDR, &ifr) == 0) std::memcpy(members_.back().mac, ifr.ifr_hwaddr.sa_data, 6);
  };
  try {
    for (const auto& n : cfg_.trusted) open_member(n, true);
    for (const auto& n : cfg_.restricted) open_member(n, false);
    if (members_.size() < 2) throw std::runtime_error("a repeater needs two interfaces");
    if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) < 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  } catch (...) {
    for (auto& m : members_) close(m.fd);
    throw;
  }
  thread_ = std::thread([this] { loop(); });
}

Repeater::~Repeater() {
  stop_.store(true);
  (void)!write(wake_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
  for (auto& m : members_) close(m.fd);
  close(wake_[0]);
  close(wake_[1]);
}

void Repeater::loop() {
  std::vector<pollfd> fds;
  fds.push_back({wake_[0], POLLIN, 0});
  for (auto& m : members_) fds.push_back({m.fd, POLLIN, 0});
  uint8_t buf[65536];
  while (!stop_.load()) {
    if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) break;
    if (fds[0].revents) break;
    for (size_t k = 1; k < fds.size(); k++) {
      if (!(fds[k].revents & POLLIN)) continue;
      const Member& from = members_[k - 1];
      for (int n = 0; n < 256; n++) {
        sockaddr_ll sll{};
        socklen_t sl = sizeof(sll);
        ssize_t len = recvfrom(from.fd, buf, sizeof(buf), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&sll), &sl);
        if (len < 0) break;
        if (sll.sll_pkttype == PACKET_OUTGOING || len < 14 + 20 + 8) continue;
        // what a member sent itself (ours, repeated) is never taken back
        bool ours = false;
        for (const auto& m : members_) ours |= std::memcmp(buf + 6, m.mac, 6) == 0;
        if (ours || buf[12] != 0x08 || buf[13] != 0x00) continue;
        const uint8_t* ip = buf + 14;
        const size_t ihl = size_t(ip[0] & 0x0f) * 4;
        if ((ip[0] >> 4) != 4 || ihl < 20 || size_t(len) < 14 + ihl + 8 || ip[9] != 17) continue;
        const uint32_t dst = (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
        if (cfg_.group ? dst != cfg_.group : (dst >> 28) != 0xe) continue;
        const uint16_t dport = uint16_t((ip[ihl + 2] << 8) | ip[ihl + 3]);
        if (cfg_.port && dport != cfg_.port) continue;
        for (const auto& to : members_) {
          if (&to == &from || (!from.trusted && !to.trusted)) continue;
          std::memcpy(buf + 6, to.mac, 6);
          if (send(to.fd, buf, size_t(len), MSG_DONTWAIT) == len) repeated_++;
        }
      }
    }
  }
}

}  // namespace fg
