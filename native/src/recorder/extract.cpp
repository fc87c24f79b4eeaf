#include "recorder/extract.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fg {
namespace {

using rec::FileHeader;
using rec::RecordHeader;

constexpr size_t kBuf = 2u << 20;             // holds the largest record and more
constexpr uint64_t kSliceInput = 32ULL << 20;  // input read per next() at most
constexpr size_t kSlicePackets = 200000;

bool read_header(int fd, FileHeader& h) {
  return ::pread(fd, &h, sizeof h, 0) == ssize_t(sizeof h) && (h.magic == rec::kMagicNs || h.magic == rec::kMagicUs);
}

}  // namespace

Extraction::Extraction(ExtractOptions o) : o_(std::move(o)) {
  link_ = o_.linktype;
  bool found = false;
  if (!o_.dir.empty()) {
    // The index blocks that overlap the window, and each file's tail that
    // has no index entry yet (the file being written, a crashed run's last).
    for (uint64_t seq : rec::list_files(o_.dir)) {
      int fd = ::open(rec::data_path(o_.dir, seq).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;  // deleted by the quota meanwhile
      FileHeader fh;
      const bool ok = read_header(fd, fh);
      const off_t size = ::lseek(fd, 0, SEEK_END);
      ::close(fd);
      if (!ok) continue;
      uint64_t indexed_end = sizeof(FileHeader);
      bool any = false;
      for (const rec::IndexEntry& e : rec::read_index(o_.dir, seq)) {
        indexed_end = std::max(indexed_end, e.off + e.len);
        if (e.max_ns < o_.begin_ns || e.min_ns >= o_.end_ns) continue;
        if (!spans_.empty() && spans_.back().seq == seq && spans_.back().end == e.off) spans_.back().end = e.off + e.len;
        else spans_.push_back({seq, e.off, e.off + e.len});
        any = true;
      }
      if (uint64_t(size) > indexed_end) spans_.push_back({seq, indexed_end, UINT64_MAX}), any = true;
      if (any && !found) link_ = uint16_t(fh.network), found = true;
    }
  } else {
    try {
      FileSource probe(o_.files);
      RawPacket p;
      if (probe.next_batch(&p, 1) == 1) link_ = p.linktype;
      src_ = std::make_unique<FileSource>(o_.files);
      // Pass k spans about [first + k * period, first + (k + 1) * period):
      // the passes that can hold the window, one more each side for
      // timestamps that go backwards.
      const uint64_t d = o_.loop_period_ns, f = o_.first_ns;
      if (!d) {
        passes_.push_back(0);
      } else {
        const uint64_t lo = o_.begin_ns > f + d ? (o_.begin_ns - f - d) / d : 0;
        const uint64_t hi = o_.end_ns > f ? (o_.end_ns - f) / d + 1 : 0;
        for (uint64_t k = lo ? lo - 1 : 0; k <= hi && k < std::max<uint64_t>(o_.passes, 1); k++) passes_.push_back(k);
      }
    } catch (const std::exception& e) {
      throw ExtractError("E_FILE_OPEN", e.what());
    }
  }
  if (!o_.filter.empty()) {
    pcap_t* dead = pcap_open_dead(link_, int(rec::kSnaplen));
    if (!dead) throw ExtractError("E_BPF", "libpcap: cannot open a compiler");
    if (pcap_compile(dead, &prog_, o_.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      std::string msg = pcap_geterr(dead);
      pcap_close(dead);
      throw ExtractError("E_BPF", msg);
    }
    pcap_close(dead);
    has_prog_ = true;
  }
  buf_.resize(o_.dir.empty() ? 0 : kBuf);
}

Extraction::~Extraction() {
  if (fd_ >= 0) ::close(fd_);
  if (has_prog_) pcap_freecode(&prog_);
}

void Extraction::take(std::vector<uint8_t>& out, const uint8_t* data, uint32_t incl, uint32_t orig, uint64_t ts_ns, uint16_t link) noexcept {
  scanned_++;
  if (ts_ns < o_.begin_ns || ts_ns >= o_.end_ns || link != link_) return;
  if (has_prog_) {
    pcap_pkthdr h{};
    h.caplen = incl, h.len = orig;
    if (!pcap_offline_filter(&prog_, &h, data)) return;
  }
  // As libpcap reads a nanosecond file at microsecond precision: truncated.
  RecordHeader rh{uint32_t(ts_ns / 1000000000ULL), uint32_t(ts_ns % 1000000000ULL / 1000), incl, orig};
  const size_t at = out.size();
  out.resize(at + sizeof rh + incl);
  std::memcpy(out.data() + at, &rh, sizeof rh);
  std::memcpy(out.data() + at + sizeof rh, data, incl);
  packets_++;
}

bool Extraction::next(std::vector<uint8_t>& out, size_t max_out) noexcept {
  if (!header_done_) {
    FileHeader h{rec::kMagicUs, 2, 4, 0, 0, rec::kSnaplen, link_};
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&h);
    out.insert(out.end(), p, p + sizeof h);
    header_done_ = true;
  }
  return o_.dir.empty() ? next_files(out, max_out) : next_recording(out, max_out);
}

bool Extraction::next_files(std::vector<uint8_t>& out, size_t max_out) noexcept {
  RawPacket b[64];
  size_t seen = 0;
  while (pass_ < passes_.size() && out.size() < max_out && seen < kSlicePackets) {
    const size_t n = src_->next_batch(b, 64);
    if (!n) {
      if (!src_->done()) continue;
      if (!src_->error().empty()) error_ = src_->error();
      if (++pass_ == passes_.size()) break;
      try {
        src_ = std::make_unique<FileSource>(o_.files);
      } catch (const std::exception& e) {
        error_ = e.what();
        pass_ = passes_.size();
      }
      continue;
    }
    const uint64_t shift = passes_[pass_] * o_.loop_period_ns;
    for (size_t i = 0; i < n; i++) take(out, b[i].data, b[i].caplen, b[i].wirelen, b[i].ts_ns + shift, b[i].linktype);
    seen += n;
  }
  return pass_ < passes_.size();
}

bool Extraction::open_span() noexcept {
  const Span& s = spans_[span_];
  if (fd_ < 0 || span_ == 0 || spans_[span_ - 1].seq != s.seq) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(rec::data_path(o_.dir, s.seq).c_str(), O_RDONLY | O_CLOEXEC);
    FileHeader fh;
    if (fd_ < 0 || !read_header(fd_, fh)) {
      error_ = "recording file " + rec::data_path(o_.dir, s.seq) + " is gone (quota)";
      if (fd_ >= 0) ::close(fd_), fd_ = -1;
      return false;
    }
    ns_ = fh.magic == rec::kMagicNs;
    span_link_ = uint16_t(fh.network);
  }
  buf_pos_ = buf_len_ = 0;
  file_pos_ = s.off;
  span_open_ = true;
  return true;
}

