// ④ rsh (BSD remote shell) over TCP, as nDPI's rsh.c, on the flow's payload
// packets in either direction and on any ports: the first is the stderr
// port, 2 to 6 bytes of which all but the last are digits; the second holds
// the local and the remote user, printable and NUL-terminated, then
// optionally the command, the packet ending with a NUL. The user names in
// clear are nDPI's clear-text credentials. On a flow with port 514 at
// either end, a packet ending with a newline never excludes rsh and, from
// the sixth payload packet on, names the flow RSH (nDPI's mid-stream
// detection; no credentials then).
#include "dpi/dpi.h"

namespace fg {
namespace {

bool printable(Bytes b) {
  for (uint8_t ch : b)
    if (ch < 0x20 || ch > 0x7e) return false;
  return true;
}

// nDPI's reading of the second packet: two printable NUL-terminated strings
// at least, the packet's last byte a NUL.
bool users_and_command(Bytes b) {
  const size_t n = b.size();
  if (n < 3 || b[n - 1] != 0) return false;
  size_t start = 0;
  for (int i = 0; i < 2; i++) {
    size_t nul = start;
    while (nul < n && b[nul] != 0) nul++;
    if (nul == n || !printable(b.subspan(start, nul - start))) return false;
    if (nul >= n - 1) return i == 1;  // the packet ends after the first / second string
    start = nul + 1;
  }
  return true;
}

Verdict classify_rsh(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n == 0) return Verdict::NeedMore;
  if ((c.p.sport == 514 || c.p.dport == 514) && b[n - 1] == '\n') {
    if (c.flow.dpi_packets <= 5) return Verdict::NeedMore;
    m.app = id(ProtoId::RSH);
    return Verdict::Match;
  }
  if (c.flow.dpi_packets == 1) {
    if (n < 2 || n > 6) return Verdict::No;
    for (size_t i = 0; i + 1 < n; i++)
      if (b[i] < '0' || b[i] > '9') return Verdict::No;
    return Verdict::NeedMore;
  }
  if (c.flow.dpi_packets != 2 || !users_and_command(b)) return Verdict::No;
  c.risk(Risk::ClearTextCredentials);
  m.app = id(ProtoId::RSH);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rsh, {"RSH", id(ProtoId::RSH), kL4Tcp, kMaxDpiPackets, classify_rsh});

}  // namespace fg
