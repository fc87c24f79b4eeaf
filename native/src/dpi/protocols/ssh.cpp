// ④ SSH (TCP), following nDPI's src/lib/protocols/ssh.c. RFC 4253 §4.2:
// each side opens with an identification line "SSH-protoversion-software".
//
// Naming: the first payload packet SSH is asked about, whichever side sent
// it, decides: more than 7 bytes opening "SSH-" is SSH, anything else rules
// SSH out. That is the flow's first payload packet, but for one nDPI stops
// before any dissector (a port only the operator's rules give: the next).
// nDPI keeps that first banner as the flow's client signature (even when the
// server spoke first, as servers usually do) and judges its software version
// as the client's (risk SshObsoleteClient).
//
// Reading on, for the 12 packets that follow the match (nDPI counts every
// packet, empty ones too; fewer when the flow's window ends first), by
// nDPI's packet direction (the ports' order, not who opened the flow):
// - from the direction opposite the first banner, until its own banner
//   (8..499 bytes opening "SSH-"): that banner is the server signature, its
//   version judged as the server's; nothing else of that side is read before.
// - otherwise a packet of more than 5 bytes with message code 20 at byte 5
//   (SSH_MSG_KEXINIT, §7.1) gives its direction's HASSH (direction 0 the
//   client's: kex;enc;mac;comp of the client→server lists; direction 1 the
//   server's, server→client lists), and an obsolete cipher in its own
//   encryption list raises that side's risk. A KEXINIT in the banner's own
//   segment is not read. The lists are read against the segment's end, not
//   the packet length; a list that does not fit leaves the HASSH of nothing
//   (MD5 of ""), which still counts as read.
// It stops once both directions' HASSH are read.
// Obsolete versions (nDPI's floors): OpenSSH < 7.0.0, Apache MINA SSHD
// < 2.5.1, FileZilla < 3.40.0, paramiko < 2.4.0, dropbear < 2020.0, read
// from the signature as nDPI's scanf patterns read them. Obsolete ciphers:
// arcfour128, 3des-cbc, blowfish-cbc, cast128-cbc, arcfour (nDPI's list
// also names arcfour256, but a match on it never counts there).
// The signatures are kept as nDPI keeps them: the first 47 bytes of the
// packet, cut at a NUL, trailing CR/LF removed.
// nDPI's probing attempt (ndpi_main.c) is judged when SSH's reading ends or
// the flow is given up: PSH flags both ways, payload from one nDPI direction
// only, no server HASSH. Here the payload directions are those seen while
// reading (frozen when the 12 packets are past, as nDPI's check), the PSH
// flags the flow's whole (ssh_probing_attempt, asked when risks are
// reported): a flag first sent after the reading ended counts here, not in
// nDPI; nor does nDPI judge a flow whose reading the window cut short
// (SSH names the first payload packet, so only after 19 empty ones).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"
#include "dpi/payload.h"
#include "dpi/protocols/ssh.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr size_t kSignatureCap = 48;  // nDPI's signature buffers: 47 characters + NUL
constexpr uint32_t kExtraPackets = 12;
constexpr size_t kMaxServerBanner = 500;
constexpr uint8_t kKexInit = 20;
// FlowInfo::state after the match: total packets at the match, nDPI's
// stage (1 + direction of the first banner; 3 once the other banner came),
// HASSH read and payload seen (bit 0 direction 0's, bit 1 direction 1's).
constexpr size_t kAtMatch = 0, kStage = 1, kHasshRead = 2, kPayloadDirs = 3;
constexpr uint8_t kBothBanners = 3;

// The signature nDPI keeps of a banner packet (see above); its length.
size_t signature(Bytes b, char (&out)[kSignatureCap]) {
  const size_t n = std::min(b.size(), kSignatureCap - 1);
  size_t k = 0;
  while (k < n && b[k]) out[k] = char(b[k]), k++;
  std::memset(out + k, 0, kSignatureCap - k);
  // trailing line ends, looked for from the copy's last position down to
  // the second character (a NUL there stops it)
  for (size_t e = n; e > 1 && (out[e - 1] == '\r' || out[e - 1] == '\n'); e--) out[e - 1] = 0;
  return std::strlen(out);
}