bool Extraction::next_recording(std::vector<uint8_t>& out, size_t max_out) noexcept {
  uint64_t read_now = 0;
  while (span_ < spans_.size()) {
    if (!span_open_ && !open_span()) {
      span_++;
      continue;
    }
    const Span& s = spans_[span_];
    for (;;) {
      if (out.size() >= max_out || read_now >= kSliceInput) return true;
      RecordHeader rh;
      const size_t have = buf_len_ - buf_pos_;
      bool whole = have >= sizeof rh;
      if (whole) {
        std::memcpy(&rh, buf_.data() + buf_pos_, sizeof rh);
        if (rh.incl > rec::kSnaplen || rh.incl > rh.orig) {
          error_ = "recording file " + rec::data_path(o_.dir, s.seq) + ": bad record";
          break;
        }
        whole = have >= sizeof rh + rh.incl;
      }
      if (!whole) {
        // Refill: keep the partial record, read on up to the span's end.
        if (file_pos_ >= s.end) break;
        std::memmove(buf_.data(), buf_.data() + buf_pos_, have);
        buf_pos_ = 0, buf_len_ = have;
        const uint64_t want = std::min<uint64_t>(buf_.size() - have, s.end - file_pos_);
        ssize_t r;
        do r = ::pread(fd_, buf_.data() + have, size_t(want), off_t(file_pos_));
        while (r < 0 && errno == EINTR);
        if (r <= 0) break;  // the end of the file (or a torn last record)
        buf_len_ += size_t(r), file_pos_ += uint64_t(r), read_now += uint64_t(r);
        continue;
      }
      const uint8_t* data = buf_.data() + buf_pos_ + sizeof rh;
      const uint64_t ts = uint64_t(rh.sec) * 1000000000ULL + (ns_ ? rh.frac : uint64_t(rh.frac) * 1000);
      take(out, data, rh.incl, rh.orig, ts, span_link_);
      buf_pos_ += sizeof rh + rh.incl;
    }
    span_open_ = false;
    span_++;
  }
  return false;
}

}  // namespace fg
