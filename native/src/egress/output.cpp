#include "egress/output.h"

#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "recorder/pcap_files.h"

namespace fg {
namespace {

// The recorder's file format (nanosecond pcap): one definition of the headers.
using PcapHeader = rec::FileHeader;
using PcapRecord = rec::RecordHeader;
constexpr uint32_t kPcapMagicNs = rec::kMagicNs;
constexpr uint32_t kSnaplen = rec::kSnaplen;

}  // namespace

// ---- pcap files

PcapFileOutput::PcapFileOutput(const std::string& path, uint64_t rotate_bytes)
    : path_(path), rotate_bytes_(rotate_bytes), buf_(new uint8_t[kBuf]) {
  name_ = "pcap:" + path;
  if (!open_file(path)) throw OutputOpenError("cannot create egress pcap '" + path + "': " + std::strerror(errno));
}

PcapFileOutput::~PcapFileOutput() { close(); }

bool PcapFileOutput::open_file(const std::string& path) noexcept {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  cur_path_ = path;
  file_bytes_ = file_records_ = 0;
  files++;
  return true;
}

void PcapFileOutput::flush() noexcept {
  if (fd_ < 0 || !buf_used_) return;
  size_t off = 0;
  while (off < buf_used_) {
    ssize_t w = ::write(fd_, buf_.get() + off, buf_used_ - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      last_error = std::string("write ") + cur_path_ + ": " + std::strerror(errno);
      drops += buf_records_;
      sent -= buf_records_;
      break;
    }
    off += size_t(w);
  }
  buf_used_ = buf_records_ = 0;
}

void PcapFileOutput::append(const void* p, size_t n) noexcept {
  if (buf_used_ + n > kBuf) flush();
  if (n > kBuf) {  // cannot happen for records ≤ snaplen, kept for safety
    if (::write(fd_, p, n) < 0) last_error = std::strerror(errno);
    return;
  }
  std::memcpy(buf_.get() + buf_used_, p, n);
  buf_used_ += n;
}

void PcapFileOutput::write_header(uint16_t linktype) noexcept {
  PcapHeader h{kPcapMagicNs, 2, 4, 0, 0, kSnaplen, linktype};
  append(&h, sizeof(h));
  file_bytes_ += sizeof(h);
  header_ = true;
  linktype_ = linktype;
}

void PcapFileOutput::rotate() noexcept {
  flush();
  ::close(fd_);
  fd_ = -1;
  if (!open_file(path_ + "." + std::to_string(files))) {
    last_error = "cannot create " + path_ + "." + std::to_string(files) + ": " + std::strerror(errno);
    return;
  }
  write_header(linktype_);
}

void PcapFileOutput::put(const RawPacket& raw, uint32_t caplen) noexcept {
  packets++;
  bytes += raw.wirelen;
  if (fd_ < 0 || (header_ && raw.linktype != linktype_)) {  // closed, or another link type than the file's
    drops++;
    return;
  }
  if (!header_) write_header(raw.linktype);
  if (caplen > kSnaplen) caplen = kSnaplen;
  const uint64_t rec = sizeof(PcapRecord) + caplen;
  if (rotate_bytes_ && file_records_ && file_bytes_ + rec > rotate_bytes_) {
    rotate();
    if (fd_ < 0) {
      drops++;
      return;
    }
  }
  PcapRecord r{uint32_t(raw.ts_ns / 1000000000ULL), uint32_t(raw.ts_ns % 1000000000ULL), caplen,
               raw.wirelen < caplen ? caplen : raw.wirelen};
  append(&r, sizeof(r));
  append(raw.data, caplen);
  file_bytes_ += rec;
  file_records_++;
  buf_records_++;
  sent++;
}

void PcapFileOutput::close() noexcept {
  if (fd_ < 0) return;
  if (!header_) write_header(1);  // nothing came: still a valid (empty) capture
  flush();
  ::close(fd_);
  fd_ = -1;
}

// ---- network interfaces

IfaceOutput::IfaceOutput(const std::string& iface) {
  name_ = "iface:" + iface;
  unsigned idx = if_nametoindex(iface.c_str());
  if (!idx) throw OutputOpenError("egress interface '" + iface + "': " + std::strerror(errno));
  // Protocol 0: this socket only sends, it receives nothing.
  fd_ = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw OutputOpenError("egress interface '" + iface + "': socket: " + std::strerror(errno) + " (needs root or CAP_NET_RAW)");
  struct sockaddr_ll sll;
  std::memset(&sll, 0, sizeof(sll));
  sll.sll_family = AF_PACKET;
  sll.sll_ifindex = int(idx);
  sll.sll_protocol = 0;
  if (::bind(fd_, reinterpret_cast<struct sockaddr*>(&sll), sizeof(sll)) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd_);
    throw OutputOpenError("egress interface '" + iface + "': bind: " + why);
  }
  int sndbuf = 4 << 20;
  setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  std::memset(msgs_, 0, sizeof(msgs_));
  files = 0;
}

IfaceOutput::~IfaceOutput() { close(); }

void IfaceOutput::put(const RawPacket& raw, uint32_t caplen) noexcept {
  packets++;
  bytes += raw.wirelen;
  if (fd_ < 0 || raw.linktype != 1) {  // only Ethernet frames can be sent as they are
    drops++;
    return;
  }
  if (n_ == kMax) end_batch();
  iov_[n_].iov_base = const_cast<uint8_t*>(raw.data);
  iov_[n_].iov_len = caplen;
  msgs_[n_].msg_hdr.msg_iov = &iov_[n_];
  msgs_[n_].msg_hdr.msg_iovlen = 1;
  n_++;
}

void IfaceOutput::end_batch() noexcept {
  size_t i = 0;
  while (i < n_) {
    int r = ::sendmmsg(fd_, msgs_ + i, unsigned(n_ - i), MSG_DONTWAIT);
    if (r > 0) {
      i += size_t(r);
      sent += uint64_t(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
      drops += n_ - i;  // the interface is slower than the input: never wait for it
      break;
    }
    last_error = std::strerror(errno);  // this frame was refused (too big for the MTU …)
    drops++;
    i++;
  }
  n_ = 0;
}

void IfaceOutput::close() noexcept {
  if (fd_ < 0) return;
  end_batch();
  ::close(fd_);
  fd_ = -1;
}

}  // namespace fg
