#include "recorder/recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/uio.h>

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

}  // namespace

Recorder::Recorder(RecorderConfig c) : cfg_(std::move(c)) {
  if (cfg_.dir.empty()) throw std::runtime_error("recorder: no directory");
  if (!mkdirs(cfg_.dir)) throw std::runtime_error("recorder: cannot create '" + cfg_.dir + "': " + std::strerror(errno));
  if (access(cfg_.dir.c_str(), W_OK) != 0) throw std::runtime_error("recorder: cannot write to '" + cfg_.dir + "'");
  if (!cfg_.file_bytes) cfg_.file_bytes = std::clamp<uint64_t>(cfg_.max_bytes / 8, 1ULL << 20, 256ULL << 20);
  reserve_bytes_ = cfg_.file_bytes + cfg_.file_bytes / 16;  // a file's data and its largest index
  cfg_.producers = std::clamp<uint32_t>(cfg_.producers, 1, 64);  // the writer merges at most 64
  cap_ = 1u << 20;
  while (cap_ < cfg_.ring_bytes / cfg_.producers) cap_ <<= 1;
  mask_ = cap_ - 1;
  for (uint32_t k = 0; k < cfg_.producers; k++) {
    rings_.push_back(std::make_unique<Ring>());
    rings_.back()->buf.reset(new uint8_t[cap_]);
  }
  // An earlier run's files stay part of the recording (and of the quota).
  for (uint64_t s : rec::list_files(cfg_.dir)) {
    uint64_t b = file_size(rec::data_path(cfg_.dir, s)) + file_size(rec::index_path(cfg_.dir, s));
    files_.push_back({s, b});
    disk_total_ += b;
    next_seq_ = s + 1;
  }
  st_.files = files_.size();
  st_.disk_bytes = disk_total_;
  st_.ring_bytes = cap_ * rings_.size();
  thread_ = std::thread([this] { run(); });
}

Recorder::~Recorder() { stop(); }

