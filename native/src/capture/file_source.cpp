#include "capture/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "util/bytes.h"

namespace fg {
namespace {

constexpr uint32_t kPcapMagicUs = 0xa1b2c3d4;
constexpr uint32_t kPcapMagicNs = 0xa1b23c4d;
constexpr uint32_t kPcapMagicKuz = 0xa1b2cd34;  // Kuznetzov's patched libpcap: 8 extra bytes per record
constexpr uint32_t kNgShb = 0x0a0d0d0a;
constexpr uint32_t kNgByteOrder = 0x1a2b3c4d;
constexpr uint32_t kNgIdb = 1, kNgOpb = 2, kNgSpb = 3, kNgEpb = 6;
// Larger than any real frame (jumbo + headers); a bigger caplen means corruption.
constexpr uint32_t kMaxCaplen = 262144;

uint32_t bswap32(uint32_t v) { return __builtin_bswap32(v); }

// Larger than any record of either format the parsers accept (a pcapng block
// of kMaxCaplen + 4096 bytes, a pcap record header and its data): a buffer with
// this much ahead of the reader always holds the whole next record.
constexpr size_t kMaxRecord = kMaxCaplen + 4096 + 32;
constexpr size_t kBuffer = size_t(8) << 20;

// An open regular file and its size, or std::runtime_error naming it.
int open_file(const std::string& path, uint64_t& size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(path + ": not a regular file");
  }
  size = uint64_t(st.st_size);
  return fd;
}

// Reads up to n bytes at off; short only at the end of the file (or an error: -1).
ssize_t read_at(int fd, uint8_t* to, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, to + got, n - got, off_t(off + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    got += size_t(r);
  }
  return ssize_t(got);
}

void check_header(const std::string& path, const uint8_t* p, size_t n) {
  if (n < 4) throw std::runtime_error(path + ": not a capture file (only " + std::to_string(n) + " bytes)");
  uint32_t m = load_le32(p);
  if (m == kNgShb) {
    if (n < 28) throw std::runtime_error(path + ": pcapng section header truncated at byte offset 0");
    uint32_t bo = load_le32(p + 8);
    if (bo != kNgByteOrder && bo != bswap32(kNgByteOrder))
      throw std::runtime_error(path + ": pcapng section header has a bad byte-order magic at byte offset 8");
    return;
  }
  for (uint32_t k : {kPcapMagicUs, kPcapMagicNs, kPcapMagicKuz}) {
    if (m == k || m == bswap32(k)) {
      if (n < 24) throw std::runtime_error(path + ": pcap file header truncated (" + std::to_string(n) + " of 24 bytes)");
      return;
    }
  }
  throw std::runtime_error(path + ": not a pcap or pcapng file (unknown magic at byte offset 0)");
}

}  // namespace

void FileSource::probe(const std::string& path) {
  uint64_t size = 0;
  int fd = open_file(path, size);
  uint8_t head[28];
  ssize_t got = read_at(fd, head, size < sizeof head ? size_t(size) : sizeof head, 0);
  int e = errno;
  ::close(fd);
  if (got < 0) throw std::runtime_error(path + ": " + std::strerror(e));
  check_header(path, head, size_t(got));
}

FileSource::FileSource(std::vector<std::string> paths) : FileSource(std::move(paths), nullptr, 0) {}

FileSource::FileSource(std::vector<std::string> paths, std::shared_ptr<SharedChunks> shared, uint64_t pass)
    : paths_(std::move(paths)), shared_(std::move(shared)), pass_(pass) {
  ifaces_.reserve(64);
  for (const auto& p : paths_) {
    probe(p);
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) total_ += uint64_t(st.st_size);
  }
  // Untouched pages cost nothing: a small file uses only what it fills.
  if (!shared_) buf_ = new uint8_t[kBuffer];
  if (!open_next()) done_ = true;
}

size_t FileSource::shared_span() { return kBuffer; }

FileSource::~FileSource() {
  close_file();
  delete[] buf_;
}

void FileSource::close_file() noexcept {
  if (chunk_) shared_->release(chunk_), chunk_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  base_done_ += size_;
  fd_ = -1, map_ = nullptr, size_ = 0, len_ = 0, pos_ = 0, file_off_ = 0;
}

uint16_t FileSource::u16(const uint8_t* p) const noexcept {
  uint16_t v = load_le16(p);
  return swapped_ ? __builtin_bswap16(v) : v;
}
uint32_t FileSource::u32(const uint8_t* p) const noexcept {
  uint32_t v = load_le32(p);
  return swapped_ ? bswap32(v) : v;
}

