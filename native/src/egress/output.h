// ⑤ Where an egress queue's packets go: a network interface (AF_PACKET,
// sendmmsg per batch, never blocking: what the kernel refuses is counted as
// dropped) or a pcap file (nanosecond pcap, written by a thread of its own, rotated by size:
// <path>, then <path>.1, <path>.2 …). Sliced packets keep their wire length
// as the record's orig_len.
#pragma once
#include <sys/socket.h>
#include <sys/uio.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "capture/source.h"

namespace fg {

// An output could not be opened (the binding reports E_OUTPUT_OPEN).
struct OutputOpenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Output {
 public:
  virtual ~Output() = default;
  // One packet, `caplen` bytes of raw.data; the data must stay valid until end_batch().
  virtual void put(const RawPacket& raw, uint32_t caplen) noexcept = 0;
  virtual void end_batch() noexcept {}
  virtual void flush() noexcept {}  // writes what is buffered (files)
  virtual void close() noexcept {}
  const std::string& name() const { return name_; }
  uint64_t packets = 0, bytes = 0;  // taken by put()
  uint64_t sent = 0;                // written / accepted by the kernel
  uint64_t drops = 0;               // taken but not written (output full, error, other link type)
  uint32_t files = 0;               // files opened so far (pcap)
  std::string last_error;

 protected:
  std::string name_;
};

// The worker only copies records into 1 MiB chunks; a writer thread of the
// output's own writes full chunks (each with the file it belongs to), so the
// disk's time is not the worker's nor spent under the engine's batch lock.
// A worker that finds no free chunk waits for one (as a write() did before).
class PcapFileOutput final : public Output {
 public:
  // Creates (truncates) `path`; throws std::runtime_error when it cannot.
  PcapFileOutput(const std::string& path, uint64_t rotate_bytes);
  ~PcapFileOutput() override;
  void put(const RawPacket& raw, uint32_t caplen) noexcept override;
  // Hands the chunk being filled to the writer and waits until all is written.
  void flush() noexcept override;
  void close() noexcept override;
  const std::string& current_path() const { return cur_path_; }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> data;
    size_t used = 0;
    uint64_t records = 0;
    int fd = -1;
    bool close_after = false;  // the file's last chunk: the writer closes it
  };
  bool open_file(const std::string& path) noexcept;
  void write_header(uint16_t linktype) noexcept;
  void append(const void* p, size_t n) noexcept;
  void rotate() noexcept;
  // Worker side: queue the current chunk (closing its file after it when
  // `close_file`), take a free one; fold in what the writer failed to write.
  void submit(bool close_file) noexcept;
  void settle() noexcept;
  void run() noexcept;

  std::string path_, cur_path_;
  uint64_t rotate_bytes_;
  int fd_ = -1;
  bool header_ = false;
  uint16_t linktype_ = 0;
  uint64_t file_bytes_ = 0, file_records_ = 0;
  static constexpr size_t kBuf = 1 << 20, kChunks = 4;
  Chunk chunks_[kChunks];
  Chunk* cur_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;                // the writer: a chunk came, or stop
  std::condition_variable room_;              // the worker: a chunk is free, or all written
  std::deque<Chunk*> full_, free_;
  bool writing_ = false, stop_ = false;
  uint64_t failed_ = 0, failed_seen_ = 0;     // records the writer could not write (under mu_)
  std::string write_error_;                   // its last error (under mu_)
  std::thread writer_;
};

class IfaceOutput final : public Output {
 public:
  // Opens a packet socket bound to `iface`; throws std::runtime_error.
  explicit IfaceOutput(const std::string& iface);
  ~IfaceOutput() override;
  void put(const RawPacket& raw, uint32_t caplen) noexcept override;
  void end_batch() noexcept override;
  void close() noexcept override;

 private:
  static constexpr size_t kMax = 256;
  int fd_ = -1;
  size_t n_ = 0;
  struct iovec iov_[kMax];
  struct mmsghdr msgs_[kMax];
};

}  // namespace fg
