// ④ SMB over TCP port 445 (MS-SMB2 §2.1 "Direct TCP transport": a zero byte,
// a 24-bit big-endian length, then the SMB message; MS-CIFS §2.2.3.1 for the
// SMBv1 header "\xFFSMB", MS-SMB2 §2.2.1 for the SMB2/3 header "\xFESMB").
// nDPI's smb.c, on every payload segment, IPv4 or IPv6: either port 445; a
// payload over 40 bytes whose first byte is 0 and whose length field covers
// at least the rest of this segment (the first segment of a longer message
// passes); then "\xFFSMB" is SMBv1, reported NetBIOS.SMBv1 with the
// insecure-SMB risk, except the SMBv1 NEGOTIATE (command 0x72: every client
// offers it, even one that goes on in SMB2) which waits for the next
// message; "\xFESMB" is NetBIOS.SMBv23. Anything else rules SMB out at once.
// nDPI looks for SMB on 445 only: a session on 139 (RFC 1002 session
// service) is not SMB to it (netbios.cpp names its session request only).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kPort = 445;
constexpr size_t kMinPayload = 41;  // nDPI: more than 4 + 32 + 4 bytes

Verdict classify_smb(DpiCtx& c, Match& m) {
  if (c.srv_port != kPort && c.cli_port != kPort) return Verdict::No;
  Bytes b = c.payload;
  if (b.size() < kMinPayload || b[0] != 0) return Verdict::No;
  const size_t len = size_t(b[1]) << 16 | size_t(b[2]) << 8 | b[3];
  if (len < b.size() - 4) return Verdict::No;  // more bytes than the frame says
  if (has_at(b, 4, "\xffSMB")) {
    if (b[8] == 0x72) return Verdict::NeedMore;  // SMB_COM_NEGOTIATE
    m.master = id(ProtoId::NetBIOS), m.app = id(ProtoId::SMBv1);
    c.risk(Risk::SmbInsecure);
    return Verdict::Match;
  }
  if (has_at(b, 4, "\xfeSMB")) {
    m.master = id(ProtoId::NetBIOS), m.app = id(ProtoId::SMBv23);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(smb, {"SMB", id(ProtoId::SMBv23), kL4Tcp, kMaxDpiPackets, classify_smb});

}  // namespace fg
