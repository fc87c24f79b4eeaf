// ⑤ PCAP extraction: the packets of a time window that pass a BPF filter,
// as a classic (microsecond) pcap file, the way ntopng's live extraction
// answers. The input is a recording (recorder.h: only the index blocks that
// overlap the window are read) or, for a replayed interface, its capture
// files themselves (read whole). Runs off the packet path, a slice per
// next() call, so an answer streams and a departed client stops it.
#pragma once
#include <pcap/pcap.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "capture/file_source.h"
#include "recorder/pcap_files.h"

namespace fg {

struct ExtractError : std::runtime_error {
  ExtractError(const char* c, const std::string& m) : std::runtime_error(m), code(c) {}
  const char* code;  // E_BPF: libpcap refused the filter; E_FILE_OPEN: a capture file unreadable
};

struct ExtractOptions {
  std::string dir;                    // a recording; or
  std::vector<std::string> files;     // capture files
  uint64_t begin_ns = 0, end_ns = 0;  // packets with begin_ns <= ts < end_ns
  std::string filter;                 // BPF ('' = every packet)
  uint16_t linktype = 1;              // the link type when nothing is in the window
  // A looped replay of `files` (Engine::replay_info): pass k's packets are
  // the files' shifted by k * loop_period_ns, for the passes made so far.
  uint64_t loop_period_ns = 0, passes = 1, first_ns = 0;
};

class Extraction {
 public:
  // Compiles the filter for the link type of what is extracted (main thread:
  // libpcap's compiler is not guaranteed reentrant); throws ExtractError.
  explicit Extraction(ExtractOptions o);
  ~Extraction();
  Extraction(const Extraction&) = delete;
  Extraction& operator=(const Extraction&) = delete;

  // Appends output (the file header first) until `out` holds `max_out`
  // bytes or a slice of input was read; false once everything is out.
  bool next(std::vector<uint8_t>& out, size_t max_out) noexcept;
  uint64_t packets() const { return packets_; }
  uint64_t scanned() const { return scanned_; }
  uint16_t linktype() const { return link_; }
  // Input that could not be read (a file deleted by the quota meanwhile, a
  // torn record); what could be read is still extracted.
  const std::string& error() const { return error_; }

 private:
  struct Span {
    uint64_t seq, off, end;  // end: UINT64_MAX = to the end of the file
  };
  void take(std::vector<uint8_t>& out, const uint8_t* data, uint32_t incl, uint32_t orig, uint64_t ts_ns, uint16_t link) noexcept;
  bool next_recording(std::vector<uint8_t>& out, size_t max_out) noexcept;
  bool next_files(std::vector<uint8_t>& out, size_t max_out) noexcept;
  bool open_span() noexcept;

  ExtractOptions o_;
  uint16_t link_ = 1;
  bool has_prog_ = false;
  bpf_program prog_{};
  bool header_done_ = false;
  uint64_t packets_ = 0, scanned_ = 0;
  std::string error_;
  // recording
  std::vector<Span> spans_;
  size_t span_ = 0;
  int fd_ = -1;
  bool ns_ = true, span_open_ = false;
  uint16_t span_link_ = 0;
  std::vector<uint8_t> buf_;
  size_t buf_pos_ = 0, buf_len_ = 0;
  uint64_t file_pos_ = 0;  // file offset of buf_[buf_len_]
  // capture files, once per pass of a looped replay that can hold the window
  std::unique_ptr<FileSource> src_;
  std::vector<uint64_t> passes_;
  size_t pass_ = 0;
};

}  // namespace fg
