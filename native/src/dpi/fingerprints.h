// ④ The malicious fingerprints ndpiReader is given (abuse.ch's SSLBL lists,
// nDPI's example/ja3_fingerprints.csv and sha1_fingerprints.csv; see
// data/README.md): a TLS or QUIC client whose JA3 is listed raises nDPI's
// Malicious Fingerprint (tls.c, after the JA3 digest), a server certificate
// whose SHA-1 is listed Malicious SHA1 Certificate.
#pragma once
#include <cstdint>

namespace fg {

bool malicious_ja3(const uint8_t md5[16]);
bool malicious_cert_sha1(const uint8_t sha1[20]);

}  // namespace fg