// The software version the signature names is below nDPI's floor for it.
bool obsolete_version_read(const char* sig) {
  struct Floor {
    const char* form;
    const char* mark;  // the form's literal after the float: without it, no form can read two numbers
    int v[3];
  };
  static const Floor kFloors[] = {
      {"SSH-%*f-OpenSSH_%d.%d.%d", "-OpenSSH_", {7, 0, 0}},          {"SSH-%*f-APACHE-SSHD-%d.%d.%d", "-APACHE-SSHD-", {2, 5, 1}},
      {"SSH-%*f-FileZilla_%d.%d.%d", "-FileZilla_", {3, 40, 0}},     {"SSH-%*f-paramiko_%d.%d.%d", "-paramiko_", {2, 4, 0}},
      {"SSH-%*f-dropbear_%d.%d", "-dropbear_", {2020, 0, 0}},
  };
  for (const Floor& f : kFloors) {
    // sscanf costs ~2,000 instructions a call: asked only where it can match
    if (!std::strstr(sig, f.mark)) continue;
    int v[3] = {0, 0, 0};
    const int got = std::sscanf(sig, f.form, &v[0], &v[1], &v[2]);
    if (got != 2 && got != 3) continue;  // the first form read (two numbers at least) is the one judged
    return std::lexicographical_compare(v, v + 3, f.v, f.v + 3);
  }
  return false;
}

// The same, remembered: a link's banners come from a few builds, and the
// reading above costs ~2,000 instructions (sscanf). The last verdicts per
// worker thread, by the whole signature.
bool obsolete_version(const char* sig) {
  struct Verdict {
    char sig[kSignatureCap];
    bool old;
  };
  static thread_local Verdict seen[8];
  static thread_local unsigned next = 0;
  const size_t n = std::strlen(sig);
  if (n >= kSignatureCap) return obsolete_version_read(sig);  // not a signature() copy: not kept
  for (const Verdict& v : seen)
    if (std::memcmp(v.sig, sig, n + 1) == 0) return v.old;
  Verdict& v = seen[next++ & 7];
  std::memcpy(v.sig, sig, n + 1);
  return v.old = obsolete_version_read(sig);
}

// An obsolete cipher among the comma-separated names (up to a NUL).
bool obsolete_cipher(const uint8_t* s, size_t n) {
  static constexpr std::string_view kOld[] = {"arcfour128", "3des-cbc", "blowfish-cbc", "cast128-cbc", "arcfour"};
  if (const void* nul = std::memchr(s, 0, n)) n = size_t(static_cast<const uint8_t*>(nul) - s);
  const std::string_view all(reinterpret_cast<const char*>(s), n);
  for (size_t i = 0; i <= all.size();) {
    size_t e = all.find(',', i);
    if (e == std::string_view::npos) e = all.size();
    const std::string_view name = all.substr(i, e - i);
    for (std::string_view k : kOld)
      if (name == k) return true;
    i = e + 1;
  }
  return false;
}

// nDPI's HASSH input from a KEXINIT at the segment's start: kex;enc;mac;comp
// of one side's lists (client: the client→server ones). Lists are read
// after the 4-byte length, padding length, code and 16-byte cookie; each
// name list's length is checked only as nDPI checks it: every list start
// must lie 4 bytes before the segment's end, a list of the side's own must
// end 2 bytes before it, others are only capped at 65565. Empty on failure.
// Raises the side's obsolete-cipher risk from its encryption list. Built in
// `out`, a per-thread buffer kept between calls (no allocation per KEXINIT).
void hassh_input(const DpiCtx& c, Bytes b, bool client, std::string& out) {
  const size_t n = b.size();
  const size_t last = n - 4;  // a list's length must start before this
  constexpr uint32_t kCap = 65565;
  out.clear();
  size_t off = 22;
  // lists 0 kex, 1 host key, 2/3 enc c→s / s→c, 4/5 mac, 6/7 compression
  for (int i = 0; i < 8; i++) {
    if (off >= last) return out.clear();
    const uint32_t len = load_be32(b.data() + off);
    off += 4;
    const bool own = i == 0 || (i >= 2 && (i % 2 == 0) == client);
    if (own) {
      if (off >= n || len >= n - off - 1) return out.clear();
      // copied as strncpy copies: a NUL ends the text, zeros fill the rest
      const uint8_t* s = b.data() + off;
      const void* nul = std::memchr(s, 0, len);
      const size_t text = nul ? size_t(static_cast<const uint8_t*>(nul) - s) : len;
      out.append(reinterpret_cast<const char*>(s), text);
      out.append(len - text, '\0');
      if (i < 6) out.push_back(';');
      if ((i == 2 || i == 3) && obsolete_cipher(s, len)) c.risk(client ? Risk::SshObsoleteClient : Risk::SshObsoleteServer);
    } else if (i != 0 && len > kCap) {
      return out.clear();
    }
    off += len;
    if (i == 7) break;
  }
}

