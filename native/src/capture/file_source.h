// ① Capture files: classic pcap (µs/ns, either byte order, Kuznetzov variant)
// and pcapng (any number of sections and interfaces, per-interface link type
// and timestamp resolution). Files are read in large chunks into one buffer and
// packets handed out in place (valid until the next batch).
//
// Not libpcap's reader: it refuses pcapng files whose interfaces have different
// link types and cannot say at which byte offset a file went bad; both are
// requirements here. Not mmap: a file truncated while it is replayed (log
// rotation with copytruncate) would kill the process with SIGBUS; a read
// comes back short instead, and the replay reports it.
#pragma once
#include <string>
#include <vector>

#include "capture/shared_chunks.h"
#include "capture/source.h"

namespace fg {

class FileSource final : public PacketSource {
 public:
  // Opens and validates the first file's header; throws std::runtime_error
  // with the file name and reason when a file cannot be read at all.
  explicit FileSource(std::vector<std::string> paths);
  // Several workers reading one playlist: chunks read once for all
  // (shared_chunks.h); `pass` tells a looped playlist's passes apart.
  FileSource(std::vector<std::string> paths, std::shared_ptr<SharedChunks> shared, uint64_t pass);
  // Chunk geometry of a SharedChunks for FileSources: bytes per chunk.
  static size_t shared_span();
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  size_t next_batch(RawPacket* out, size_t max) noexcept override;
  bool done() const noexcept override { return done_; }
  const std::string& error() const noexcept override { return error_; }
  uint64_t bytes_done() const noexcept override { return base_done_ + file_off_ + pos_; }
  uint64_t bytes_total() const noexcept override { return total_; }

  // Checks that a file opens and has a known header; used before starting.
  static void probe(const std::string& path);

 private:
  enum class Format { Pcap, Pcapng };
  struct Iface { uint16_t linktype; uint64_t ts_div_num; uint64_t ts_mul; int64_t ts_offset_s; bool pow2; uint8_t res; };

  bool open_next() noexcept;
  void refill() noexcept;
  void close_file() noexcept;
  bool read_pcap(RawPacket& p) noexcept;
  bool read_pcapng(RawPacket& p) noexcept;
  bool parse_shb(size_t at, uint32_t blen) noexcept;
  bool parse_idb(size_t at, uint32_t blen) noexcept;
  uint64_t ng_ts(const Iface& ifc, uint64_t raw) const noexcept;
  void fail(const char* what, size_t at) noexcept;  // at: a position in the buffer
  uint16_t u16(const uint8_t* p) const noexcept;
  uint32_t u32(const uint8_t* p) const noexcept;

  std::vector<std::string> paths_;
  size_t next_path_ = 0;
  int fd_ = -1;
  uint8_t* buf_ = nullptr;   // kBuffer bytes: [0, len_) holds the file from file_off_
  const uint8_t* map_ = nullptr;  // == buf_ while a file is open (or the shared chunk)
  std::shared_ptr<SharedChunks> shared_;
  const SharedChunks::Chunk* chunk_ = nullptr;  // the shared chunk held
  uint64_t pass_ = 0;
  void refill_shared() noexcept;
  bool read_ok(int err, size_t got, size_t want) noexcept;
  size_t len_ = 0;
  size_t pos_ = 0;           // the next record, in the buffer
  uint64_t file_off_ = 0;    // file offset of buf_[0]
  uint64_t size_ = 0;        // file size when opened (what is read)
  bool file_end_ = false;    // the buffer holds the rest of the file
  bool need_refill_ = false; // the pcapng reader stopped short of a record not yet buffered
  size_t prefetched_ = 0;
  uint64_t base_done_ = 0;
  uint64_t total_ = 0;
  Format fmt_ = Format::Pcap;
  bool swapped_ = false;
  bool nsec_ = false;
  bool kuznetzov_ = false;
  uint16_t linktype_ = 0;
  std::vector<Iface> ifaces_;
  uint64_t last_ts_ = 0;
  bool at_eof_ = false;
  bool done_ = false;
  std::string error_;
};

}  // namespace fg