void FileSource::fail(const char* what, size_t at) noexcept {
  if (error_.empty()) {
    error_ = paths_[next_path_ - 1] + ": " + what + " at byte offset " + std::to_string(file_off_ + at);
  }
}

// Moves what is left to the buffer's start and reads on up to the size the file
// had when opened. Called only with no packet of a batch pointing into the
// buffer. A file that ends early was truncated under the reader (copytruncate
// rotation): the records read so far count, and the replay ends with an error.
void FileSource::refill() noexcept {
  if (fd_ < 0 || file_end_) return;
  if (shared_) return refill_shared();
  std::memmove(buf_, buf_ + pos_, len_ - pos_);
  file_off_ += pos_, len_ -= pos_, pos_ = 0, prefetched_ = 0;
  uint64_t at = file_off_ + len_;
  size_t want = size_t(std::min<uint64_t>(kBuffer - len_, size_ - at));
  ssize_t got = read_at(fd_, buf_ + len_, want, at);
  const int err = got < 0 ? errno : 0;
  if (got > 0) len_ += size_t(got);
  if (!read_ok(err, got < 0 ? 0 : size_t(got), want)) return;
  file_end_ = file_off_ + len_ == size_;
}

// A read that failed or came back short ends the file with the reason.
bool FileSource::read_ok(int err, size_t got, size_t want) noexcept {
  if (err) {
    fail((std::string("read error (") + std::strerror(err) + ")").c_str(), len_);
  } else if (got < want) {
    struct stat st {};
    uint64_t now = ::fstat(fd_, &st) == 0 ? uint64_t(st.st_size) : 0;
    fail(("file truncated while being read (" + std::to_string(size_) + " bytes when opened, " + std::to_string(now) + " now)").c_str(), len_);
  } else {
    return true;
  }
  file_end_ = true;
  return false;
}

// The shared chunk holding the next record with kMaxRecord after it (chunks
// start every kBuffer - kMaxRecord bytes and are kBuffer long): errors and
// a file cut short tell as refill() tells them.
void FileSource::refill_shared() noexcept {
  const uint64_t stride = kBuffer - kMaxRecord, at = file_off_ + pos_, idx = at / stride, off = idx * stride;
  if (chunk_) shared_->release(chunk_), chunk_ = nullptr;
  const size_t want = size_t(std::min<uint64_t>(kBuffer, size_ - off));
  const uint64_t key = mix64(mix64(pass_ * 0x9E3779B97F4A7C15ull ^ next_path_) ^ size_) ^ idx;
  const int fd = fd_;
  chunk_ = shared_->acquire(key, want, [&](uint8_t* to, size_t at, size_t n) { return long(read_at(fd, to, n, off + at)); });
  map_ = chunk_->data, file_off_ = off, pos_ = size_t(at - off), len_ = chunk_->len, prefetched_ = 0;
  // a read that ended before the next record leaves nothing to parse (the
  // slot's bytes past it are another chunk's)
  if (len_ < pos_) len_ = pos_;
  if (!read_ok(chunk_->err, len_, want)) return;
  file_end_ = off + len_ == size_;
}

// Opens files until one yields a valid header; the header was probed already,
// but the file may have changed since, so errors are still handled here.
bool FileSource::open_next() noexcept {
  while (next_path_ < paths_.size()) {
    const std::string& path = paths_[next_path_++];
    try {
      fd_ = open_file(path, size_);
      if (shared_) size_ = shared_->agree_size(pass_, next_path_ - 1, size_);
    } catch (const std::exception& e) {
      if (error_.empty()) error_ = e.what();
      continue;
    }
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    map_ = buf_, len_ = 0, pos_ = 0, file_off_ = 0, prefetched_ = 0, file_end_ = size_ == 0;
    if (shared_ && file_end_) map_ = reinterpret_cast<const uint8_t*>(""), len_ = 0;  // an empty file: no chunk
    refill();
    try {
      check_header(path, map_, len_);
    } catch (const std::exception& e) {
      if (error_.empty()) error_ = e.what();
      close_file();
      continue;
    }
    ifaces_.clear();
    uint32_t magic = load_le32(map_);
    if (magic == kNgShb) {
      fmt_ = Format::Pcapng;
      return true;  // SHB parsed as the first block by read_pcapng
    }
    fmt_ = Format::Pcap;
    swapped_ = !(magic == kPcapMagicUs || magic == kPcapMagicNs || magic == kPcapMagicKuz);
    uint32_t host_magic = swapped_ ? bswap32(magic) : magic;
    nsec_ = host_magic == kPcapMagicNs;
    kuznetzov_ = host_magic == kPcapMagicKuz;
    // Upper bits of the link-type word carry FCS information (pcap spec §LinkType).
    linktype_ = uint16_t(u32(map_ + 20) & 0xffff);
    pos_ = 24;
    return true;
  }
  return false;
}

