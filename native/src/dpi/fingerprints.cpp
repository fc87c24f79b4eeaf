#include "dpi/fingerprints.h"

#include <cstring>

namespace fg {
namespace {

#include "dpi/generated/fingerprints.inc"

template <size_t N, size_t L>
bool listed(const uint8_t (&list)[N][L], const uint8_t* d) {
  size_t lo = 0, hi = N;  // the first entry not below d
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (std::memcmp(list[mid], d, L) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < N && std::memcmp(list[lo], d, L) == 0;
}

}  // namespace

bool malicious_ja3(const uint8_t md5[16]) { return listed(kMaliciousJa3, md5); }
bool malicious_cert_sha1(const uint8_t sha1[20]) { return listed(kMaliciousSha1, sha1); }

}  // namespace fg
