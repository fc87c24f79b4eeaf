#include "dpi/tls_parse.h"

#include "dpi/fingerprints.h"

#define OPENSSL_SUPPRESS_DEPRECATED
#include <arpa/inet.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <strings.h>

namespace fg {

namespace {

// A bounds-checked cursor over a byte span.
struct Reader {
  const uint8_t* p;
  size_t n, off = 0;
  bool ok = true;
  bool has(size_t k) const { return ok && n - off >= k && off <= n; }
  uint8_t u8() {
    if (!has(1)) return ok = false, 0;
    return p[off++];
  }
  uint16_t u16() {
    if (!has(2)) return ok = false, 0;
    uint16_t v = load_be16(p + off);
    off += 2;
    return v;
  }
  uint32_t u24() {
    if (!has(3)) return ok = false, 0;
    uint32_t v = uint32_t(p[off]) << 16 | uint32_t(p[off + 1]) << 8 | p[off + 2];
    off += 3;
    return v;
  }
  void skip(size_t k) {
    if (!has(k)) ok = false, off = n;
    else off += k;
  }
};

// MD5 and SHA-256 on OpenSSL's low-level functions (deprecated in OpenSSL 3,
// still exported by node): EVP's digest calls went through the provider's
// parameter lookups on every hello.
void digest(const char* name, const void* data, size_t n, uint8_t* out) {
  if (name[0] == 'M') {
    MD5_CTX c;
    MD5_Init(&c);
    MD5_Update(&c, data, n);
    MD5_Final(out, &c);
  } else {
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, data, n);
    SHA256_Final(out, &c);
  }
}

// A small text builder that never overflows (the string is then cut short,
// which only happens with absurd hellos).
struct Text {
  char buf[2048];
  size_t n = 0;
  void put(const char* s, size_t k) {
    if (k > sizeof(buf) - n) k = sizeof(buf) - n;
    std::memcpy(buf + n, s, k);
    n += k;
  }
  void chr(char c) { put(&c, 1); }
  // Digits by hand: snprintf here cost ~9 % of the whole pipeline (a
  // JA3 string has ~60 numbers per ClientHello).
  void dec(unsigned v) {
    char t[12];
    size_t k = sizeof(t);
    do t[--k] = char('0' + v % 10), v /= 10;
    while (v);
    put(t + k, sizeof(t) - k);
  }
  void hex4(unsigned v) {
    static const char kHex[] = "0123456789abcdef";
    char t[4] = {kHex[(v >> 12) & 15], kHex[(v >> 8) & 15], kHex[(v >> 4) & 15], kHex[v & 15]};
    put(t, 4);
  }
};

void dec_list(Text& t, const uint16_t* v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i) t.chr('-');
    t.dec(v[i]);
  }
}

void hex_list(Text& t, const uint16_t* v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i) t.chr(',');
    t.hex4(v[i]);
  }
}

// JA4's b and c: the SHA-256's first 6 bytes (12 hex digits in the text)
void hash12(const Text& t, uint8_t* out) {
  uint8_t h[32];
  sha256_digest(t.buf, t.n, h);
  std::memcpy(out, h, 6);
}

bool alnum(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

constexpr size_t kMaxList = 128;

}  // namespace

void md5_digest(const void* data, size_t n, uint8_t out[16]) { digest("MD5", data, n, out); }
void sha1_digest(const void* data, size_t n, uint8_t out[20]) {
  SHA_CTX c;
  SHA1_Init(&c);
  SHA1_Update(&c, data, n);
  SHA1_Final(out, &c);
}
void sha256_digest(const void* data, size_t n, uint8_t out[32]) { digest("SHA256", data, n, out); }

bool tls_suspicious_extension(uint16_t id, bool dtls) {
  static constexpr uint16_t kKnown[] = {
      65486, 13172, 17513, 30032, 65445,                                  // ESNI, NPN, ALPS, Channel ID, QUIC
      2570, 6682, 10794, 14906, 19018, 23130, 27242, 31354, 35466, 39578,  // GREASE
      43690, 47802, 51914, 56026, 60138, 64250,
      1035, 16696,                                                        // groups
      102, 129, 52243, 52244, 57363, 65279, 65413,                        // ciphers
      65037,                                                              // ECH
  };
  if (id > 59 && id != 65281) {
    for (uint16_t k : kKnown)
      if (k == id) return false;
    return true;
  }
  return !dtls && (id == 53 || id == 54);
}

