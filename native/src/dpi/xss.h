// ④ libinjection's XSS test, as nDPI's URL validation asks it
// (ndpi_is_xss_injection: libinjection_xss). Written here from
// libinjection's algorithm: the input is tokenized as HTML5 (libinjection's
// cut-down tokenizer), starting as page text and then as an attribute value
// (unquoted, in ', " and `); a doctype, a blacklisted tag, an event-handler
// or otherwise blacklisted attribute, a URL attribute whose value starts with
// a blacklisted scheme (javascript:, data:, … HTML entities decoded), a style
// attribute, or an IE-specific comment is an attack. The blacklists are
// libinjection's (data/xss.tsv). Behaviour matches libinjection 3.9.2 as
// nDPI 4.11 carries it, byte for byte.
#pragma once
#include <cstddef>

namespace fg {

// s: n bytes (no NUL among them: nDPI passes a C string). No allocation.
bool xss(const char* s, size_t n);

}  // namespace fg
