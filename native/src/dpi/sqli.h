// ④ libinjection's SQL injection test, as nDPI's URL validation asks it
// (ndpi_is_sql_injection: libinjection_sqli_init with no flags, then
// libinjection_is_sqli). Written here from libinjection's algorithm: the
// input is tokenized as SQL (as is, then as if a ' or " came before it, in
// ANSI and MySQL comment dialects), the tokens are folded to at most five,
// their types make a fingerprint such as "s&sos", and a fingerprint on
// libinjection's blacklist (data/sqli.tsv) is an injection unless one of its
// false-positive rules clears it. Behaviour matches libinjection 3.9.2 as
// nDPI 4.11 carries it, byte for byte.
#pragma once
#include <cstddef>

namespace fg {

// s: n bytes (no NUL among them: nDPI passes a C string). No allocation, no
// state: the tokenizer's state lives on the stack. fingerprint, when given,
// receives the deciding fingerprint (at most 5 characters and a NUL) if the
// input is an injection, else "".
bool sqli(const char* s, size_t n, char* fingerprint = nullptr);

// The fingerprint of one of the contexts sqli() tries, in its order (for
// tests and diagnostics): as is (ANSI comments, then MySQL's), after an
// assumed ' (ANSI, MySQL), after an assumed " (MySQL). out: 8 bytes.
enum class SqliContext { AsIs, AsIsMysql, SingleQuote, SingleQuoteMysql, DoubleQuoteMysql };
void sqli_fingerprint(const char* s, size_t n, SqliContext context, char* out);

}  // namespace fg
