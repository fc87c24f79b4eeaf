#include "recorder/recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace fg {
namespace {

using rec::FileHeader;
using rec::IndexEntry;
using rec::RecordHeader;

// Ring markers in a record header's incl field (a real caplen is ≤ kSnaplen).
constexpr uint32_t kWrap = 0xffffffffu;  // the rest of the ring is unused: go on at its start
constexpr uint32_t kLink = 0xfffffffeu;  // the records after this one have link type `sec`
constexpr size_t kWriteChunk = 1u << 20;

uint64_t mono_ms() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

bool mkdirs(const std::string& dir) {
  std::string cur;
  size_t i = 0;
  while (i <= dir.size()) {
    size_t j = dir.find('/', i);
    if (j == std::string::npos) j = dir.size();
    cur = dir.substr(0, j);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
    i = j + 1;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

uint64_t file_size(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

bool write_all(int fd, const uint8_t* p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= size_t(w);
  }
  return true;
}

}  // namespace

Recorder::Recorder(RecorderConfig c) : cfg_(std::move(c)) {
  if (cfg_.dir.empty()) throw std::runtime_error("recorder: no directory");
  if (!mkdirs(cfg_.dir)) throw std::runtime_error("recorder: cannot create '" + cfg_.dir + "': " + std::strerror(errno));
  if (access(cfg_.dir.c_str(), W_OK) != 0) throw std::runtime_error("recorder: cannot write to '" + cfg_.dir + "'");
  if (!cfg_.file_bytes) cfg_.file_bytes = std::clamp<uint64_t>(cfg_.max_bytes / 8, 1ULL << 20, 256ULL << 20);
  reserve_bytes_ = cfg_.file_bytes + cfg_.file_bytes / 16;  // a file's data and its largest index
  cap_ = 1u << 20;
  while (cap_ < cfg_.ring_bytes) cap_ <<= 1;
  mask_ = cap_ - 1;
  ring_.reset(new uint8_t[cap_]);
  // An earlier run's files stay part of the recording (and of the quota).
  for (uint64_t s : rec::list_files(cfg_.dir)) {
    uint64_t b = file_size(rec::data_path(cfg_.dir, s)) + file_size(rec::index_path(cfg_.dir, s));
    files_.push_back({s, b});
    disk_total_ += b;
    next_seq_ = s + 1;
  }
  st_.files = files_.size();
  st_.disk_bytes = disk_total_;
  st_.ring_bytes = cap_;
  thread_ = std::thread([this] { run(); });
}

Recorder::~Recorder() { stop(); }

void Recorder::stop() noexcept {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void Recorder::flush() noexcept {
  const uint64_t h = head_.load(std::memory_order_acquire);
  while (tail_.load(std::memory_order_acquire) < h && thread_.joinable() && !stop_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

RecorderStats Recorder::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  RecorderStats s = st_;
  s.drops += drops_.load(std::memory_order_relaxed);
  s.ring_used = head_.load(std::memory_order_relaxed) - tail_.load(std::memory_order_relaxed);
  return s;
}

// ---- producer (the engine's worker)

bool Recorder::reserve(size_t need, bool wait) noexcept {
  uint64_t h = head_.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t t = tail_.load(std::memory_order_acquire);
    const size_t pos = size_t(h & mask_), contig = size_t(cap_ - pos);
    const size_t waste = contig < need ? contig : 0;
    if (need + waste <= cap_ - (h - t)) {
      if (waste) {
        if (contig >= sizeof(RecordHeader)) {
          RecordHeader m{0, 0, kWrap, 0};
          std::memcpy(ring_.get() + pos, &m, sizeof m);
        }
        head_.store(h + waste, std::memory_order_release);
      }
      return true;
    }
    if (!wait || stop_.load(std::memory_order_relaxed)) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void Recorder::put(const RawPacket* p, size_t n, bool wait) noexcept {
  for (size_t i = 0; i < n; i++) {
    const RawPacket& r = p[i];
    const uint32_t incl = std::min(r.caplen, rec::kSnaplen);
    const bool link = r.linktype != prod_link_;
    const size_t need = sizeof(RecordHeader) * (link ? 2 : 1) + incl;
    if (!reserve(need, wait)) {
      drops_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    uint64_t h = head_.load(std::memory_order_relaxed);
    uint8_t* at = ring_.get() + (h & mask_);
    if (link) {
      RecordHeader m{r.linktype, 0, kLink, 0};
      std::memcpy(at, &m, sizeof m);
      at += sizeof m;
      prod_link_ = r.linktype;
    }
    RecordHeader rh{uint32_t(r.ts_ns / 1000000000ULL), uint32_t(r.ts_ns % 1000000000ULL), incl, std::max(r.wirelen, incl)};
    std::memcpy(at, &rh, sizeof rh);
    std::memcpy(at + sizeof rh, r.data, incl);
    head_.store(h + need, std::memory_order_release);
  }
}

// ---- writer thread

void Recorder::fail(const std::string& what) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  st_.write_errors++;
  st_.last_error = what + ": " + std::strerror(errno);
}

bool Recorder::open_file(uint16_t linktype) noexcept {
  uint64_t total = disk_total_;
  uint64_t deleted = 0;
  while (!files_.empty() && total + reserve_bytes_ > cfg_.max_bytes) {
    const FileInfo old = files_.front();
    files_.pop_front();
    ::unlink(rec::data_path(cfg_.dir, old.seq).c_str());
    ::unlink(rec::index_path(cfg_.dir, old.seq).c_str());
    total -= old.bytes;
    deleted++;
  }
  seq_ = next_seq_++;
  const std::string dp = rec::data_path(cfg_.dir, seq_), ip = rec::index_path(cfg_.dir, seq_);
  fd_ = ::open(dp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ >= 0) idx_fd_ = ::open(ip.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  FileHeader fh{rec::kMagicNs, 2, 4, 0, 0, rec::kSnaplen, linktype};
  if (fd_ < 0 || idx_fd_ < 0 || !write_all(fd_, reinterpret_cast<const uint8_t*>(&fh), sizeof fh)) {
    fail("recorder: cannot create " + dp);
    if (fd_ >= 0) ::close(fd_);
    if (idx_fd_ >= 0) ::close(idx_fd_);
    ::unlink(dp.c_str());
    ::unlink(ip.c_str());
    fd_ = idx_fd_ = -1;
    disk_total_ = total;
    std::lock_guard<std::mutex> g(mu_);
    st_.files = files_.size();
    st_.disk_bytes = total;
    st_.files_deleted += deleted;
    return false;
  }
  file_link_ = linktype;
  file_off_ = sizeof fh;
  idx_bytes_ = 0;
  block_open_ = false;
  files_.push_back({seq_, file_off_});
  disk_total_ = total + file_off_;
  std::lock_guard<std::mutex> g(mu_);
  st_.files = files_.size();
  st_.disk_bytes = disk_total_;
  st_.files_deleted += deleted;
  return true;
}

void Recorder::close_block() noexcept {
  if (block_open_) pending_idx_.push_back(block_), block_open_ = false;
}

void Recorder::flush_index() noexcept {
  if (pending_idx_.empty() || idx_fd_ < 0) return pending_idx_.clear();
  const size_t n = pending_idx_.size() * sizeof(IndexEntry);
  if (!write_all(idx_fd_, reinterpret_cast<const uint8_t*>(pending_idx_.data()), n)) fail("recorder: index write");
  else idx_bytes_ += n;
  pending_idx_.clear();
  current_bytes();
}

// The open file's size (data and index) into the running total of the files kept.
void Recorder::current_bytes() noexcept {
  if (files_.empty() || fd_ < 0) return;  // no file open: the last one kept its final size
  disk_total_ += file_off_ + idx_bytes_ - files_.back().bytes;
  files_.back().bytes = file_off_ + idx_bytes_;
}

void Recorder::close_file() noexcept {
  if (fd_ < 0) return;
  close_block();
  flush_index();
  ::close(fd_);
  ::close(idx_fd_);
  fd_ = idx_fd_ = -1;
}

// One write of the records gathered; the index entries of blocks closed
// meanwhile follow the data they point to.
void Recorder::write_span() noexcept {
  if (span_len_) {
    bool ok = fd_ >= 0 && write_all(fd_, span_, span_len_);
    if (ok) file_off_ += span_len_;
    else fail("recorder: write " + rec::data_path(cfg_.dir, seq_));
    flush_index();
    current_bytes();
    {
      std::lock_guard<std::mutex> g(mu_);
      if (ok) st_.packets += span_records_, st_.bytes += span_bytes_;
      else st_.drops += span_records_;
      st_.disk_bytes = disk_total_;
    }
    if (!ok) close_file();  // a short write leaves a torn record: the next record starts a new file
  }
  span_ = nullptr;
  span_len_ = span_records_ = 0;
  span_bytes_ = 0;
}

void Recorder::consume(uint64_t t, uint64_t h) noexcept {
  uint8_t* ring = ring_.get();
  while (t < h) {
    const size_t pos = size_t(t & mask_), contig = size_t(cap_ - pos);
    RecordHeader rh;
    if (contig >= sizeof rh) std::memcpy(&rh, ring + pos, sizeof rh);
    if (contig < sizeof rh || rh.incl == kWrap) {
      write_span();
      t += contig;
      tail_.store(t, std::memory_order_release);
      continue;
    }
    if (rh.incl == kLink) {
      write_span();
      ring_link_ = uint16_t(rh.sec);
      t += sizeof rh;
      continue;
    }
    const size_t len = sizeof rh + rh.incl;
    const uint64_t ts = uint64_t(rh.sec) * 1000000000ULL + rh.frac;
    const uint64_t off = file_off_ + span_len_;
    if (fd_ < 0 || file_link_ != ring_link_ || off + len > cfg_.file_bytes || idx_bytes_ + (pending_idx_.size() + 1) * sizeof(IndexEntry) > cfg_.file_bytes / 16) {
      write_span();
      tail_.store(t, std::memory_order_release);
      close_file();
      if (!open_file(ring_link_)) {
        std::lock_guard<std::mutex> g(mu_);
        st_.drops++;
        t += len;
        continue;
      }
    }
    const uint64_t at = file_off_ + span_len_;
    if (!block_open_ || rh.sec != block_sec_ || block_.len + len > rec::kBlockBytes) {
      close_block();
      block_ = {at, 0, ts, ts};
      block_sec_ = rh.sec;
      block_open_ = true;
    }
    block_.len += len;
    block_.min_ns = std::min(block_.min_ns, ts);
    block_.max_ns = std::max(block_.max_ns, ts);
    if (span_len_ && span_ + span_len_ != ring + pos) write_span();
    if (!span_len_) span_ = ring + pos;
    span_len_ += len;
    span_records_++;
    span_bytes_ += rh.incl;
    t += len;
    if (span_len_ >= kWriteChunk) {
      write_span();
      tail_.store(t, std::memory_order_release);
    }
  }
  write_span();
  tail_.store(t, std::memory_order_release);
}

void Recorder::run() noexcept {
  uint64_t last_write = 0;
  for (;;) {
    const uint64_t t = tail_.load(std::memory_order_relaxed), h = head_.load(std::memory_order_acquire);
    const bool stopping = stop_.load();
    if (t == h) {
      if (stopping) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    // A trickle waits a little to be written in fewer, larger writes.
    const uint64_t now = mono_ms();
    if (!stopping && h - t < (64u << 10) && now - last_write < 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    consume(t, h);
    last_write = now;
  }
  close_file();
}

}  // namespace fg