bool FileSource::read_pcap(RawPacket& p) noexcept {
  const size_t rec = kuznetzov_ ? 24 : 16;
  if (pos_ == len_) return false;
  if (len_ - pos_ < rec) {
    fail("truncated packet record header", pos_);
    return false;
  }
  const uint8_t* h = map_ + pos_;
  uint32_t sec = u32(h), frac = u32(h + 4), caplen = u32(h + 8), wirelen = u32(h + 12);
  if (caplen > kMaxCaplen) {
    fail(("corrupt packet record (captured length " + std::to_string(caplen) + ")").c_str(), pos_);
    return false;
  }
  if (len_ - pos_ - rec < caplen) {
    fail(("truncated packet record (needs " + std::to_string(caplen) + " bytes, " +
          std::to_string(len_ - pos_ - rec) + " left)").c_str(), pos_);
    return false;
  }
  p.data = h + rec;
  p.caplen = caplen;
  p.wirelen = wirelen < caplen ? caplen : wirelen;
  p.ts_ns = uint64_t(sec) * 1000000000ULL + (nsec_ ? frac : uint64_t(frac) * 1000);
  p.linktype = linktype_;
  pos_ += rec + caplen;
  return true;
}

bool FileSource::parse_shb(size_t at, uint32_t blen) noexcept {
  (void)blen;
  uint32_t bo = load_le32(map_ + at + 8);
  swapped_ = bo != kNgByteOrder;
  ifaces_.clear();  // interface ids restart with every section
  return true;
}

bool FileSource::parse_idb(size_t at, uint32_t blen) noexcept {
  if (blen < 20) return false;
  Iface ifc{};
  ifc.linktype = u16(map_ + at + 8);
  ifc.pow2 = false;
  ifc.res = 6;  // default resolution: microseconds
  size_t o = at + 16, end = at + blen - 4;
  while (o + 4 <= end) {
    uint16_t code = u16(map_ + o), len = u16(map_ + o + 2);
    if (code == 0) break;
    if (o + 4 + len > end) break;
    const uint8_t* v = map_ + o + 4;
    if (code == 9 && len >= 1) {  // if_tsresol
      ifc.pow2 = (v[0] & 0x80) != 0;
      ifc.res = v[0] & 0x7f;
    } else if (code == 14 && len >= 8) {  // if_tsoffset, seconds
      uint64_t off = load_le64(v);
      if (swapped_) off = __builtin_bswap64(off);
      ifc.ts_offset_s = int64_t(off);
    }
    o += 4 + ((len + 3u) & ~3u);
  }
  if (ifaces_.size() < 4096) ifaces_.push_back(ifc);
  return true;
}

uint64_t FileSource::ng_ts(const Iface& ifc, uint64_t raw) const noexcept {
  uint64_t ns;
  if (ifc.pow2) {
    uint8_t r = ifc.res > 63 ? 63 : ifc.res;
    uint64_t whole = raw >> r, part = raw & ((uint64_t(1) << r) - 1);
    ns = whole * 1000000000ULL + (r ? uint64_t((__uint128_t(part) * 1000000000ULL) >> r) : 0);
  } else if (ifc.res <= 9) {
    uint64_t mul = 1;
    for (int i = ifc.res; i < 9; i++) mul *= 10;
    ns = raw * mul;
  } else {
    uint64_t div = 1;
    for (int i = 9; i < ifc.res && i < 28; i++) div *= 10;
    ns = raw / div;
  }
  return ns + uint64_t(ifc.ts_offset_s) * 1000000000ULL;
}

