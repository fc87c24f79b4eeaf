// ④ Telnet (RFC 854/855): sessions open with option negotiation, packets
// opening with an IAC (0xff) command (nDPI's test below). After the match
// the session is read on as nDPI 4.11 does for clear-text credentials
// (search_telnet_again), either direction alike: until a packet of 7 bytes
// or more opens "login:" (any case), such packets pass by; a packet opening
// with CR (any length once the prompt was seen, 6 bytes or fewer before)
// ends the user name (ClearTextCredentials); then a packet of 10 bytes or
// more opening "password:" is that prompt, and the next packet opening with
// CR ends the password (the risk again; the reading stops). Packets opening
// with IAC pass by.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// nDPI's IAC test (src/lib/protocols/telnet.c): at least 3 bytes opening
// IAC, a command 0xfa..0xfe and an option below 0x28; after that, up to
// the last two bytes, an IAC must start a command 0xf0..0xfa or a command
// 0xfb..0xfe whose option is at most 0x28 (other bytes are free).
bool iac_packet(Bytes b) {
  const size_t n = b.size();
  if (n < 3 || b[0] != 0xff || b[1] <= 0xf9 || b[1] == 0xff || b[2] >= 0x28) return false;
  for (size_t a = 3; a + 2 < n; a++) {
    if (b[a] != 0xff) continue;
    const uint8_t cmd = b[a + 1];
    if (cmd >= 0xf0 && cmd <= 0xfa) continue;
    if (cmd >= 0xfb && cmd != 0xff && b[a + 2] <= 0x28) continue;
    return false;
  }
  return true;
}

// FlowInfo::state[0] after the match
enum TelnetState : uint8_t { kLoginPrompt = 1, kUser = 2, kPasswordPrompt = 4 };

Verdict read_on(DpiCtx& c) {
  Bytes b = c.payload;
  if (!c.info || b.empty() || b[0] == 0xff) return Verdict::NeedMore;  // negotiation
  uint8_t& st = c.info->state[0];
  if (st & kUser) {
    if (!(st & kPasswordPrompt) && b.size() > 9) {
      if (has_at_upper(b, 0, "PASSWORD:")) st |= kPasswordPrompt;
      return Verdict::NeedMore;
    }
    if (b[0] != '\r' || !(st & kPasswordPrompt)) return Verdict::NeedMore;
    c.risk(Risk::ClearTextCredentials);
    return Verdict::No;
  }
  if (!(st & kLoginPrompt) && b.size() > 6) {
    if (has_at_upper(b, 0, "LOGIN:")) st |= kLoginPrompt;
    return Verdict::NeedMore;
  }
  // typed (and echoed) a character or a word at a time until the line ends
  if (b[0] == '\r') st |= kUser, c.risk(Risk::ClearTextCredentials);
  return Verdict::NeedMore;
}

// nDPI names the flow on its third IAC packet read (telnet_stage, kept in
// bits 2-3 of the kScratchUsenet byte); another packet ends the turn from
// the 6th payload packet on, the 12th once an IAC packet was read. With the
// scratch bytes taken (a name set without a match), the third packet read
// or a later one that is IAC names the flow, as nDPI does when every
// earlier packet read was IAC, and other packets wait up to the 11th.
Verdict classify_telnet(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  uint8_t* keep = c.scratch(kScratchUsenet);
  const uint8_t stage = keep ? *keep >> 2 & 3 : 0;
  if (!iac_packet(c.payload)) {
    if (!keep) return c.flow.dpi_packets < 12 ? Verdict::NeedMore : Verdict::No;
    return (c.flow.dpi_packets < 12 && stage > 0) || c.flow.dpi_packets < 6 ? Verdict::NeedMore : Verdict::No;
  }
  if (keep ? stage < 2 : c.flow.dissected() < 3) {
    if (keep) *keep = uint8_t((*keep & ~0x0c) | (stage + 1) << 2);
    return Verdict::NeedMore;
  }
  m.app = id(ProtoId::Telnet);
  if (c.info) c.info->state[0] = 0;
  m.more = true;
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(telnet, {"Telnet", id(ProtoId::Telnet), kL4Tcp, 12, classify_telnet});

}  // namespace fg