bool tls_read_client_hello(Bytes hs, HelloTransport tr, TlsMeta& t, HelloFacts& facts) {
  Reader r{hs.data(), hs.size()};
  if (r.u8() != 0x01) return false;
  size_t msg_len = r.u24();
  if (tr == HelloTransport::Dtls) r.skip(8);  // message_seq, fragment_offset, fragment_length
  const size_t body = r.off;
  const size_t end = std::min(hs.size(), body + msg_len);
  facts.complete = hs.size() >= body + msg_len;
  r.n = end;
  uint16_t legacy = r.u16();
  facts.legacy_version = legacy;
  r.skip(32);
  r.skip(r.u8());                              // session id
  if (tr == HelloTransport::Dtls) r.skip(r.u8());  // cookie
  if (!r.ok) return false;
  uint16_t ciphers[kMaxList];
  size_t nc = 0;
  size_t cs_len = r.u16();
  for (size_t k = 0; k + 1 < cs_len && r.has(2); k += 2) {
    uint16_t c = r.u16();
    if (!tls_grease(c) && nc < kMaxList) ciphers[nc++] = c;
  }
  if (!r.ok) return false;
  r.off = std::min(r.n, r.off + (cs_len & 1));
  r.skip(r.u8());  // compression methods
  uint16_t exts[kMaxList], groups[kMaxList], sigs[kMaxList];
  uint8_t points[32];
  size_t ne = 0, ng = 0, ns = 0, np = 0;
  uint16_t best_version = 0;
  const uint8_t* alpn = nullptr;
  size_t alpn_len = 0;
  if (r.has(2)) {
    size_t ext_end = r.off + 2 + load_be16(r.p + r.off);
    const size_t declared_end = ext_end;
    r.off += 2;
    // nDPI checks the extensions only when their block fits in the message
    const bool checked = ext_end <= r.n;
    // Past the message's end: a hello cut short by its segment (complete is
    // false already) or a malformed one, read as far as it goes and judged.
    if (ext_end > r.n) ext_end = r.n;
    while (r.off + 4 <= ext_end) {
      uint16_t type = r.u16(), len = r.u16();
      // nDPI's checkExtensions: one running past the message, or an odd id
      if (checked && (r.off + len > r.n || tls_suspicious_extension(type, tr == HelloTransport::Dtls))) facts.susp_ext = true;
      if (r.off + len > ext_end) {
        if (!tls_grease(type) && ne < kMaxList) exts[ne++] = type;
        // A padding is told by its header: the hello's later segments (which
        // nDPI gathers before reading it) hold only its zeros. When it is
        // the last extension of a block that ends the message, nothing the
        // checks and fingerprints read is missing: the hello counts as whole.
        if (type == 0x0015) {
          if (len > 500) facts.long_padding = true;
          if (r.off + len == declared_end && declared_end == body + msg_len) facts.complete = true;
        }
        break;
      }
      Reader e{r.p, r.off + len, r.off};
      r.off += len;
      if (tls_grease(type)) continue;
      if (ne < kMaxList) exts[ne++] = type;
      switch (type) {
        case 0x0000: {  // server_name
          e.u16();
          if (e.u8() == 0) {
            size_t l = e.u16();
            if (e.ok && e.has(l)) facts.sni = reinterpret_cast<const char*>(e.p + e.off), facts.sni_len = l;
          }
          facts.has_sni = true;
          break;
        }
        case 0x000a: {  // supported_groups
          size_t l = e.u16();
          for (size_t k = 0; k + 1 < l && e.has(2); k += 2) {
            uint16_t g = e.u16();
            if (!tls_grease(g) && ng < kMaxList) groups[ng++] = g;
          }
          break;
        }
        case 0x000b: {  // ec_point_formats
          size_t l = e.u8();
          for (size_t k = 0; k < l && e.has(1); k++) {
            uint8_t f = e.u8();
            if (np < sizeof(points)) points[np++] = f;
          }
          break;
        }
        case 0x000d: {  // signature_algorithms
          size_t l = e.u16();
          for (size_t k = 0; k + 1 < l && e.has(2); k += 2) {
            uint16_t s = e.u16();
            if (!tls_grease(s) && ns < kMaxList) sigs[ns++] = s;
          }
          break;
        }
        case 0x0010: {  // ALPN: list length, then (length, name)…
          facts.has_alpn = true;
          const size_t list = e.u16();
          // nDPI bounds the list by its own length and the hello's end only
          if (e.ok) facts.alpn_list = e.p + e.off, facts.alpn_list_len = std::min(list, r.n - e.off);
          size_t l = e.u8();
          if (e.ok && l && e.has(l)) alpn = e.p + e.off, alpn_len = l;
          break;
        }
        case 0xffce: {  // encrypted_server_name (ESNI drafts), read as nDPI does
          const size_t n = r.n, start = e.off;
          size_t o = start + 4;  // cipher suite, key share group
          if (o + 2 < n) {
            o += load_be16(r.p + o) + 2;  // key exchange
            if (o + 4 < n) {
              o += load_be16(r.p + o) + 2;  // record digest
              if (o + 4 < n) {
                const size_t esni_len = load_be16(r.p + o);
                o += 2;
                if (o + esni_len >= start + len && o + esni_len < n) facts.esni = true;
              }
            }
          }
          break;
        }
        case 0x000e:  // use_srtp
          facts.use_srtp = true;
          break;
        case 0x0039:
        case 0xffa5:  // QUIC transport parameters
          if (!facts.quic_tp) facts.quic_tp = e.p + e.off, facts.quic_tp_len = len;
          break;
        case 0x0015:  // padding: nDPI reads a long one as a way to force odd fragmentation
          if (len > 500) facts.long_padding = true;
          break;
        case 0x002b: {  // supported_versions
          size_t l = e.u8();
          for (size_t k = 0; k + 1 < l && e.has(2); k += 2) {
            uint16_t v = e.u16();
            if (!tls_grease(v) && v > best_version) best_version = v;
          }
          break;
        }
        default: break;
      }
    }
  }
  t.flags |= kTlsClientHello;
  t.client_version = best_version ? best_version : legacy;
  facts.alpn = alpn, facts.alpn_len = alpn_len;
  if (facts.has_alpn) t.flags |= kTlsAlpnOffered;
  if (!facts.complete) return true;

  // Client stacks are few (browsers, OS libraries): JA3/JA4 of a hello whose
  // every input matches a recent one are copied, not rebuilt and digested
  // (the strings and three digests were ~8 % of the worker on the bench).
  // The key is a 64-bit mix of all those inputs.
  uint64_t key = mix64(uint64_t(legacy) << 48 ^ uint64_t(best_version) << 32 ^ uint64_t(uint8_t(tr)) << 24 ^
                       uint64_t(facts.has_sni) << 16 ^ (alpn ? uint64_t(alpn[0]) << 8 | alpn[alpn_len - 1] : 0x10000));
  auto mix_list = [&key](const uint16_t* v, size_t n) {
    key = mix64(key ^ (n + 0x9e37));
    for (size_t i = 0; i < n; i++) key = mix64(key ^ v[i]);
  };
  mix_list(ciphers, nc);
  mix_list(exts, ne);
  mix_list(groups, ng);
  mix_list(sigs, ns);
  key = mix64(key ^ np);
  for (size_t i = 0; i < np; i++) key = mix64(key ^ points[i]);
  struct FpEntry {
    uint64_t key;
    uint8_t ja3c[16];
    TlsMeta::Ja4 ja4;
  };
  static thread_local FpEntry fp_cache[256] = {};
  FpEntry& hit = fp_cache[key & 255];
  if (key && hit.key == key) {
    std::memcpy(t.ja3c, hit.ja3c, sizeof(t.ja3c));
    t.ja4 = hit.ja4;
    t.flags |= kTlsJa3c;
    return true;
  }

  // JA3: version,ciphers,extensions,groups,point formats (decimal, GREASE out).
  Text j;
  j.dec(legacy);
  j.chr(',');
  dec_list(j, ciphers, nc);
  j.chr(',');
  dec_list(j, exts, ne);
  j.chr(',');
  dec_list(j, groups, ng);
  j.chr(',');
  for (size_t i = 0; i < np; i++) {
    if (i) j.chr('-');
    j.dec(points[i]);
  }
  md5_digest(j.buf, j.n, t.ja3c);
  t.flags |= kTlsJa3c;

  // JA4 (FoxIO): a_b_c.
  char* a = t.ja4.a;
  a[0] = tr == HelloTransport::Quic ? 'q' : tr == HelloTransport::Dtls ? 'd' : 't';
  const uint16_t v = best_version ? best_version : legacy;
  const char* vs = "00";
  switch (v) {
    case 0x0304: vs = "13"; break;
    case 0x0303: vs = "12"; break;
    case 0x0302: vs = "11"; break;
    case 0x0301: vs = "10"; break;
    case 0x0300: vs = "s3"; break;
    case 0x0002: vs = "s2"; break;
    case 0xfeff: vs = "d1"; break;
    case 0xfefd: vs = "d2"; break;
    case 0xfefc: vs = "d3"; break;
    default: break;
  }
  a[1] = vs[0], a[2] = vs[1];
  a[3] = facts.has_sni ? 'd' : 'i';
  size_t c99 = nc > 99 ? 99 : nc, e99 = ne > 99 ? 99 : ne;
  a[4] = char('0' + c99 / 10), a[5] = char('0' + c99 % 10);
  a[6] = char('0' + e99 / 10), a[7] = char('0' + e99 % 10);
  if (!alpn) {
    a[8] = '0', a[9] = '0';
  } else if (alnum(alpn[0]) && alnum(alpn[alpn_len - 1])) {
    a[8] = char(alpn[0]), a[9] = char(alpn[alpn_len - 1]);
  } else {  // first and last characters of the value's hex form
    static const char kHex[] = "0123456789abcdef";
    a[8] = kHex[alpn[0] >> 4], a[9] = kHex[alpn[alpn_len - 1] & 15];
  }
  std::sort(ciphers, ciphers + nc);
  Text b;
  hex_list(b, ciphers, nc);
  if (nc) hash12(b, t.ja4.b);
  else std::memset(t.ja4.b, 0, 6);  // "000000000000"
  uint16_t ext_sorted[kMaxList];
  size_t nx = 0;
  for (size_t i = 0; i < ne; i++)
    if (exts[i] != 0x0000 && exts[i] != 0x0010) ext_sorted[nx++] = exts[i];
  std::sort(ext_sorted, ext_sorted + nx);
  Text c;
  hex_list(c, ext_sorted, nx);
  if (ns) {
    c.chr('_');
    hex_list(c, sigs, ns);
  }
  if (ne) hash12(c, t.ja4.c);
  else std::memset(t.ja4.c, 0, 6);
  hit.key = key;
  std::memcpy(hit.ja3c, t.ja3c, sizeof(hit.ja3c));
  hit.ja4 = t.ja4;
  return true;
}