bool FileSource::read_pcapng(RawPacket& p) noexcept {
  while (pos_ < len_) {
    if (!file_end_ && len_ - pos_ < kMaxRecord) {
      need_refill_ = true;  // after skipped blocks: the next may not be whole in the buffer yet
      return false;
    }
    if (len_ - pos_ < 12) {
      fail("truncated pcapng block header", pos_);
      return false;
    }
    const uint8_t* b = map_ + pos_;
    uint32_t type = load_le32(b);
    if (type == kNgShb) {
      uint32_t bo = load_le32(b + 8);
      if (bo != kNgByteOrder && bo != bswap32(kNgByteOrder)) {
        fail("bad pcapng byte-order magic", pos_ + 8);
        return false;
      }
      swapped_ = bo != kNgByteOrder;
    } else {
      type = u32(b);
    }
    uint32_t blen = u32(b + 4);
    if (blen < 12 || (blen & 3) != 0 || blen > kMaxCaplen + 4096) {
      fail(("corrupt pcapng block (length " + std::to_string(blen) + ")").c_str(), pos_);
      return false;
    }
    if (len_ - pos_ < blen) {
      fail(("truncated pcapng block (needs " + std::to_string(blen) + " bytes, " +
            std::to_string(len_ - pos_) + " left)").c_str(), pos_);
      return false;
    }
    if (u32(b + blen - 4) != blen) {
      fail("corrupt pcapng block (trailing length differs)", pos_);
      return false;
    }
    size_t at = pos_;
    pos_ += blen;
    switch (type) {
      case kNgShb:
        parse_shb(at, blen);
        break;
      case kNgIdb:
        parse_idb(at, blen);
        break;
      case kNgEpb:
      case kNgOpb: {
        if (blen < 32) { fail("corrupt pcapng packet block (too short)", at); return false; }
        uint32_t ifid = type == kNgEpb ? u32(b + 8) : u16(b + 8);
        uint32_t caplen = u32(b + 20), wirelen = u32(b + 24);
        if (ifid >= ifaces_.size()) { fail("pcapng packet block names an undeclared interface", at); return false; }
        if (caplen > blen - 32) { fail("corrupt pcapng packet block (captured length exceeds block)", at); return false; }
        const Iface& ifc = ifaces_[ifid];
        p.data = b + 28;
        p.caplen = caplen;
        p.wirelen = wirelen < caplen ? caplen : wirelen;
        p.ts_ns = last_ts_ = ng_ts(ifc, uint64_t(u32(b + 12)) << 32 | u32(b + 16));
        p.linktype = ifc.linktype;
        return true;
      }
      case kNgSpb: {
        if (ifaces_.empty()) { fail("pcapng simple packet block before any interface", at); return false; }
        if (blen < 16) { fail("corrupt pcapng simple packet block (too short)", at); return false; }
        uint32_t wirelen = u32(b + 8);
        uint32_t caplen = wirelen < blen - 16 ? wirelen : blen - 16;
        p.data = b + 12;
        p.caplen = caplen;
        p.wirelen = wirelen < caplen ? caplen : wirelen;
        p.ts_ns = last_ts_;  // SPBs carry no timestamp
        p.linktype = ifaces_[0].linktype;
        return true;
      }
      default:
        break;  // name resolution, statistics, custom blocks: not needed
    }
  }
  return false;
}

size_t FileSource::next_batch(RawPacket* out, size_t max) noexcept {
  size_t n = 0;
  while (n < max && !done_) {
    if (at_eof_) {
      // Only now, with no packet of the batch pointing into the buffer, close the file.
      // A bad file ends there; the playlist goes on and keeps the first error.
      at_eof_ = false;
      close_file();
      if (!open_next()) done_ = true;
      continue;
    }
    if (!file_end_ && len_ - pos_ < kMaxRecord) {
      if (n) break;  // the batch's packets point into the buffer: refill before the next one
      refill();
    }
    // Records are read in order: stream the bytes ahead of the reader into
    // the cache instead of stalling on every record header.
    constexpr size_t kAhead = 16384;
    size_t want = std::min(len_, pos_ + kAhead);
    if (prefetched_ < pos_) prefetched_ = pos_ & ~size_t(63);
    for (; prefetched_ < want; prefetched_ += 64) __builtin_prefetch(map_ + prefetched_);
    bool ok = fmt_ == Format::Pcap ? read_pcap(out[n]) : read_pcapng(out[n]);
    if (ok) {
      n++;
    } else if (need_refill_) {
      need_refill_ = false;
      if (n) break;
      refill();
    } else {
      at_eof_ = true;
      if (n) break;
    }
  }
  return n;
}

}  // namespace fg
