#include "recorder/pcap_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fg::rec {

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    p += w, n -= size_t(w);
  }
  return true;
}

std::string data_path(const std::string& dir, uint64_t seq) {
  char b[32];
  std::snprintf(b, sizeof b, "/%010llu.pcap", (unsigned long long)seq);
  return dir + b;
}

std::string index_path(const std::string& dir, uint64_t seq) {
  char b[32];
  std::snprintf(b, sizeof b, "/%010llu.idx", (unsigned long long)seq);
  return dir + b;
}

std::vector<uint64_t> list_files(const std::string& dir) {
  std::vector<uint64_t> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const char* n = e->d_name;
    // exactly ten digits and ".pcap": nothing else in the directory is ours
    if (std::strlen(n) != 15 || std::strcmp(n + 10, ".pcap") != 0) continue;
    bool digits = true;
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
      if (n[i] < '0' || n[i] > '9') digits = false;
      v = v * 10 + uint64_t(n[i] - '0');
    }
    if (digits) out.push_back(v);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<IndexEntry> read_index(const std::string& dir, uint64_t seq) {
  std::vector<IndexEntry> out;
  int fd = ::open(index_path(dir, seq).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size >= off_t(sizeof(IndexEntry))) {
    out.resize(size_t(st.st_size) / sizeof(IndexEntry));  // a torn last entry is left out
    size_t want = out.size() * sizeof(IndexEntry), got = 0;
    while (got < want) {
      ssize_t r = ::pread(fd, reinterpret_cast<uint8_t*>(out.data()) + got, want - got, off_t(got));
      if (r <= 0) break;
      got += size_t(r);
    }
    out.resize(got / sizeof(IndexEntry));
  }
  ::close(fd);
  return out;
}

}  // namespace fg::rec