bool tls_read_server_hello(Bytes hs, TlsMeta& t, Bytes* alpn, bool* uncommon_alpn, bool* susp_ext, bool dtls) {
  Reader r{hs.data(), hs.size()};
  if (r.u8() != 0x02) return false;
  size_t msg_len = r.u24();
  bool complete = hs.size() >= 4 + msg_len;
  r.n = std::min(hs.size(), 4 + msg_len);
  uint16_t legacy = r.u16();
  r.skip(32);
  r.skip(r.u8());
  uint16_t cipher = r.u16();
  r.u8();
  if (!r.ok) return false;
  t.flags |= kTlsServerHello;
  t.version = legacy;
  t.cipher = cipher;
  uint16_t exts[kMaxList];
  size_t ne = 0;
  if (r.has(2)) {
    size_t ext_end = r.off + 2 + load_be16(r.p + r.off);
    r.off += 2;
    if (ext_end > r.n) ext_end = r.n, complete = false;
    while (r.off + 4 <= ext_end) {
      uint16_t type = r.u16(), len = r.u16();
      if (r.off + len > ext_end) {
        complete = false;
        break;
      }
      Reader e{r.p, r.off + len, r.off};
      r.off += len;
      if (ne < kMaxList) exts[ne++] = type;
      if (susp_ext && tls_suspicious_extension(type, dtls)) *susp_ext = true;
      if (type == 0x002b && len == 2) t.version = e.u16();  // TLS 1.3's real version
      if (type == 0x0010) {
        const size_t list = e.u16();
        const size_t at = e.off;
        size_t l = e.u8();
        if (e.ok && e.has(l) && alpn) *alpn = Bytes(e.p + e.off, l);
        // nDPI's walk of the server's list, within the extension
        if (uncommon_alpn && at <= e.n) *uncommon_alpn = tls_uncommon_alpns(e.p + at, std::min(list, e.n - at));
      }
    }
  }
  if (complete) {
    Text j;
    j.dec(legacy);
    j.chr(',');
    j.dec(cipher);
    j.chr(',');
    dec_list(j, exts, ne);
    md5_digest(j.buf, j.n, t.ja3s);
    t.flags |= kTlsJa3s;
  }
  return true;
}

