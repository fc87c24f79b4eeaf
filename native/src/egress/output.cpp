#include "egress/output.h"

#include <fcntl.h>
#include <pthread.h>
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

PcapFileOutput::PcapFileOutput(const std::string& path, uint64_t rotate_bytes) : path_(path), rotate_bytes_(rotate_bytes) {
  name_ = "pcap:" + path;
  for (Chunk& c : chunks_) c.data.reset(new uint8_t[kBuf]);
  for (size_t i = 1; i < kChunks; i++) free_.push_back(&chunks_[i]);
  cur_ = &chunks_[0];
  if (!open_file(path)) throw OutputOpenError("cannot create egress pcap '" + path + "': " + std::strerror(errno));
  cur_->fd = fd_;
  writer_ = std::thread([this] { run(); });
}

PcapFileOutput::~PcapFileOutput() {
  close();
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (writer_.joinable()) writer_.join();
}

bool PcapFileOutput::open_file(const std::string& path) noexcept {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  cur_path_ = path;
  file_bytes_ = file_records_ = 0;
  files++;
  return true;
}

void PcapFileOutput::run() noexcept {
  pthread_setname_np(pthread_self(), "fg-egress-pcap");
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || !full_.empty(); });
    if (full_.empty()) return;
    Chunk* c = full_.front();
    full_.pop_front();
    writing_ = true;
    lk.unlock();
    std::string err;
    size_t off = 0;
    while (c->fd >= 0 && off < c->used) {
      ssize_t w = ::write(c->fd, c->data.get() + off, c->used - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        err = std::strerror(w < 0 ? errno : ENOSPC);
        break;
      }
      off += size_t(w);
    }
    if (c->close_after && c->fd >= 0) ::close(c->fd);
    lk.lock();
    if (!err.empty()) failed_ += c->records, write_error_ = err;
    c->used = 0, c->records = 0, c->fd = -1, c->close_after = false;
    free_.push_back(c);
    writing_ = false;
    room_.notify_all();
  }
}

void PcapFileOutput::settle() noexcept {
  // under mu_: what the writer could not write is dropped, not sent
  const uint64_t n = failed_ - failed_seen_;
  if (!n) return;
  failed_seen_ = failed_;
  drops += n, sent -= n;
  last_error = "write " + cur_path_ + ": " + write_error_;
}

void PcapFileOutput::submit(bool close_file) noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  cur_->close_after = close_file;
  full_.push_back(cur_);
  cv_.notify_one();
  room_.wait(lk, [&] { return !free_.empty(); });
  cur_ = free_.front();
  free_.pop_front();
  settle();
}

void PcapFileOutput::flush() noexcept {
  if (fd_ < 0) return;
  if (cur_->used) {
    submit(false);
    cur_->fd = fd_;
  }
  std::unique_lock<std::mutex> lk(mu_);
  room_.wait(lk, [&] { return full_.empty() && !writing_; });
  settle();
}

void PcapFileOutput::append(const void* p, size_t n) noexcept {
  if (cur_->used + n > kBuf) {
    submit(false);
    cur_->fd = fd_;
  }
  std::memcpy(cur_->data.get() + cur_->used, p, n);  // n ≤ a record of snaplen: always fits an empty chunk
  cur_->used += n;
}

void PcapFileOutput::write_header(uint16_t linktype) noexcept {
  PcapHeader h{kPcapMagicNs, 2, 4, 0, 0, kSnaplen, linktype};
  append(&h, sizeof(h));
  file_bytes_ += sizeof(h);
  header_ = true;
  linktype_ = linktype;
}

void PcapFileOutput::rotate() noexcept {
  submit(true);  // the writer closes this file after its last chunk
  fd_ = -1;
  if (!open_file(path_ + "." + std::to_string(files))) {
    last_error = "cannot create " + path_ + "." + std::to_string(files) + ": " + std::strerror(errno);
    return;
  }
  cur_->fd = fd_;
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
  cur_->records++;
  file_bytes_ += rec;
  file_records_++;
  sent++;
}

void PcapFileOutput::close() noexcept {
  if (fd_ < 0) return;
  if (!header_) write_header(1);  // nothing came: still a valid (empty) capture
  submit(true);
  fd_ = -1;
  std::unique_lock<std::mutex> lk(mu_);
  room_.wait(lk, [&] { return full_.empty() && !writing_; });
  settle();
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
