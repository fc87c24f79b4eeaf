// ⑤ Where an egress queue's packets go: a network interface (AF_PACKET,
// sendmmsg per batch, never blocking: what the kernel refuses is counted as
// dropped) or a pcap file (nanosecond pcap, buffered, rotated by size:
// <path>, then <path>.1, <path>.2 …). Sliced packets keep their wire length
// as the record's orig_len.
#pragma once
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

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

class PcapFileOutput final : public Output {
 public:
  // Creates (truncates) `path`; throws std::runtime_error when it cannot.
  PcapFileOutput(const std::string& path, uint64_t rotate_bytes);
  ~PcapFileOutput() override;
  void put(const RawPacket& raw, uint32_t caplen) noexcept override;
  void flush() noexcept override;
  void close() noexcept override;
  const std::string& current_path() const { return cur_path_; }

 private:
  bool open_file(const std::string& path) noexcept;
  void write_header(uint16_t linktype) noexcept;
  void append(const void* p, size_t n) noexcept;
  void rotate() noexcept;

  std::string path_, cur_path_;
  uint64_t rotate_bytes_;
  int fd_ = -1;
  bool header_ = false;
  uint16_t linktype_ = 0;
  uint64_t file_bytes_ = 0, file_records_ = 0;
  std::unique_ptr<uint8_t[]> buf_;
  size_t buf_used_ = 0, buf_records_ = 0;
  static constexpr size_t kBuf = 1 << 20;
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