namespace {

// One DER element: tag, then the content span [off, end).
struct Der {
  uint8_t tag = 0;
  size_t off = 0, end = 0;
};

bool der_next(const uint8_t* p, size_t n, size_t& at, Der& d) {
  if (at + 2 > n) return false;
  d.tag = p[at];
  size_t len = p[at + 1], hdr = 2;
  if (len & 0x80) {
    size_t k = len & 0x7f;
    if (k == 0 || k > 3 || at + 2 + k > n) return false;
    len = 0;
    for (size_t i = 0; i < k; i++) len = len << 8 | p[at + 2 + i];
    hdr += k;
  }
  d.off = at + hdr;
  d.end = d.off + len;  // may run past n when the certificate is cut short
  at = d.end;
  return true;
}

// "C=US, O=Let's Encrypt, CN=R3": the attributes nDPI names, in order.
void der_name(const uint8_t* p, size_t n, const Der& name, char* out, size_t cap) {
  size_t len = 0;
  out[0] = 0;
  size_t at = name.off, end = std::min(name.end, n);
  Der set, seq, oid, val;
  while (at < end && der_next(p, end, at, set)) {
    size_t s = set.off;
    if (!der_next(p, std::min(set.end, end), s, seq)) break;
    size_t q = seq.off;
    size_t qend = std::min(seq.end, end);
    if (!der_next(p, qend, q, oid) || oid.tag != 0x06 || !der_next(p, qend, q, val) || val.end > qend) continue;
    // id-at-*: 2.5.4.x
    if (oid.end - oid.off != 3 || p[oid.off] != 0x55 || p[oid.off + 1] != 0x04) continue;
    const char* key = nullptr;
    switch (p[oid.off + 2]) {
      case 3: key = "CN"; break;
      case 6: key = "C"; break;
      case 7: key = "L"; break;
      case 8: key = "ST"; break;
      case 10: key = "O"; break;
      case 11: key = "OU"; break;
      default: break;
    }
    if (!key) continue;
    char item[160];
    int k = std::snprintf(item, sizeof(item), "%s%s=%.*s", len ? ", " : "", key, int(std::min<size_t>(val.end - val.off, 120)),
                          reinterpret_cast<const char*>(p + val.off));
    if (k <= 0) continue;
    size_t take = std::min(size_t(k), cap - 1 - len);
    std::memcpy(out + len, item, take);
    len += take;
    out[len] = 0;
    if (len + 1 >= cap) break;
  }
  for (size_t i = 0; i < len; i++)
    if (uint8_t(out[i]) < 0x20 || uint8_t(out[i]) >= 0x7f) out[i] = '?';  // keep the text printable
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + int64_t(doe) - 719468;
}

// UTCTime (YYMMDDhhmm[ss]Z) or GeneralizedTime (YYYYMMDDhhmm[ss]Z) → epoch seconds.
bool der_time(const uint8_t* p, const Der& d, int64_t& out) {
  size_t len = d.end - d.off;
  const uint8_t* s = p + d.off;
  auto num = [&](size_t i, size_t k) {
    int v = 0;
    for (size_t j = 0; j < k; j++) {
      if (s[i + j] < '0' || s[i + j] > '9') return -1;
      v = v * 10 + (s[i + j] - '0');
    }
    return v;
  };
  int y;
  size_t i;
  if (d.tag == 0x17 && len >= 11) {
    y = num(0, 2);
    if (y < 0) return false;
    y += y < 69 ? 2000 : 1900;  // strptime's %y, as nDPI reads it
    i = 2;
  } else if (d.tag == 0x18 && len >= 13) {
    y = num(0, 4);
    i = 4;
  } else {
    return false;
  }
  int mo = num(i, 2), da = num(i + 2, 2), h = num(i + 4, 2), mi = num(i + 6, 2);
  int se = len >= i + 10 && s[i + 8] != 'Z' ? num(i + 8, 2) : 0;
  if (y < 0 || mo < 1 || mo > 12 || da < 1 || da > 31 || h < 0 || mi < 0 || se < 0) return false;
  out = days_from_civil(y, unsigned(mo), unsigned(da)) * 86400 + h * 3600 + mi * 60 + se;
  return true;
}

// The dNSNames of the subjectAltName extension (2.5.29.17), to `on_name`.
// nDPI matches those only, not the subject's CN (a certificate without
// subjectAltName is left to the subject DN list).
void cert_names(const uint8_t* p, size_t n, size_t at, size_t tbs_end, CertNameFn on_name, void* ctx) {
  // subjectPublicKeyInfo, then optional [1] [2] unique ids and [3] extensions.
  const size_t end = std::min(tbs_end, n);
  Der el;
  while (at < end && der_next(p, end, at, el)) {
    if (el.tag != 0xa3) continue;
    size_t e = el.off;
    Der exts, ext;
    if (!der_next(p, end, e, exts) || exts.tag != 0x30) return;
    size_t x = exts.off;
    const size_t xend = std::min(exts.end, end);
    while (x < xend && der_next(p, xend, x, ext)) {
      size_t y = ext.off;
      const size_t yend = std::min(ext.end, xend);
      Der id, v;
      if (!der_next(p, yend, y, id) || id.tag != 0x06) continue;
      if (id.end - id.off != 3 || p[id.off] != 0x55 || p[id.off + 1] != 0x1d || p[id.off + 2] != 0x11) continue;
      if (!der_next(p, yend, y, v)) continue;
      if (v.tag == 0x01 && !der_next(p, yend, y, v)) continue;  // critical
      if (v.tag != 0x04) continue;
      size_t g = v.off;
      Der names, name;
      if (!der_next(p, yend, g, names) || names.tag != 0x30) continue;
      size_t k = names.off;
      const size_t kend = std::min(names.end, yend);
      if (on_name(ctx, "", 0)) return;  // the extension is there
      // nDPI reads rfc822Name, dNSName and iPAddress entries (an address as
      // text) and stops at any other kind or an empty one.
      while (k < kend && der_next(p, kend, k, name)) {
        if (name.end > kend || name.end == name.off) break;
        const char* s = reinterpret_cast<const char*>(p + name.off);
        size_t len = name.end - name.off;
        char ip[64];
        if (name.tag == 0x87) {
          if (len == 4) len = size_t(std::snprintf(ip, sizeof(ip), "%u.%u.%u.%u", p[name.off], p[name.off + 1], p[name.off + 2], p[name.off + 3]));
          else if (len != 16 || !inet_ntop(AF_INET6, p + name.off, ip, sizeof(ip))) ip[0] = 0, len = 0;
          else len = std::strlen(ip);
          s = ip;
        } else if (name.tag != 0x81 && name.tag != 0x82) {
          break;
        }
        if (on_name(ctx, s, len)) return;
      }
      return;
    }
    return;
  }
}

}  // namespace

