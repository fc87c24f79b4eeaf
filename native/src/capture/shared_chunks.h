// ① One read of a capture file for several workers. Every worker of a file
// playlist parses every record (it keeps its own packets), but the bytes
// need copying from the page cache only once: the first worker to reach a
// chunk reads it into a slot, the others parse it in place. Chunks overlap
// by the longest record, so a record that starts in a chunk's stride lies
// whole inside it. Slots are a cache: one no worker holds may be taken for
// a new chunk, and a worker far behind reads its chunk again (a copy, as
// without sharing). A chunk is read in pieces that every worker wanting it
// takes a share of: workers in step meet at each chunk, and one would
// otherwise sit idle while the other copies it (≈ 1.4 ms per 8 MiB here, a
// tenth of a worker's time). A few locks per chunk and worker, none per packet.
#pragma once
#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace fg {

class SharedChunks {
 public:
  struct Chunk {
    const uint8_t* data;
    size_t len;   // bytes read (fewer than want: the file ended early, or an error)
    size_t want;  // bytes asked
    int err;      // errno of a failed read, else 0
  };
  // `span`: bytes per chunk (a stride plus the longest record); `slots`:
  // chunks kept at once (at least one per worker, and some to run ahead).
  SharedChunks(size_t span, uint32_t slots) : span_(span), slots_(slots) {
    for (auto& s : slots_) s.buf.reset(new uint8_t[span]);
  }
  size_t span() const { return span_; }

  // Chunk `key` (the caller's: pass, file, size, index), `want` bytes read
  // with `read(to, at, n)` (n bytes at offset `at` of the chunk into `to`:
  // the bytes read, or -1 with errno) when not already here; held until
  // release(). A chunk being read gets this caller's help.
  template <class Read>
  const Chunk* acquire(uint64_t key, size_t want, Read read) {
    std::unique_lock<std::mutex> g(mu_);
    for (;;) {
      for (Slot& s : slots_) {
        if (s.used && s.key == key) {
          s.holders++, s.tick = ++tick_;  // held: the slot stays this chunk's
          if (s.loading) load(g, s, read);
          return &s.chunk;
        }
      }
      Slot* victim = nullptr;
      for (Slot& s : slots_)
        if (!s.holders && !s.loading && (!victim || !s.used || (victim->used && s.tick < victim->tick))) victim = &s;
      if (!victim) {
        cv_.wait(g);  // every slot held: wait for a release
        continue;
      }
      Slot& s = *victim;
      s.used = true, s.loading = true, s.key = key, s.holders = 1, s.tick = ++tick_;
      s.want = want, s.next_piece = 0, s.pieces_done = 0, s.pieces = (want + kPiece - 1) / kPiece;
      s.short_at = want, s.err = 0;
      load(g, s, read);
      return &s.chunk;
    }
  }
  // A failed or short read stays like any chunk: every worker sees the same
  // bytes and ends its file at the same record with the same error (a file
  // truncated and written again must not give the workers different packets).
  void release(const Chunk* c) {
    std::lock_guard<std::mutex> g(mu_);
    for (Slot& s : slots_)
      if (&s.chunk == c) s.holders--;
    cv_.notify_all();
  }

  // The size of a playlist's file `file` in pass `pass` that every worker
  // reads: the first to open it tells (`size`), the others take that one —
  // a file still growing would otherwise end at a different record for each.
  uint64_t agree_size(uint64_t pass, uint64_t file, uint64_t size) {
    std::lock_guard<std::mutex> g(mu_);
    for (const Size& z : sizes_)
      if (z.pass == pass && z.file == file) return z.size;
    if (sizes_.size() >= kSizesKept) sizes_.erase(sizes_.begin());  // oldest first: passes and files go in order
    sizes_.push_back({pass, file, size});
    return size;
  }

 private:
  static constexpr size_t kPiece = size_t(1) << 20;
  struct Slot {
    std::unique_ptr<uint8_t[]> buf;
    Chunk chunk{};
    uint64_t key = 0, tick = 0;
    uint32_t holders = 0;
    bool used = false, loading = false;
    // while loading: pieces handed out and read; the first short or failed one
    size_t want = 0, pieces = 0, next_piece = 0, pieces_done = 0, short_at = 0;
    int err = 0;
  };

  // Reads pieces of `s` until none is left to take, then waits for the
  // others' pieces; the last reader publishes the chunk. Called and returns
  // with the lock held.
  template <class Read>
  void load(std::unique_lock<std::mutex>& g, Slot& s, Read& read) {
    while (s.next_piece < s.pieces) {
      const size_t at = s.next_piece++ * kPiece, n = std::min(kPiece, s.want - at);
      g.unlock();
      const long got = read(s.buf.get() + at, at, n);
      const int err = got < 0 ? errno : 0;
      g.lock();
      // the chunk ends at the first piece that came back short or failed
      const size_t end = at + (got < 0 ? 0 : size_t(got));
      if (size_t(got < 0 ? 0 : got) < n && end < s.short_at) s.short_at = end, s.err = err;
      if (++s.pieces_done == s.pieces) {
        s.chunk = {s.buf.get(), s.short_at, s.want, s.err};
        s.loading = false;
        cv_.notify_all();
      }
    }
    cv_.wait(g, [&] { return !s.loading; });
  }
  struct Size {
    uint64_t pass, file, size;
  };
  static constexpr size_t kSizesKept = 4096;  // workers are at most a few files apart
  size_t span_;
  std::vector<Slot> slots_;
  std::vector<Size> sizes_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t tick_ = 0;
};

}  // namespace fg
