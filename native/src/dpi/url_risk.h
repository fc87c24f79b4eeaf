// ④ nDPI's URL validation (ndpi_validate_url, src/lib/ndpi_utils.c), which
// ndpiReader applies to a flow's HTTP URL when it reports the flow: each
// value of the query string, URL-decoded, is looked at for an injection
// (XSS, then SQL, as libinjection judges them: dpi/xss.h, dpi/sqli.h; then a
// shell/PowerShell command: the OWASP CRS patterns of data/rce-injection.tsv),
// the first risky value deciding; without one, ".." anywhere in the URL makes
// it suspicious.
#pragma once
#include <cstddef>

#include "dpi/risk.h"

namespace fg {

// What ndpiReader validates of the URL: its copy of it (ndpi_flow_info's
// http.url[256]) keeps 255 bytes.
constexpr size_t kUrlValidated = 255;

// url: nDPI's URL text (Host then target), without NUL bytes; only its
// first kUrlValidated bytes are looked at. True with the risk when there is
// one. No allocation once the calling thread has matched
// a pattern before (the patterns are compiled once per process, the match
// data once per thread); the XSS and SQL injection tests keep their state
// on the stack.
bool url_risk(const char* url, size_t n, Risk& risk);

}  // namespace fg