bool tls_first_cert_malicious(Bytes body) {
  if (body.size() < 6) return false;
  const size_t len = size_t(body[3]) << 16 | size_t(body[4]) << 8 | body[5];
  if (!len || body.size() - 6 < len) return false;  // cut short: not the certificate's digest
  uint8_t h[20];
  sha1_digest(body.data() + 6, len, h);
  return malicious_cert_sha1(h);
}

bool tls_read_certificate(Bytes body, TlsMeta& t, TlsCert& out, CertNameFn on_name, void* ctx, char* subject_dn, size_t dn_cap) {
  if (subject_dn && dn_cap) subject_dn[0] = 0;
  Reader r{body.data(), body.size()};
  r.u24();                 // certificate_list length
  size_t len = r.u24();    // first certificate
  if (!r.ok || len < 16) return false;
  const uint8_t* p = body.data() + r.off;
  size_t n = std::min(body.size() - r.off, len);
  size_t at = 0;
  Der cert, tbs, el;
  if (!der_next(p, n, at, cert) || cert.tag != 0x30) return false;
  at = cert.off;
  if (!der_next(p, n, at, tbs) || tbs.tag != 0x30) return false;
  at = tbs.off;
  if (!der_next(p, n, at, el)) return false;
  if (el.tag == 0xa0 && !der_next(p, n, at, el)) return false;  // [0] version, then serial
  Der sig, issuer, validity, subject;
  if (!der_next(p, n, at, sig) || !der_next(p, n, at, issuer) || issuer.tag != 0x30) return false;
  t.flags |= kTlsCert;
  char issuer_dn[256] = "";
  if (issuer.end <= n) {
    der_name(p, n, issuer, issuer_dn, sizeof(issuer_dn));
    copy_str(out.issuer, sizeof(out.issuer), issuer_dn, std::strlen(issuer_dn));
  }
  if (!der_next(p, n, at, validity) || validity.tag != 0x30 || validity.end > n) return true;
  size_t v = validity.off;
  Der nb, na;
  // nDPI finds the validity by its bytes (a 30-byte SEQUENCE opening with a
  // UTCTime) and reads two "YYMMDDhhmmssZ" times: a GeneralizedTime (dates
  // from 2050 on) leaves the certificate without dates, hence without the
  // expiry and lifetime risks.
  // It is also there that nDPI closes the issuer's name: without it, the
  // issuer's and the subject's attributes make one "subject" (for its
  // subject list) and there is no issuer, so no self-signed verdict.
  const bool utc_pair = validity.end - validity.off == 30 && der_next(p, n, v, nb) && nb.tag == 0x17 && nb.end - nb.off == 13 &&
                        nb.end <= n && der_next(p, n, v, na) && na.tag == 0x17 && na.end - na.off == 13 && na.end <= n;
  if (utc_pair) {
    int64_t a = 0, b = 0;
    if (der_time(p, nb, a) && der_time(p, na, b)) out.not_before = a, out.not_after = b;
  }
  if (der_next(p, n, at, subject) && subject.tag == 0x30 && subject.end <= n) {
    char dn[256];
    der_name(p, n, subject, dn, sizeof(dn));
    copy_str(out.subject, sizeof(out.subject), dn, std::strlen(dn));
    if (subject_dn && dn_cap) {
      if (utc_pair || !issuer_dn[0]) {
        copy_str(subject_dn, dn_cap, dn, std::strlen(dn));
      } else {
        char both[512];
        const int k = std::snprintf(both, sizeof(both), "%s%s%s", issuer_dn, dn[0] ? ", " : "", dn);
        copy_str(subject_dn, dn_cap, both, k > 0 ? std::min(size_t(k), sizeof(both) - 1) : 0);
      }
    }
    // Self-signed: the whole names alike (the kept copies are cut short).
    if (utc_pair && issuer_dn[0] && std::strcmp(issuer_dn, dn) == 0) t.flags |= kTlsSelfSigned;
    if (on_name) cert_names(p, n, at, tbs.end, on_name, ctx);
  }
  return true;
}

