// ⑤ The recorder's files, shared by the writer (recorder.cpp) and the
// extraction (extract.cpp): <dir>/<seq>.pcap, nanosecond pcap of one link
// type, and <seq>.idx, its time index: one entry per block of records, a
// block being the records of one second (or 4 MiB of them), with the least
// and greatest timestamp it holds — exact even when timestamps go backwards.
// A window is found by reading the small index, never by scanning the data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace fg::rec {

constexpr uint32_t kMagicNs = 0xa1b23c4d;
constexpr uint32_t kMagicUs = 0xa1b2c3d4;
constexpr uint32_t kSnaplen = 262144;
constexpr uint64_t kBlockBytes = 4ULL << 20;

struct FileHeader {
  uint32_t magic;
  uint16_t major, minor;
  int32_t thiszone;
  uint32_t sigfigs, snaplen, network;
};
static_assert(sizeof(FileHeader) == 24);

struct RecordHeader {
  uint32_t sec, frac, incl, orig;  // frac: ns in recordings, µs in extractions
};
static_assert(sizeof(RecordHeader) == 16);

// Records [off, off + len) of a data file; timestamps in [min_ns, max_ns].
struct IndexEntry {
  uint64_t off, len, min_ns, max_ns;
};
static_assert(sizeof(IndexEntry) == 32);

std::string data_path(const std::string& dir, uint64_t seq);
std::string index_path(const std::string& dir, uint64_t seq);
// Writes all n bytes (retrying short writes and EINTR); false with errno set
// (ENOSPC for a write that took nothing) when it cannot. Recorder and egress.
bool write_all(int fd, const void* p, size_t n);
// The sequence numbers of the recording's data files, oldest first.
std::vector<uint64_t> list_files(const std::string& dir);
// A whole index file (entries written so far); empty when absent.
std::vector<IndexEntry> read_index(const std::string& dir, uint64_t seq);

}  // namespace fg::rec
