// ④ nDPI's "Susp DGA Domain name": does a name (DNS query, TLS/QUIC SNI,
// HTTP Host) look machine-generated rather than made of words? Letter
// statistics only: runs of digits and repeated letters, label lengths,
// vowels, and how many of its bigrams/trigrams occur in English (nDPI's
// tables, data/dga-ngrams.tsv). Names of known applications are never
// asked (the caller checks the host patterns first).
#pragma once
#include <cstddef>

namespace fg {

// No allocation; looks at the last 79 characters at most, as nDPI keeps them.
bool dga_suspicious(const char* name, size_t len);

}  // namespace fg
