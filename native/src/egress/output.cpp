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

PcapFileSink::PcapFileSink(const std::string& path, uint64_t rotate_bytes) : path_(path), rotate_bytes_(rotate_bytes) {
  if (!open_file(path)) throw OutputOpenError("cannot create egress pcap '" + path + "': " + std::strerror(errno));
  writer_ = std::thread([this] { run(); });
}

PcapFileSink::~PcapFileSink() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  if (fd_ >= 0) ::close(fd_);
}

uint32_t PcapFileSink::add_lane() {
  std::lock_guard<std::mutex> g(mu_);
  free_.emplace_back();
  failed_.emplace_back();
  for (size_t i = 0; i < kChunksPerLane; i++) {
    chunks_.push_back(std::make_unique<Chunk>());
    chunks_.back()->data.reset(new uint8_t[kBuf]);
    chunks_.back()->lane = lanes_;
    free_.back().push_back(chunks_.back().get());
  }
  return lanes_++;
}

PcapFileSink::Chunk* PcapFileSink::take(uint32_t lane) noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  room_.wait(lk, [&] { return !free_[lane].empty(); });
  Chunk* c = free_[lane].front();
  free_[lane].pop_front();
  return c;
}

void PcapFileSink::submit(Chunk* c) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  full_.push_back(c);
  cv_.notify_one();
}

void PcapFileSink::wait_written() noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  room_.wait(lk, [&] { return full_.empty() && !writing_; });
}

void PcapFileSink::lane_closed() noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  if (++closed_lanes_ < lanes_) return;
  closing_ = true;  // the writer closes the file once the queue is empty
  cv_.notify_one();
  room_.wait(lk, [&] { return full_.empty() && !writing_ && !closing_; });
}

void PcapFileSink::take_failed(uint32_t lane, uint64_t& failed, uint64_t& other_link, std::string& error) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  Failed& f = failed_[lane];
  failed = f.failed, other_link = f.other_link, error = f.error;
  f = Failed{};
}

std::string PcapFileSink::current_path() const {
  std::lock_guard<std::mutex> g(mu_);
  return cur_path_;
}

uint32_t PcapFileSink::files() const {
  std::lock_guard<std::mutex> g(mu_);
  return files_;
}

bool PcapFileSink::open_file(const std::string& path) noexcept {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  std::lock_guard<std::mutex> g(mu_);  // (not held by the writer between chunks)
  cur_path_ = path;
  files_++;
  file_bytes_ = file_records_ = 0;
  header_ = false;
  return true;
}

void PcapFileSink::write_header(uint16_t linktype) noexcept {
  PcapHeader h{kPcapMagicNs, 2, 4, 0, 0, kSnaplen, linktype};
  header_ = true, linktype_ = linktype;
  file_bytes_ += sizeof(h);
  rec::write_all(fd_, &h, sizeof(h));  // failing, the records after it fail too, and say why
}

// The records [from, to) of `c`, `records` of them, in one write.
void PcapFileSink::write_run(const Chunk& c, size_t from, size_t to, uint64_t records) noexcept {
  if (rec::write_all(fd_, c.data.get() + from, to - from)) return;
  const std::string err = std::strerror(errno);
  std::lock_guard<std::mutex> g(mu_);
  failed_[c.lane].failed += records, failed_[c.lane].error = "write " + cur_path_ + ": " + err;
}

