// ④ SSH (RFC 4253 §4.2): each side opens with an identification line,
// "SSH-protoversion-softwareversion"; the server usually speaks first.
// Metadata: both banners, then each side's KEXINIT (§7.1) for HASSH
// (Salesforce): MD5 of "kex;ciphers;macs;compression", the client's
// client→server lists, the server's server→client lists.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

void read_banner(Bytes b, char* out, size_t cap) {
  size_t e = 0;
  while (e < b.size() && b[e] != '\r' && b[e] != '\n') e++;
  copy_str(out, cap, b.data(), e);
}

// Where the binary packets start after a banner in the same segment.
size_t after_banner(Bytes b) {
  for (size_t i = 0; i < b.size(); i++)
    if (b[i] == '\n') return i + 1;
  return b.size();
}

bool weak_cipher_list(const uint8_t* s, size_t n) {
  // nDPI's obsolete SSH ciphers
  static const char* const kOld[] = {"arcfour256", "arcfour128", "3des-cbc", "blowfish-cbc", "cast128-cbc", "arcfour"};
  for (size_t i = 0; i < n;) {
    size_t e = i;
    while (e < n && s[e] != ',') e++;
    for (const char* k : kOld)
      if (std::strlen(k) == e - i && std::memcmp(s + i, k, e - i) == 0) return true;
    i = e + 1;
  }
  return false;
}

// A KEXINIT at the start of `b`: HASSH of the side's lists.
bool read_kexinit(DpiCtx& c, Bytes b, SshMeta& m, bool client) {
  if (b.size() < 6 + 16) return false;
  size_t plen = load_be32(b.data());
  if (b[5] != 20 || plen < 16 || plen > 35000) return false;
  size_t end = 4 + plen;
  if (end > b.size()) return false;  // cut short: the lists would be incomplete
  size_t off = 6 + 16;
  const uint8_t* list[10];
  size_t len[10];
  for (int i = 0; i < 10; i++) {
    if (off + 4 > end) return false;
    size_t l = load_be32(b.data() + off);
    off += 4;
    if (l > end - off) return false;
    list[i] = b.data() + off, len[i] = l;
    off += l;
  }
  // kex(0) hostkey(1) enc c2s(2) s2c(3) mac c2s(4) s2c(5) comp c2s(6) s2c(7)
  int enc = client ? 2 : 3, mac = client ? 4 : 5, comp = client ? 6 : 7;
  char buf[4096];
  size_t n = 0;
  for (int i : {0, enc, mac, comp}) {
    if (n && n < sizeof(buf)) buf[n++] = ';';
    size_t k = len[i] < sizeof(buf) - n ? len[i] : sizeof(buf) - n;
    std::memcpy(buf + n, list[i], k);
    n += k;
  }
  md5_digest(buf, n, client ? m.hassh_c : m.hassh_s);
  m.flags |= client ? kSshHasshC : kSshHasshS;
  if (weak_cipher_list(list[enc], len[enc])) c.risk(client ? Risk::SshObsoleteClient : Risk::SshObsoleteServer);
  return true;
}

void read_side(DpiCtx& c, SshMeta& m) {
  Bytes b = c.payload;
  char* banner = c.from_client ? m.banner_c : m.banner_s;
  if (b.size() >= 4 && std::memcmp(b.data(), "SSH-", 4) == 0) {
    read_banner(b, banner, sizeof(m.banner_c));
    b = b.subspan(after_banner(b));
  }
  if (!(m.flags & (c.from_client ? kSshHasshC : kSshHasshS))) read_kexinit(c, b, m, c.from_client);
}

Verdict classify_ssh(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) {
    FlowMeta* fm = c.meta(MetaKind::Ssh);
    if (!fm) return Verdict::No;
    read_side(c, fm->ssh);
    return (fm->ssh.flags & (kSshHasshC | kSshHasshS)) == (kSshHasshC | kSshHasshS) ? Verdict::No : Verdict::NeedMore;
  }
  size_t n = b.size() < 4 ? b.size() : 4;
  if (std::memcmp(b.data(), "SSH-", n) != 0) return Verdict::No;
  if (n < 4) return Verdict::NeedMore;  // a banner split after "SS"
  m.app = id(ProtoId::SSH);
  if (FlowMeta* fm = c.meta(MetaKind::Ssh)) {
    read_side(c, fm->ssh);
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ssh, {"SSH", id(ProtoId::SSH), kL4Tcp, 3, classify_ssh});

}  // namespace fg