// nDPI's common ALPN list (load_common_alpns); anything else offered is an
// uncommon ALPN.
constexpr std::string_view kCommonAlpns[] = {
    "http/0.9", "http/1.0", "http/1.1", "spdy/1", "spdy/2", "spdy/3", "spdy/3.1", "stun.turn", "stun.nat-discovery",
    "h2", "h2c", "h2-16", "h2-15", "h2-14", "h2-fb", "webrtc", "c-webrtc", "ftp", "imap", "pop3", "managesieve", "coap",
    "xmpp-client", "xmpp-server", "acme-tls/1", "mqtt", "dot", "ntske/1", "sunrpc", "h3", "smb", "irc",
    "h3-T051", "h3-T050", "h3-34", "h3-33", "h3-32", "h3-31", "h3-30", "h3-29", "h3-28", "h3-27", "h3-24", "h3-22",
    "hq-34", "hq-33", "hq-32", "hq-31", "hq-30", "hq-29", "hq-28", "hq-27", "hq-interop", "h3-fb-05", "h1q-fb",
    "doq-i00", "apns-security-v3", "apns-pack-v1",
};

// nDPI matches with its host-name automaton (case-insensitive): the whole
// value, or a listed name right after a dot.
bool tls_common_alpn(const uint8_t* a, size_t n) {
  const char* s = reinterpret_cast<const char*>(a);
  const void* dot = n ? std::memchr(s, '.', n) : nullptr;  // no dot: the whole value only
  for (std::string_view w : kCommonAlpns) {  // every name opens with a lower-case letter
    const size_t k = w.size();
    if (k > n) continue;
    if (k == n && (s[0] | 0x20) == w[0] && strncasecmp(s, w.data(), k) == 0) return true;
    if (!dot) continue;
    for (size_t at = size_t(static_cast<const char*>(dot) - s) + 1; at + k <= n; at++)
      if (a[at - 1] == '.' && strncasecmp(s + at, w.data(), k) == 0) return true;
  }
  return false;
}