void PcapFileSink::run() noexcept {
  pthread_setname_np(pthread_self(), "fg-egress-pcap");
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || closing_ || !full_.empty(); });
    if (full_.empty()) {
      if (closing_) {
        // the last lane closed: a file nothing came to is still a valid (empty) capture
        lk.unlock();
        if (fd_ >= 0 && !header_) write_header(1);
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        lk.lock();
        closing_ = false;
        room_.notify_all();
        continue;
      }
      return;
    }
    Chunk* c = full_.front();
    full_.pop_front();
    writing_ = true;
    lk.unlock();
    // whole records: rotate between them, drop another link type's
    size_t off = 0, run = 0;
    uint64_t run_records = 0, other = 0, lost = 0;
    std::string lost_why;
    while (off < c->used) {
      PcapRecord r;
      std::memcpy(&r, c->data.get() + off, sizeof(r));
      const size_t len = sizeof(r) + r.incl;
      if (fd_ >= 0 && !header_) write_header(c->linktype);
      if (fd_ < 0 || c->linktype != linktype_) {
        if (run_records) write_run(*c, run, off, run_records);
        if (fd_ < 0) lost++;
        else other++;
        off += len, run = off, run_records = 0;
        continue;
      }
      if (rotate_bytes_ && file_records_ && file_bytes_ + len > rotate_bytes_) {
        if (run_records) write_run(*c, run, off, run_records);
        run = off, run_records = 0;
        ::close(fd_);
        const std::string next = path_ + "." + std::to_string(files());
        if (!open_file(next)) {
          lost_why = "cannot create " + next + ": " + std::strerror(errno);
          continue;  // this record and the rest are lost
        }
        write_header(linktype_);
      }
      file_bytes_ += len, file_records_++;
      off += len, run_records++;
    }
    if (run_records) write_run(*c, run, off, run_records);
    lk.lock();
    Failed& f = failed_[c->lane];
    f.other_link += other;
    if (lost) f.failed += lost, f.error = lost_why.empty() ? f.error : lost_why;
    c->used = 0, c->records = 0;
    free_[c->lane].push_back(c);
    writing_ = false;
    room_.notify_all();
  }
}

PcapFileOutput::PcapFileOutput(const std::string& path, uint64_t rotate_bytes)
    : PcapFileOutput(std::make_shared<PcapFileSink>(path, rotate_bytes)) {}

PcapFileOutput::PcapFileOutput(std::shared_ptr<PcapFileSink> sink) : sink_(std::move(sink)) {
  name_ = "pcap:" + sink_->path();
  lane_ = sink_->add_lane();
  cur_ = sink_->take(lane_);
}

PcapFileOutput::~PcapFileOutput() { close(); }

void PcapFileOutput::settle() noexcept {
  uint64_t failed, other;
  std::string why;
  sink_->take_failed(lane_, failed, other, why);
  if (!failed && !other) return;
  drops += failed + other, sent -= failed + other;
  if (failed) last_error = why;
}

void PcapFileOutput::submit() noexcept {
  sink_->submit(cur_);
  cur_ = sink_->take(lane_);
  settle();
}

void PcapFileOutput::put(const RawPacket& raw, uint32_t caplen) noexcept {
  packets++;
  bytes += raw.wirelen;
  if (closed_) {
    drops++;
    return;
  }
  if (caplen > kSnaplen) caplen = kSnaplen;
  const size_t rec = sizeof(PcapRecord) + caplen;
  // a chunk holds one link type; a record of snaplen always fits an empty one
  if (cur_->used && (cur_->linktype != raw.linktype || cur_->used + rec > PcapFileSink::kBuf)) submit();
  cur_->linktype = raw.linktype;
  PcapRecord r{uint32_t(raw.ts_ns / 1000000000ULL), uint32_t(raw.ts_ns % 1000000000ULL), caplen,
               raw.wirelen < caplen ? caplen : raw.wirelen};
  std::memcpy(cur_->data.get() + cur_->used, &r, sizeof(r));
  std::memcpy(cur_->data.get() + cur_->used + sizeof(r), raw.data, caplen);
  cur_->used += rec;
  cur_->records++;
  sent++;
}

void PcapFileOutput::flush() noexcept {
  if (closed_) return;
  if (cur_->used) submit();
  sink_->wait_written();
  settle();
}

void PcapFileOutput::close() noexcept {
  if (closed_) return;
  if (cur_->used) sink_->submit(cur_), cur_ = nullptr;
  closed_ = true;
  sink_->lane_closed();
  sink_->wait_written();
  settle();
}

// ---- network interfaces

IfaceOutput::IfaceOutput(const std::string& iface) : iface_(iface) {
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
