// Byte-level helpers shared by every layer: a bounds-carrying view and
// big-endian loads. Headers are never cast to structs (alignment, endianness).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace fg {

using Bytes = std::span<const uint8_t>;

inline uint16_t load_be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint16_t load_le16(const uint8_t* p) { return uint16_t(p[1] << 8 | p[0]); }
inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | p[0];
}
inline uint64_t load_le64(const uint8_t* p) {
  return uint64_t(load_le32(p)) | uint64_t(load_le32(p + 4)) << 32;
}

// 64-bit mixer (splitmix64 finaliser): cheap, good avalanche for table indexes.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace fg