// An ALPN protocol list (length-prefixed entries), walked as nDPI does: an
// entry running past the list ends it; an empty list is one empty value.
bool tls_uncommon_alpns(const uint8_t* p, size_t n) {
  bool found = false, any = false;
  tls_alpn_entries(p, n, [&](const uint8_t* a, size_t l) { return any = true, found = !tls_common_alpn(a, l); });
  return found || !any;  // nothing read: nDPI judges the empty value
}

bool tls_weak_cipher(uint16_t c) {
  switch (c) {
    // (RC4 suites are nDPI's "insecure" class, which raises no risk)
    case 0x009d: case 0x003d: case 0x0035: case 0x0084:         // RSA key exchange
    case 0x009c: case 0x003c: case 0x002f: case 0x0041:
    case 0xc012: case 0x0016: case 0x000a:                      // 3DES
    case 0x0096: case 0x0007:                                   // SEED, IDEA
      return true;
    default: return false;
  }
}

const char* tls_cipher_name(uint16_t c) {
  switch (c) {
    case 0x1301: return "TLS_AES_128_GCM_SHA256";
    case 0x1302: return "TLS_AES_256_GCM_SHA384";
    case 0x1303: return "TLS_CHACHA20_POLY1305_SHA256";
    case 0xc02b: return "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
    case 0xc02c: return "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
    case 0xc02f: return "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
    case 0xc030: return "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
    case 0xcca8: return "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256";
    case 0xcca9: return "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256";
    case 0xc009: return "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA";
    case 0xc00a: return "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA";
    case 0xc013: return "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA";
    case 0xc014: return "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA";
    case 0xc023: return "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256";
    case 0xc027: return "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256";
    case 0xc028: return "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384";
    case 0x009e: return "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256";
    case 0x009f: return "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384";
    case 0x0033: return "TLS_DHE_RSA_WITH_AES_128_CBC_SHA";
    case 0x0039: return "TLS_DHE_RSA_WITH_AES_256_CBC_SHA";
    case 0xc011: return "TLS_ECDHE_RSA_WITH_RC4_128_SHA";
    case 0x0005: return "TLS_RSA_WITH_RC4_128_SHA";
    case 0x0004: return "TLS_RSA_WITH_RC4_128_MD5";
    case 0x009d: return "TLS_RSA_WITH_AES_256_GCM_SHA384";
    case 0x003d: return "TLS_RSA_WITH_AES_256_CBC_SHA256";
    case 0x0035: return "TLS_RSA_WITH_AES_256_CBC_SHA";
    case 0x0084: return "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA";
    case 0x009c: return "TLS_RSA_WITH_AES_128_GCM_SHA256";
    case 0x003c: return "TLS_RSA_WITH_AES_128_CBC_SHA256";
    case 0x002f: return "TLS_RSA_WITH_AES_128_CBC_SHA";
    case 0x0041: return "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA";
    case 0xc012: return "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA";
    case 0x0016: return "TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA";
    case 0x000a: return "TLS_RSA_WITH_3DES_EDE_CBC_SHA";
    case 0x0096: return "TLS_RSA_WITH_SEED_CBC_SHA";
    case 0x0007: return "TLS_RSA_WITH_IDEA_CBC_SHA";
    default: return "";
  }
}

const char* tls_version_name(uint16_t v) {
  switch (v) {
    case 0x0300: return "SSLv3";
    case 0x0301: return "TLSv1";
    case 0x0302: return "TLSv1.1";
    case 0x0303: return "TLSv1.2";
    case 0x0304: return "TLSv1.3";
    case 0xfeff: return "DTLSv1.0";
    case 0xfefd: return "DTLSv1.2";
    case 0xfefc: return "DTLSv1.3";
    default: return "";
  }
}

}  // namespace fg