void Recorder::stop() noexcept {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void Recorder::flush() noexcept {
  std::vector<uint64_t> h;
  for (auto& r : rings_) h.push_back(r->head.load(std::memory_order_acquire));
  for (size_t k = 0; k < rings_.size(); k++)
    while (rings_[k]->tail.load(std::memory_order_acquire) < h[k] && thread_.joinable() && !stop_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

uint64_t Recorder::pending() const noexcept {
  uint64_t n = 0;
  for (auto& r : rings_) n += r->head.load(std::memory_order_acquire) - r->tail.load(std::memory_order_relaxed);
  return n;
}

RecorderStats Recorder::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  RecorderStats s = st_;
  s.drops += drops_.load(std::memory_order_relaxed);
  s.ring_used = pending();
  return s;
}

// ---- producers (the engine's workers)

bool Recorder::reserve(Ring& r, size_t need, bool wait) noexcept {
  uint64_t h = r.head.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t t = r.tail.load(std::memory_order_acquire);
    const size_t pos = size_t(h & mask_), contig = size_t(cap_ - pos);
    const size_t waste = contig < need ? contig : 0;
    if (need + waste <= cap_ - (h - t)) {
      if (waste) {
        if (contig >= sizeof(RecordHeader)) {
          RecordHeader m{0, 0, kWrap, 0};
          std::memcpy(r.buf.get() + pos, &m, sizeof m);
        }
        r.head.store(h + waste, std::memory_order_release);
      }
      return true;
    }
    if (!wait || stop_.load(std::memory_order_relaxed)) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void Recorder::put(uint32_t k, const RawPacket* p, size_t n, bool wait) noexcept {
  Ring& rg = *rings_[k];
  uint64_t last = 0;
  for (size_t i = 0; i < n; i++) {
    const RawPacket& r = p[i];
    const uint32_t incl = std::min(r.caplen, rec::kSnaplen);
    const bool link = r.linktype != rg.prod_link;
    const size_t need = sizeof(RecordHeader) * (link ? 2 : 1) + incl;
    if (!reserve(rg, need, wait)) {
      drops_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    uint64_t h = rg.head.load(std::memory_order_relaxed);
    uint8_t* at = rg.buf.get() + (h & mask_);
    if (link) {
      RecordHeader m{r.linktype, 0, kLink, 0};
      std::memcpy(at, &m, sizeof m);
      at += sizeof m;
      rg.prod_link = r.linktype;
    }
    RecordHeader rh{uint32_t(r.ts_ns / 1000000000ULL), uint32_t(r.ts_ns % 1000000000ULL), incl, std::max(r.wirelen, incl)};
    std::memcpy(at, &rh, sizeof rh);
    std::memcpy(at + sizeof rh, r.data, incl);
    rg.head.store(h + need, std::memory_order_release);
    last = std::max(last, r.ts_ns);
  }
  // after the records: a writer that sees this clock sees them too
  if (last > rg.clock.load(std::memory_order_relaxed)) rg.clock.store(last, std::memory_order_release);
}

void Recorder::clock(uint32_t k, uint64_t ns) noexcept {
  Ring& rg = *rings_[k];
  if (ns > rg.clock.load(std::memory_order_relaxed)) rg.clock.store(ns, std::memory_order_release);
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
  if (fd_ < 0 || idx_fd_ < 0 || !rec::write_all(fd_, &fh, sizeof fh)) {
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
  if (!rec::write_all(idx_fd_, pending_idx_.data(), n)) fail("recorder: index write");
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
// meanwhile follow the data they point to. Then the rings' space is free.
void Recorder::write_span() noexcept {
  if (span_len_) {
    bool ok = fd_ >= 0;
    for (size_t i = 0; ok && i < iov_n_;) {
      const ssize_t w = ::writev(fd_, iov_ + i, int(iov_n_ - i));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok = false;
        break;
      }
      size_t left = size_t(w);
      while (i < iov_n_ && left >= iov_[i].iov_len) left -= iov_[i].iov_len, i++;
      if (left) iov_[i].iov_base = static_cast<uint8_t*>(iov_[i].iov_base) + left, iov_[i].iov_len -= left;
    }
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
  iov_n_ = span_len_ = span_records_ = 0;
  span_bytes_ = 0;
  for (auto& r : rings_) r->tail.store(r->read, std::memory_order_release);
}

bool Recorder::peek(Ring& r, uint64_t head, RecordHeader& rh) noexcept {
  while (r.read < head) {
    const size_t pos = size_t(r.read & mask_), contig = size_t(cap_ - pos);
    if (contig >= sizeof rh) std::memcpy(&rh, r.buf.get() + pos, sizeof rh);
    if (contig < sizeof rh || rh.incl == kWrap) {
      r.read += contig;
      continue;
    }
    if (rh.incl == kLink) {
      r.link = uint16_t(rh.sec);
      r.read += sizeof rh;
      continue;
    }
    return true;
  }
  return false;
}

void Recorder::consume(bool all) noexcept {
  const size_t nr = rings_.size();
  uint64_t head[64];
  for (size_t k = 0; k < nr; k++) head[k] = rings_[k]->head.load(std::memory_order_acquire);
  for (;;) {
    // the earliest next record over the rings
    size_t best = nr;
    uint64_t best_ts = 0;
    RecordHeader rh{}, h{};
    for (size_t k = 0; k < nr; k++) {
      if (!peek(*rings_[k], head[k], h)) continue;
      const uint64_t ts = uint64_t(h.sec) * 1000000000ULL + h.frac;
      if (best == nr || ts < best_ts) best = k, best_ts = ts, rh = h;
    }
    if (best == nr) break;
    // A ring with nothing now may still get an earlier packet, unless its
    // worker's clock is past this one (read after the clock: a record put
    // before it is seen, and taken into the merge).
    bool wait = false, more = false;
    for (size_t k = 0; !all && k < nr; k++) {
      Ring& o = *rings_[k];
      if (k == best || o.read < head[k]) continue;
      if (o.clock.load(std::memory_order_acquire) < best_ts) {
        wait = true;
        break;
      }
      const uint64_t nh = o.head.load(std::memory_order_acquire);
      if (nh != head[k]) head[k] = nh, more = true;
    }
    if (wait) break;
    if (more) continue;
    Ring& r = *rings_[best];
    const size_t pos = size_t(r.read & mask_);
    const size_t len = sizeof rh + rh.incl;
    const uint64_t off = file_off_ + span_len_;
    if (fd_ < 0 || file_link_ != r.link || off + len > cfg_.file_bytes || idx_bytes_ + (pending_idx_.size() + 1) * sizeof(IndexEntry) > cfg_.file_bytes / 16) {
      write_span();
      close_file();
      if (!open_file(r.link)) {
        std::lock_guard<std::mutex> g(mu_);
        st_.drops++;
        r.read += len;
        r.tail.store(r.read, std::memory_order_release);
        continue;
      }
    }
    const uint64_t at = file_off_ + span_len_;
    if (!block_open_ || rh.sec != block_sec_ || block_.len + len > rec::kBlockBytes) {
      close_block();
      block_ = {at, 0, best_ts, best_ts};
      block_sec_ = rh.sec;
      block_open_ = true;
    }
    block_.len += len;
    block_.min_ns = std::min(block_.min_ns, best_ts);
    block_.max_ns = std::max(block_.max_ns, best_ts);
    uint8_t* p = r.buf.get() + pos;
    if (iov_n_ && static_cast<uint8_t*>(iov_[iov_n_ - 1].iov_base) + iov_[iov_n_ - 1].iov_len == p) {
      iov_[iov_n_ - 1].iov_len += len;
    } else {
      if (iov_n_ == kIov) write_span();
      iov_[iov_n_++] = {p, len};
    }
    span_len_ += len;
    span_records_++;
    span_bytes_ += rh.incl;
    r.read += len;
    if (span_len_ >= kWriteChunk) write_span();
  }
  write_span();
}

void Recorder::run() noexcept {
  uint64_t last_write = 0;
  for (;;) {
    const uint64_t n = pending();
    const bool stopping = stop_.load();
    if (n == 0) {
      if (stopping) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    // A trickle waits a little to be written in fewer, larger writes.
    const uint64_t now = mono_ms();
    if (!stopping && n < (64u << 10) && now - last_write < 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    const uint64_t before = pending();
    consume(stopping);
    last_write = now;
    // records waiting for another worker's clock: let time pass
    if (!stopping && pending() == before) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  close_file();
}

}  // namespace fg
