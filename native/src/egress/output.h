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
#include <vector>

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

// One pcap output (file, then its rotations) shared by the workers writing
// to it: each worker (a lane, PcapFileOutput) only copies records into 1 MiB
// chunks of its own and hands full ones over; a writer thread of the sink's
// own writes them, opening, rotating and closing the files, so the disk's
// time is no worker's, nor spent under a batch lock. A chunk holds whole
// records of one link type; the writer rotates between records and drops
// those of another link type than the file's. Several lanes' chunks follow
// each other as handed over: a flow's packets (one worker's) keep their
// order, two workers' interleave by chunk.
class PcapFileSink {
 public:
  static constexpr size_t kBuf = 1 << 20, kChunksPerLane = 4;
  struct Chunk {
    std::unique_ptr<uint8_t[]> data;
    size_t used = 0;
    uint64_t records = 0;
    uint16_t linktype = 0;
    uint32_t lane = 0;
  };
  // Creates (truncates) `path`; throws OutputOpenError when it cannot.
  PcapFileSink(const std::string& path, uint64_t rotate_bytes);
  ~PcapFileSink();
  const std::string& path() const { return path_; }
  uint32_t add_lane();      // before any record: a lane id, with chunks of its own
  Chunk* take(uint32_t lane) noexcept;  // a free chunk of the lane (waits for the writer)
  void submit(Chunk* c) noexcept;       // to the writer
  void wait_written() noexcept;         // everything handed over is written
  void lane_closed() noexcept;          // the last lane closes the file (a header if nothing came)
  // What the writer could not write of a lane's records since the last call:
  // failed writes (with the error) and records of another link type.
  void take_failed(uint32_t lane, uint64_t& failed, uint64_t& other_link, std::string& error) noexcept;
  std::string current_path() const;
  uint32_t files() const;

 private:
  void run() noexcept;
  bool open_file(const std::string& path) noexcept;  // writer (and constructor)
  void write_header(uint16_t linktype) noexcept;     // writer
  void write_run(const Chunk& c, size_t from, size_t to, uint64_t records) noexcept;  // writer

  std::string path_;
  uint64_t rotate_bytes_;
  // writer's (files_ and cur_path_ also read under mu_)
  int fd_ = -1;
  bool header_ = false;
  uint16_t linktype_ = 0;
  uint64_t file_bytes_ = 0, file_records_ = 0;
  std::string cur_path_, open_error_;
  uint32_t files_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;    // the writer: a chunk came, or stop
  std::condition_variable room_;  // the lanes: a chunk is free, or all written
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::vector<std::deque<Chunk*>> free_;  // per lane
  std::deque<Chunk*> full_;
  bool writing_ = false, stop_ = false, closing_ = false;
  uint32_t lanes_ = 0, closed_lanes_ = 0;
  struct Failed {
    uint64_t failed = 0, other_link = 0;
    std::string error;
  };
  std::vector<Failed> failed_;  // per lane, under mu_
  std::thread writer_;
};

// A worker's lane of a pcap output.
class PcapFileOutput final : public Output {
 public:
  // A new sink of its own (one lane); throws OutputOpenError.
  PcapFileOutput(const std::string& path, uint64_t rotate_bytes);
  // Another lane of `sink`.
  explicit PcapFileOutput(std::shared_ptr<PcapFileSink> sink);
  ~PcapFileOutput() override;
  void put(const RawPacket& raw, uint32_t caplen) noexcept override;
  // Hands the chunk being filled to the writer and waits until all is written.
  void flush() noexcept override;
  void close() noexcept override;
  std::string current_path() const { return sink_->current_path(); }
  uint32_t files_opened() const { return sink_->files(); }
  const std::shared_ptr<PcapFileSink>& sink() const { return sink_; }

 private:
  void submit() noexcept;
  void settle() noexcept;  // folds in what the writer could not write
  std::shared_ptr<PcapFileSink> sink_;
  uint32_t lane_;
  PcapFileSink::Chunk* cur_;
  bool closed_ = false;
};

class IfaceOutput final : public Output {
 public:
  // Opens a packet socket bound to `iface`; throws std::runtime_error.
  explicit IfaceOutput(const std::string& iface);
  ~IfaceOutput() override;
  const std::string& iface() const { return iface_; }
  void put(const RawPacket& raw, uint32_t caplen) noexcept override;
  void end_batch() noexcept override;
  void close() noexcept override;

 private:
  static constexpr size_t kMax = 256;
  std::string iface_;
  int fd_ = -1;
  size_t n_ = 0;
  struct iovec iov_[kMax];
  struct mmsghdr msgs_[kMax];
};

}  // namespace fg
