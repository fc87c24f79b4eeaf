#include "edge/vlan_bridge.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/if_arp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace fg {

static std::runtime_error sys_error(const std::string& what) { return std::runtime_error(what + ": " + std::strerror(errno)); }

VlanBridge::VlanBridge(const std::string& parent) : parent_(parent) {
  if (parent.empty() || parent.size() >= IFNAMSIZ) throw std::runtime_error("bad interface name");
  ifindex_ = int(if_nametoindex(parent.c_str()));
  if (!ifindex_) throw sys_error(parent);
  sock_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_ALL));
  if (sock_ < 0) throw sys_error("AF_PACKET socket");
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = ifindex_;
  int one = 1;
  if (bind(sock_, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) < 0 || setsockopt(sock_, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0) {
    int e = errno;
    close(sock_);
    errno = e;
    throw sys_error("bind to " + parent);
  }
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, parent.c_str(), IFNAMSIZ - 1);
  if (ioctl(sock_, SIOCGIFHWADDR, &ifr) == 0) std::memcpy(mac_, ifr.ifr_hwaddr.sa_data, 6);
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) < 0) {
    close(sock_);
    throw sys_error("pipe");
  }
  thread_ = std::thread([this] { loop(); });
}

VlanBridge::~VlanBridge() {
  stop_.store(true);
  (void)!write(wake_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
  for (auto& [vid, fd] : taps_) close(fd);
  close(sock_);
  close(wake_[0]);
  close(wake_[1]);
}

std::string VlanBridge::add(uint16_t vid) {
  const std::string name = parent_ + "." + std::to_string(vid);
  if (name.size() >= IFNAMSIZ) throw std::runtime_error("the VLAN's name " + name + " is too long for an interface");
  std::lock_guard<std::mutex> g(mu_);
  if (taps_.count(vid)) throw std::runtime_error(name + " exists");
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw sys_error("/dev/net/tun");
  ifreq ifr{};
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int e = errno;
    close(fd);
    errno = e;
    throw sys_error("TAP " + name);
  }
  // the VLAN answers with the parent's MAC, as a kernel VLAN device does
  ifreq hw{};
  std::strncpy(hw.ifr_name, name.c_str(), IFNAMSIZ - 1);
  hw.ifr_hwaddr.sa_family = ARPHRD_ETHER;
  std::memcpy(hw.ifr_hwaddr.sa_data, mac_, 6);
  (void)ioctl(sock_, SIOCSIFHWADDR, &hw);
  taps_[vid] = fd;
  (void)!write(wake_[1], "x", 1);
  return name;
}

bool VlanBridge::remove(uint16_t vid) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = taps_.find(vid);
  if (it == taps_.end()) return false;
  // the thread may be reading it: it re-reads the map on the wake, a read on a closed fd fails harmlessly
  close(it->second);
  taps_.erase(it);
  (void)!write(wake_[1], "x", 1);
  return true;
}

void VlanBridge::loop() {
  std::vector<uint8_t> buf(65536 + 4);
  std::vector<pollfd> fds;
  std::vector<uint16_t> vids;
  auto reload = [&] {
    std::lock_guard<std::mutex> g(mu_);
    fds.assign({{wake_[0], POLLIN, 0}, {sock_, POLLIN, 0}});
    vids.assign({0, 0});
    for (auto& [vid, fd] : taps_) fds.push_back({fd, POLLIN, 0}), vids.push_back(vid);
  };
  reload();
  while (!stop_.load()) {
    if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      char c[64];
      while (read(wake_[0], c, sizeof(c)) > 0) {
      }
      reload();
      continue;
    }
    if (fds[1].revents & POLLIN) {
      // parent → TAP: frames received with a VLAN tag
      for (int n = 0; n < 256; n++) {
        uint8_t* data = buf.data() + 4;  // room to put a tag the kernel took off back in
        iovec iov{data, buf.size() - 4};
        alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(tpacket_auxdata))];
        sockaddr_ll from{};
        msghdr m{};
        m.msg_name = &from, m.msg_namelen = sizeof(from);
        m.msg_iov = &iov, m.msg_iovlen = 1;
        m.msg_control = ctl, m.msg_controllen = sizeof(ctl);
        ssize_t len = recvmsg(sock_, &m, MSG_DONTWAIT);
        if (len <= 0) break;
        if (from.sll_pkttype == PACKET_OUTGOING || len < 14) continue;
        uint16_t vid = 0;
        bool tagged = false;
        for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
          if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA) continue;
          tpacket_auxdata aux;
          std::memcpy(&aux, CMSG_DATA(c), sizeof(aux));
          if (aux.tp_status & TP_STATUS_VLAN_VALID) vid = aux.tp_vlan_tci & 0x0fff, tagged = true;
        }
        size_t off = 0, flen = size_t(len);
        if (!tagged && flen >= 18 && data[12] == 0x81 && data[13] == 0x00) {
          vid = uint16_t(((data[14] << 8) | data[15]) & 0x0fff);
          // untag in place: the MACs move 4 bytes on
          std::memmove(data + 4, data, 12);
          off = 4, flen -= 4;
          tagged = true;
        }
        if (!tagged) continue;
        int fd = -1;
        for (size_t k = 2; k < fds.size(); k++)
          if (vids[k] == vid) fd = fds[k].fd;
        if (fd < 0) continue;
        if (write(fd, data + off, flen) == ssize_t(flen)) in_++;
        else dropped_++;
      }
    }
    for (size_t k = 2; k < fds.size(); k++) {
      if (!(fds[k].revents & POLLIN)) continue;
      // TAP → parent: tagged with the VLAN's id
      for (int n = 0; n < 256; n++) {
        uint8_t* data = buf.data();
        ssize_t len = read(fds[k].fd, data + 4, buf.size() - 4);
        if (len < 14) break;
        std::memmove(data, data + 4, 12);
        data[12] = 0x81, data[13] = 0x00;
        data[14] = uint8_t(vids[k] >> 8), data[15] = uint8_t(vids[k]);
        if (send(sock_, data, size_t(len) + 4, MSG_DONTWAIT) == len + 4) out_++;
        else dropped_++;
      }
    }
  }
}

}  // namespace fg
