// ⑤ Continuous packet recording, n2disk-style. A worker copies each packet
// (a pcap record) into its byte ring; a writer thread of its own drains the
// rings into rotating files with large sequential writes and keeps their
// time index (pcap_files.h). Several live workers have a ring each, merged
// by packet time: a record is written once every other ring holds a later
// one or its worker said nothing earlier is to come (clock()). The quota is
// kept by deleting the oldest files before a new one is opened. Live capture
// never waits for the disk: a full ring drops the packet and counts it; a
// replayed file waits instead (nothing is lost by waiting, as with ticks).
#pragma once
#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capture/source.h"
#include "recorder/pcap_files.h"

namespace fg {

struct RecorderConfig {
  std::string dir;
  uint64_t max_bytes = 1ULL << 30;  // the interface's quota (data and index files)
  uint64_t file_bytes = 0;          // rotation size; 0: max_bytes / 8 within [1 MiB, 256 MiB]
  uint32_t ring_bytes = 64u << 20;  // over all producers' rings
  uint32_t producers = 1;            // workers putting packets, a ring each
};

struct RecorderStats {
  uint64_t packets = 0, bytes = 0;  // written to the files (bytes: captured bytes)
  uint64_t drops = 0;               // not recorded: the ring was full, or a write failed
  uint64_t write_errors = 0;
  uint64_t files = 0, disk_bytes = 0, files_deleted = 0;
  uint64_t ring_bytes = 0, ring_used = 0;
  std::string last_error;
};

class Recorder {
 public:
  // Creates the directory and takes over the files already there (an
  // earlier run's recording stays extractable); throws std::runtime_error.
  explicit Recorder(RecorderConfig c);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Producer `k`'s thread only. `wait`: block until the ring has room.
  // Packets of one producer come in time order.
  void put(uint32_t k, const RawPacket* p, size_t n, bool wait) noexcept;
  // Producer `k` has nothing earlier than `ns` to put (an idle live worker:
  // the others' packets up to then can be written).
  void clock(uint32_t k, uint64_t ns) noexcept;
  // Waits until the writer has written everything put so far (a replay's
  // end: its recording is whole when the engine says "done").
  void flush() noexcept;
  // Writes out what the ring holds, then ends the writer; idempotent.
  void stop() noexcept;
  RecorderStats stats() const;
  const std::string& dir() const { return cfg_.dir; }

 private:
  struct FileInfo {
    uint64_t seq, bytes;
  };
  // One producer's ring; `read` and `link` are the writer's.
  struct Ring {
    std::unique_ptr<uint8_t[]> buf;
    alignas(64) std::atomic<uint64_t> head{0};  // producer
    alignas(64) std::atomic<uint64_t> tail{0};  // writer: what was written
    alignas(64) uint16_t prod_link = 0xffff;    // producer: the link type of its last record
    std::atomic<uint64_t> clock{0};             // producer: nothing earlier to come (ns)
    alignas(64) uint64_t read = 0;              // writer: the next record to merge (tail ≤ read)
    uint16_t link = 0;                          // writer: the link type of the records at `read`
  };
  bool reserve(Ring& r, size_t need, bool wait) noexcept;
  uint64_t pending() const noexcept;
  void run() noexcept;
  // Writer side: the records the rings hold that may be written (all of
  // them when `all`), merged by time.
  void consume(bool all) noexcept;
  // The next record of ring `r` (markers passed) before `head`: its header
  // in `rh`, false when there is none.
  bool peek(Ring& r, uint64_t head, rec::RecordHeader& rh) noexcept;
  void write_span() noexcept;
  bool open_file(uint16_t linktype) noexcept;
  void close_file() noexcept;
  void close_block() noexcept;
  void flush_index() noexcept;
  void current_bytes() noexcept;
  void fail(const std::string& what) noexcept;

  RecorderConfig cfg_;
  std::vector<std::unique_ptr<Ring>> rings_;
  uint64_t cap_ = 0, mask_ = 0;  // each ring's
  std::atomic<uint64_t> drops_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;

  // Writer state.
  int fd_ = -1, idx_fd_ = -1;
  uint64_t seq_ = 0, next_seq_ = 0, file_off_ = 0, idx_bytes_ = 0;
  uint16_t file_link_ = 0, ring_link_ = 0;
  // Records merged from the rings, not yet written: runs of contiguous
  // bytes (a record next to the previous one in its ring extends the run).
  static constexpr size_t kIov = 512;
  iovec iov_[kIov];
  size_t iov_n_ = 0, span_len_ = 0, span_records_ = 0;
  uint64_t span_bytes_ = 0;
  rec::IndexEntry block_{};
  bool block_open_ = false;
  uint64_t block_sec_ = 0;
  std::vector<rec::IndexEntry> pending_idx_;
  std::deque<FileInfo> files_;
  uint64_t disk_total_ = 0;  // the files' bytes summed (the open one's as last written)
  uint64_t reserve_bytes_ = 0;

  mutable std::mutex mu_;  // guards what stats() reads
  RecorderStats st_;
};

}  // namespace fg