void read_kexinit(const DpiCtx& c, Bytes b, uint8_t dir, uint8_t* st) {
  const bool client = dir == 0;
  static thread_local std::string in;
  hassh_input(c, b, client, in);
  st[kHasshRead] |= uint8_t(1u << dir);
  if (FlowMeta* fm = c.meta(MetaKind::Ssh)) {
    md5_digest(in.data(), in.size(), client ? fm->ssh.hassh_c : fm->ssh.hassh_s);
    fm->ssh.flags |= client ? kSshHasshC : kSshHasshS;
  }
}

Verdict read_on(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  uint8_t* st = c.info->state;
  const uint32_t seen = c.flow.pkts[0] + c.flow.pkts[1];
  if (seen > st[kAtMatch] + kExtraPackets) return Verdict::No;
  const Bytes b = c.payload;
  const uint8_t dir = ndpi_direction(c.p);
  st[kPayloadDirs] |= uint8_t(1u << dir);
  if (st[kStage] == 2 - dir) {
    // the other side's banner (nDPI's server signature)
    if (b.size() > 7 && b.size() < kMaxServerBanner && has_at(b, 0, "SSH-")) {
      char sig[kSignatureCap];
      signature(b, sig);
      if (obsolete_version(sig)) c.risk(Risk::SshObsoleteServer);
      if (FlowMeta* fm = c.meta(MetaKind::Ssh)) c.set_meta_str(fm->ssh.banner_s, kBannerCap, sig, std::strlen(sig));
      st[kStage] = kBothBanners;
    }
  } else if (b.size() > 5 && b[5] == kKexInit) {
    read_kexinit(c, b, dir, st);
  }
  if (st[kHasshRead] == 3 || seen >= st[kAtMatch] + kExtraPackets) return Verdict::No;
  return Verdict::NeedMore;
}

Verdict classify_ssh(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  const Bytes b = c.payload;
  if (b.size() <= 7 || !has_at(b, 0, "SSH-")) return Verdict::No;
  m.app = id(ProtoId::SSH);
  char sig[kSignatureCap];
  signature(b, sig);
  if (obsolete_version(sig)) c.risk(Risk::SshObsoleteClient);
  if (FlowMeta* fm = c.meta(MetaKind::Ssh)) c.set_meta_str(fm->ssh.banner_c, kBannerCap, sig, std::strlen(sig));
  if (c.info) {
    // the dispatcher's mask in these bytes is dead once the flow is named
    uint8_t* st = c.info->state;
    st[kAtMatch] = uint8_t(std::min<uint32_t>(255, c.flow.pkts[0] + c.flow.pkts[1]));
    const uint8_t dir = ndpi_direction(c.p);
    st[kStage] = uint8_t(1 + dir);
    st[kHasshRead] = 0;
    st[kPayloadDirs] = uint8_t(1u << dir);
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

bool ssh_unanswered(const FlowInfo& fi) { return fi.state[kPayloadDirs] != 3 && !(fi.state[kHasshRead] & 2); }

bool ssh_probing_attempt(const Flow& f, bool unanswered) {
  if (f.key.proto != kProtoTcp || !(f.tcp_flags[0] & kPsh) || !(f.tcp_flags[1] & kPsh)) return false;
  // IPv6 with equal ports: every packet is nDPI's direction 1, direction 0
  // never has a flag
  if (ndpi_one_sided(f)) return false;
  return unanswered;
}

FG_DISSECTOR(ssh, {"SSH", id(ProtoId::SSH), kL4Tcp, kMaxDpiPackets, classify_ssh});

}  // namespace fg
