// libFuzzer target: the input is a whole capture file (pcap or pcapng), read
// with fg::FileSource until it is done and fed to a small static Pipeline.
//
// The input is written to a memfd and opened as /proc/self/fd/N, so FileSource
// runs its real open/fstat/mmap path. FileSource mmaps the file, and ASan does
// not see reads past the end of a file mapping (the rest of the last page is
// readable zeros). This target is therefore linked with
// -Wl,--wrap=mmap,--wrap=mmap64,--wrap=munmap,--wrap=madvise (see
// CMakeLists.txt): read-only private file mappings made by flowgate_core are
// replaced by an exact-size heap copy, so a read one byte past the file's end,
// by the reader or by a decoder looking at a packet, is an ASan report.
//
// Inputs whose size is a multiple of 3 are played as a two-file playlist (the
// same file twice) to run the file-to-file transition; odd-sized inputs end
// with flush_all() (the engine's flushAtEnd).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "capture/file_source.h"
#include "engine/pipeline.h"
#include "flow/local_nets.h"

// ---- mmap interposition (only for references from objects linked with --wrap)
extern "C" {
void* __real_mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off);
void* __real_mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void* addr, size_t len);
int __real_madvise(void* addr, size_t len, int advice);
}

namespace {

struct FakeMap { void* p; size_t n; };
FakeMap g_maps[16];

void* fake_map(size_t len, int fd, off_t off) {
  FakeMap* slot = nullptr;
  for (auto& m : g_maps)
    if (!m.p) { slot = &m; break; }
  if (!slot) { errno = ENOMEM; return MAP_FAILED; }
  void* p = std::malloc(len ? len : 1);
  if (!p) { errno = ENOMEM; return MAP_FAILED; }
  size_t got = 0;
  while (got < len) {
    ssize_t r = ::pread(fd, static_cast<char*>(p) + got, len - got, off + off_t(got));
    if (r <= 0) {
      std::free(p);
      errno = EIO;
      return MAP_FAILED;
    }
    got += size_t(r);
  }
  *slot = {p, len};
  return p;
}

FakeMap* find_map(void* p) {
  for (auto& m : g_maps)
    if (m.p && m.p == p) return &m;
  return nullptr;
}

// Any address inside a fake mapping (madvise may be given a sub-range).
bool in_map(void* p) {
  auto* a = static_cast<char*>(p);
  for (auto& m : g_maps)
    if (m.p && a >= static_cast<char*>(m.p) && a < static_cast<char*>(m.p) + m.n) return true;
  return false;
}

bool is_file_ro(int prot, int flags, int fd) {
  return fd >= 0 && prot == PROT_READ && (flags & MAP_PRIVATE) && !(flags & MAP_FIXED);
}

}  // namespace

extern "C" void* __wrap_mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (is_file_ro(prot, flags, fd)) return fake_map(len, fd, off);
  return __real_mmap(addr, len, prot, flags, fd, off);
}
extern "C" void* __wrap_mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (is_file_ro(prot, flags, fd)) return fake_map(len, fd, off);
  return __real_mmap64(addr, len, prot, flags, fd, off);
}
extern "C" int __wrap_munmap(void* addr, size_t len) {
  if (FakeMap* m = find_map(addr)) {
    if (m->n != len) __builtin_trap();  // unmapping with another length than mapped
    std::free(m->p);
    *m = {nullptr, 0};
    return 0;
  }
  return __real_munmap(addr, len);
}
extern "C" int __wrap_madvise(void* addr, size_t len, int advice) {
  if (in_map(addr)) return 0;  // advice about a heap copy: nothing to do
  return __real_madvise(addr, len, advice);
}

// ---- the target
namespace {

struct State {
  fg::SpscRing<fg::ExpiredFlow> ring{16};
  std::unique_ptr<fg::Pipeline> pipe;
  fg::NetConfig nets;
  fg::ExpiredFlow drained[16];
  int fd = -1;
  std::string path;

  State() {
    fg::PipelineLimits lim;
    lim.max_flows = 16;
    lim.max_hosts = 16;
    lim.max_macs = 8;
    lim.flow_idle_ns = 5ULL * 1000000000;
    lim.flow_lifetime_ns = 30ULL * 1000000000;
    lim.local_host_idle_ns = 10ULL * 1000000000;
    lim.remote_host_idle_ns = 5ULL * 1000000000;
    pipe = std::make_unique<fg::Pipeline>(lim, &ring);
    for (const char* c : {"10.0.0.0/8", "192.168.0.0/16", "172.16.0.0/12", "fc00::/7"}) {
      fg::Cidr cidr;
      if (fg::parse_cidr(c, cidr)) nets.local.push_back(cidr);
    }
    fd = ::memfd_create("fg-fuzz-file", MFD_CLOEXEC);
    if (fd < 0) { std::perror("memfd_create"); std::abort(); }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
};


void write_input(int fd, const uint8_t* data, size_t size) {
  if (::ftruncate(fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    ssize_t w = ::pwrite(fd, data + done, size - done, off_t(done));
    if (w <= 0) std::abort();
    done += size_t(w);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static State st;
  write_input(st.fd, data, size);
  std::vector<std::string> playlist{st.path};
  if (size % 3 == 0) playlist.push_back(st.path);

  std::unique_ptr<fg::FileSource> src;
  try {
    src = std::make_unique<fg::FileSource>(playlist);
  } catch (const std::runtime_error&) {
    return 0;  // not a capture file at all: reported to the user, nothing to read
  }
  // Batches of 1 … 16 packets (varying with the input), so both batch edges
  // and the reader's end-of-file-within-a-batch path are hit.
  fg::RawPacket batch[16];
  const size_t want = size ? (data[size - 1] & 15) + 1 : 16;
  size_t total = 0;
  while (!src->done()) {
    size_t n = src->next_batch(batch, want);
    if (n == 0 && !src->done()) __builtin_trap();  // would spin the engine's loop forever
    if (n > want) __builtin_trap();
    for (size_t i = 0; i < n; i++)
      if (batch[i].caplen > batch[i].wirelen) __builtin_trap();
    st.pipe->process_batch(batch, n, st.nets);
    st.pipe->advance(st.pipe->now_ns());
    total += n;
    // A file of `size` bytes cannot hold more packets than this (a pcapng
    // block is at least 12 bytes), per pass of the playlist.
    if (total > playlist.size() * (size / 12 + 1)) __builtin_trap();
  }
  if (src->bytes_done() > src->bytes_total()) __builtin_trap();
  if (size & 1) st.pipe->flush_all();
  st.ring.drain(st.drained, 16);
  return 0;
}
