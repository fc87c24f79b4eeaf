// ④ QUIC (RFC 9000/9001, v2 RFC 9369, draft-29): the client's Initial packet
// is protected with keys derived from its Destination Connection ID alone,
// so it can be read: remove header protection, decrypt (AES-128-GCM), put
// the CRYPTO frames together and read the ClientHello's SNI.
// SHA256_* and AES_* (deprecated in OpenSSL 3, still exported by node) make
// HMAC and the header-protection block without EVP's per-call allocations.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/aes.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr size_t kMaxDatagram = 2048;

// Initial keys per version family: the salt of HKDF-Extract, the labels,
// and the long-header type of Initial packets.
struct Version {
  uint8_t salt[20];
  const char* key_label;
  const char* iv_label;
  const char* hp_label;
  uint8_t initial_type;
};

enum Salt : uint8_t { kV1, kV2, kDraft29, kDraft23, kDraft22, kSaltQ050, kSaltT050, kSaltT051, kSalts };

const Version kVersions[kSalts] = {
    {{0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a},
     "quic key", "quic iv", "quic hp", 0},
    {{0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93, 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9},
     "quicv2 key", "quicv2 iv", "quicv2 hp", 1},
    {{0xaf, 0xbf, 0xec, 0x28, 0x99, 0x93, 0xd2, 0x4c, 0x9e, 0x97, 0x86, 0xf1, 0x9c, 0x61, 0x11, 0xe0, 0x43, 0x90, 0xa8, 0x99},
     "quic key", "quic iv", "quic hp", 0},
    {{0xc3, 0xee, 0xf7, 0x12, 0xc7, 0x2e, 0xbb, 0x5a, 0x11, 0xa7, 0xd2, 0x43, 0x2b, 0xb4, 0x63, 0x65, 0xbe, 0xf9, 0xf5, 0x02},
     "quic key", "quic iv", "quic hp", 0},
    {{0x7f, 0xbc, 0xdb, 0x0e, 0x7c, 0x66, 0xbb, 0xe9, 0x19, 0x3a, 0x96, 0xcd, 0x21, 0x51, 0x9e, 0xbd, 0x7a, 0x02, 0x64, 0x4a},
     "quic key", "quic iv", "quic hp", 0},
    // Google QUIC with IETF framing: Q050 (gQUIC handshake), T050/T051 (TLS).
    {{0x50, 0x45, 0x74, 0xef, 0xd0, 0x66, 0xfe, 0x2f, 0x9d, 0x94, 0x5c, 0xfc, 0xdb, 0xd3, 0xa7, 0xf0, 0xd3, 0xb5, 0x6b, 0x45},
     "quic key", "quic iv", "quic hp", 0},
    {{0x7f, 0xf5, 0x79, 0xe5, 0xac, 0xd0, 0x72, 0x91, 0x55, 0x80, 0x30, 0x4c, 0x43, 0xa2, 0x36, 0x7c, 0x60, 0x48, 0x83, 0x10},
     "quic key", "quic iv", "quic hp", 0},
    {{0x7a, 0x4e, 0xde, 0xf4, 0xe7, 0xcc, 0xee, 0x5f, 0xa4, 0x50, 0x6c, 0x19, 0x12, 0x4f, 0xc8, 0xcc, 0xda, 0x6e, 0x03, 0x3d},
     "quic key", "quic iv", "quic hp", 0},
};

constexpr uint32_t kQ050 = 0x51303530, kT050 = 0x54303530, kT051 = 0x54303531;

// Which keys open a version's Initials; kSalts when none do (older Google
// QUIC sends its handshake in clear, other versions are unknown).
Salt salt_of(uint32_t v) {
  if (v == 1) return kV1;
  if (v == 0x6b3343cf) return kV2;
  if (v == kQ050) return kSaltQ050;
  if (v == kT050) return kSaltT050;
  if (v == kT051) return kSaltT051;
  unsigned draft = 0;
  if ((v >> 8) == 0xff0000) draft = v & 0xff;
  else if (v == 0xfaceb001) draft = 22;  // Facebook mvfst
  else if (v == 0xfaceb002 || v == 0xfaceb00e) draft = 27;
  if (!draft) return kSalts;
  return draft <= 22 ? kDraft22 : draft <= 28 ? kDraft23 : draft <= 32 ? kDraft29 : kV1;
}

// Google QUIC: Q0xx (Q02x..Q05x) and T05x.
bool gquic_version(uint32_t v) {
  uint32_t hi = v & 0xffffff00;
  return hi == 0x54303500 || hi == 0x51303500 || hi == 0x51303400 || hi == 0x51303300 || hi == 0x51303200;
}
// "Q043" → 43.
unsigned gquic_number(uint32_t v) { return gquic_version(v) ? ((v >> 8) & 0xff) * 10 + (v & 0xff) - '0' * 11 : 0; }

bool varint(Bytes b, size_t& off, uint64_t& v) {
  if (off >= b.size()) return false;
  size_t n = size_t(1) << (b[off] >> 6);
  if (off + n > b.size()) return false;
  v = b[off] & 0x3f;
  for (size_t i = 1; i < n; i++) v = v << 8 | b[off + i];
  off += n;
  return true;
}

// HMAC-SHA256 (RFC 2104) on OpenSSL's SHA-256: a key is its two padded
// states, copied per use. OpenSSL 3's EVP_MAC allocated a digest context
// per call (HMAC_Final duplicates one) and looked its parameters up by
// name; this runs once per QUIC flow on the packet path.
struct HmacKey {
  SHA256_CTX inner, outer;
};

void hmac_key(HmacKey& k, const uint8_t* key, size_t len) {  // len ≤ 64
  uint8_t pad[64];
  std::memset(pad, 0x36, sizeof(pad));
  for (size_t i = 0; i < len; i++) pad[i] ^= key[i];
  SHA256_Init(&k.inner);
  SHA256_Update(&k.inner, pad, sizeof(pad));
  std::memset(pad, 0x5c, sizeof(pad));
  for (size_t i = 0; i < len; i++) pad[i] ^= key[i];
  SHA256_Init(&k.outer);
  SHA256_Update(&k.outer, pad, sizeof(pad));
}

void hmac(const HmacKey& k, const uint8_t* msg, size_t len, uint8_t out[32]) {
  SHA256_CTX c = k.inner;
  SHA256_Update(&c, msg, len);
  SHA256_Final(out, &c);
  c = k.outer;
  SHA256_Update(&c, out, 32);
  SHA256_Final(out, &c);
}

// RFC 8446 §7.1 HKDF-Expand-Label with an empty context, output ≤ 32 bytes,
// under a keyed secret (one key serves the key, IV and HP labels).
bool expand_label(const HmacKey& secret, const char* label, uint8_t* out, size_t len) {
  uint8_t info[64];
  size_t ll = std::strlen(label) + 6;  // "tls13 " + label
  if (ll > 40) return false;
  info[0] = 0, info[1] = uint8_t(len), info[2] = uint8_t(ll);
  std::memcpy(info + 3, "tls13 ", 6);
  std::memcpy(info + 9, label, ll - 6);
  info[3 + ll] = 0;
  size_t info_len = 4 + ll;
  // HKDF-Expand, one block (len ≤ 32): T(1) = HMAC(secret, info | 0x01).
  info[info_len] = 1;
  uint8_t t[32];
  hmac(secret, info, info_len + 1, t);
  std::memcpy(out, t, len);
  return true;
}

// A client Initial's keys. Clients split a ClientHello over Initials that
// share the DCID: the last few derivations are kept per worker thread.
struct InitialKeys {
  uint8_t dcid[20];
  uint8_t dcid_len = 0xff;  // none
  uint8_t version = 0;
  uint8_t key[16], iv[12], hp[16];
};

const InitialKeys* initial_keys(const Version& v, const uint8_t* dcid, uint8_t dcid_len) {
  static thread_local InitialKeys memo[4];
  static thread_local unsigned next = 0;
  const uint8_t vi = uint8_t(&v - kVersions);
  for (const InitialKeys& k : memo)
    if (k.dcid_len == dcid_len && k.version == vi && std::memcmp(k.dcid, dcid, dcid_len) == 0) return &k;
  // HKDF-Extract(salt, DCID), each version's salt keyed once.
  static const struct SaltKeys {
    HmacKey k[kSalts];
    SaltKeys() {
      for (size_t i = 0; i < kSalts; i++) hmac_key(k[i], kVersions[i].salt, sizeof(kVersions[i].salt));
    }
  } salts;
  InitialKeys& k = memo[next++ & 3];
  uint8_t initial[32], client[32];
  HmacKey ik, ck;
  hmac(salts.k[vi], dcid, dcid_len, initial);
  hmac_key(ik, initial, 32);
  if (!expand_label(ik, "client in", client, 32)) return nullptr;
  hmac_key(ck, client, 32);
  if (!expand_label(ck, v.key_label, k.key, 16) || !expand_label(ck, v.iv_label, k.iv, 12) || !expand_label(ck, v.hp_label, k.hp, 16)) {
    k.dcid_len = 0xff;
    return nullptr;
  }
  std::memcpy(k.dcid, dcid, dcid_len);
  k.dcid_len = dcid_len, k.version = vi;
  return &k;
}

// The decrypted payload of a client Initial, or 0 bytes.
size_t decrypt_initial(Bytes b, const Version& v, uint8_t* out) {
  size_t off = 5;
  uint8_t dcid_len = b[off++];
  if (dcid_len > 20 || off + dcid_len >= b.size()) return 0;
  const uint8_t* dcid = b.data() + off;
  off += dcid_len;
  uint8_t scid_len = b[off++];
  if (scid_len > 20 || off + scid_len > b.size()) return 0;
  off += scid_len;
  uint64_t token_len, length;
  if (!varint(b, off, token_len) || token_len > b.size() - off) return 0;
  off += size_t(token_len);
  if (!varint(b, off, length) || length > b.size() - off || length < 20) return 0;
  const size_t pn_off = off;
  const size_t end = off + size_t(length);

  const InitialKeys* keys = initial_keys(v, dcid, dcid_len);
  if (!keys) return 0;
  const uint8_t *key = keys->key, *iv = keys->iv, *hp = keys->hp;

  // Header protection: AES-ECB of the 16-byte sample 4 bytes after the packet number start.
  if (pn_off + 4 + 16 > end) return 0;
  static thread_local EVP_CIPHER_CTX* gcm = EVP_CIPHER_CTX_new();
  static thread_local EVP_CIPHER* aes_gcm = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
  if (!gcm || !aes_gcm) return 0;
  AES_KEY hp_key;
  if (AES_set_encrypt_key(hp, 128, &hp_key) != 0) return 0;
  uint8_t mask[16];
  AES_encrypt(b.data() + pn_off + 4, mask, &hp_key);
  uint8_t header[kMaxDatagram];  // tokens make long headers (Retry answers)
  if (pn_off + 4 > sizeof(header)) return 0;
  std::memcpy(header, b.data(), pn_off + 4);
  header[0] ^= mask[0] & 0x0f;
  size_t pn_len = (header[0] & 0x03) + 1;
  uint64_t pn = 0;
  for (size_t i = 0; i < pn_len; i++) {
    header[pn_off + i] ^= mask[1 + i];
    pn = pn << 8 | header[pn_off + i];
  }
  const size_t hdr_len = pn_off + pn_len;
  if (hdr_len + 16 > end || end - hdr_len - 16 > kMaxDatagram) return 0;
  uint8_t nonce[12];
  std::memcpy(nonce, iv, 12);
  for (int i = 0; i < 8; i++) nonce[11 - i] ^= uint8_t(pn >> (8 * i));
  const uint8_t* ct = b.data() + hdr_len;
  const size_t ct_len = end - hdr_len - 16;
  int n = 0, fin = 0;
  // The cipher is given once: naming it again makes OpenSSL 3 free and
  // allocate its provider context on every packet.
  static thread_local bool gcm_ready = false;
  if (!gcm_ready) {
    if (!EVP_DecryptInit_ex2(gcm, aes_gcm, nullptr, nullptr, nullptr)) return 0;
    gcm_ready = true;
  }
  if (!EVP_DecryptInit_ex2(gcm, nullptr, key, nonce, nullptr) ||
      !EVP_DecryptUpdate(gcm, nullptr, &n, header, int(hdr_len)) ||
      !EVP_DecryptUpdate(gcm, out, &n, ct, int(ct_len)) ||
      !EVP_CIPHER_CTX_ctrl(gcm, EVP_CTRL_GCM_SET_TAG, 16, const_cast<uint8_t*>(ct + ct_len)) ||
      EVP_DecryptFinal_ex(gcm, out + n, &fin) <= 0)
    return 0;
  return ct_len;
}

// CRYPTO frames at offset 0.. put together; other frames skipped.
size_t gather_crypto(Bytes p, uint8_t* out, size_t cap) {
  size_t off = 0, have = 0;
  struct Piece { uint64_t at; size_t from, len; } pieces[32];
  size_t np = 0;
  while (off < p.size()) {
    if (p[off] == 0) {  // PADDING fills most of an Initial: skip the run, 8 bytes at a time
      for (uint64_t w; off + 8 <= p.size() && (std::memcpy(&w, p.data() + off, 8), w == 0);) off += 8;
      while (off < p.size() && p[off] == 0) off++;
      continue;
    }
    uint64_t type;
    if (!varint(p, off, type)) break;
    if (type == 0x00 || type == 0x01) continue;  // PADDING, PING
    if (type == 0x02 || type == 0x03) {          // ACK: largest, delay, count, first range, ranges
      uint64_t x, count;
      if (!varint(p, off, x) || !varint(p, off, x) || !varint(p, off, count) || !varint(p, off, x)) break;
      for (uint64_t i = 0; i < count * 2; i++)
        if (!varint(p, off, x)) return 0;
      if (type == 0x03)
        for (int i = 0; i < 3; i++)
          if (!varint(p, off, x)) return 0;
      continue;
    }
    if (type != 0x06) break;  // CRYPTO
    uint64_t at, len;
    if (!varint(p, off, at) || !varint(p, off, len) || len > p.size() - off) break;
    if (np < 32) pieces[np++] = {at, off, size_t(len)};
    off += size_t(len);
  }
  // Frames may come in any order (browsers shuffle them): join from offset 0.
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < np; i++) {
      if (pieces[i].at != have || pieces[i].len == 0 || have + pieces[i].len > cap) continue;
      std::memcpy(out + have, p.data() + pieces[i].from, pieces[i].len);
      have += pieces[i].len;
      pieces[i].len = 0;
      grew = true;
    }
  }
  return have;
}

// Google QUIC's handshake message (CHLO): tag count (LE), then per tag its
// name and end offset (LE), then the values. The SNI tag's value, if any.
bool chlo_sni(Bytes b, const char*& name, size_t& len) {
  if (b.size() < 8 || !has_at(b, 0, "CHLO")) return false;
  const size_t tags = size_t(b[4]) | size_t(b[5]) << 8;
  const size_t values = 8 + 8 * tags;
  if (values > b.size()) return false;
  uint32_t prev = 0;
  for (size_t i = 0; i < tags; i++) {
    const uint8_t* t = b.data() + 8 + 8 * i;
    uint32_t end = uint32_t(t[4]) | uint32_t(t[5]) << 8 | uint32_t(t[6]) << 16 | uint32_t(t[7]) << 24;
    if (end < prev || end > b.size() - values) return false;
    if (std::memcmp(t, "SNI\0", 4) == 0) {
      name = reinterpret_cast<const char*>(b.data() + values + prev);
      len = end - prev;
      return true;
    }
    prev = end;
  }
  return false;
}

// The handshake data of a Google QUIC Initial's first stream frame: legacy
// stream frames (≤ Q046: type 0b1xxx, stream 1, 16-bit length) or, from
// Q050/T05x, a type-0x08 frame with varint offset and length. An ACK frame
// may come first.
Bytes gquic_stream(Bytes p, unsigned number) {
  size_t off = 0;
  while (off < p.size() && p[off] == 0) off++;
  if (off < p.size() && (p[off] == 0x40 || p[off] == 0x60)) off += p[off] == 0x40 ? 6 : 9;
  if (off >= p.size()) return {};
  if (number >= 50) {
    if (p[off++] != 0x08) return {};
    uint64_t at, len;
    if (!varint(p, off, at) || !varint(p, off, len) || len > p.size() - off) return {};
    return Bytes(p.data() + off, size_t(len));
  }
  const uint8_t type = p[off];
  if (type != 0xa0 && type != 0xa4) return {};
  size_t offset_len = (type & 0x1c) >> 2;
  if (offset_len) offset_len++;
  if (off + 2 + offset_len + 2 > p.size() || p[off + 1] != 0x01) return {};
  off += 2 + offset_len;
  size_t len = number >= 39 ? size_t(p[off]) << 8 | p[off + 1] : size_t(p[off + 1]) << 8 | p[off];
  off += 2;
  if (len > p.size() - off) return {};
  return Bytes(p.data() + off, len);
}

// After a Q046 CHLO without SNI (Snapchat's calls): nDPI reads on while
// the packets stay QUIC (0x40 set); the first that does not is RTP or RTCP
// (version 2; sender/receiver report, or an RTP payload type) for a call
// multiplexed with QUIC.
Verdict quic_extra(DpiCtx& c) {
  Bytes b = c.payload;
  if (b.empty()) return Verdict::NeedMore;
  if (b[0] & 0x40) return Verdict::NeedMore;
  if (b.size() > 1 && (b[0] >> 6) == 2) {
    const uint8_t pt = b[1] & 0x7f;
    if (b[1] == 200 || b[1] == 201 || pt <= 34 || pt >= 96) c.clf->refine(c.flow, id(ProtoId::QUIC), id(ProtoId::SnapchatCall));
  }
  return Verdict::No;
}

Verdict classify_quic(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return quic_extra(c);
  if (c.p.l4_proto != kProtoUdp || b.size() < 1200 - 8 || b.size() > kMaxDatagram) return c.from_client ? Verdict::No : Verdict::NeedMore;
  if (!c.from_client) return Verdict::NeedMore;
  const uint8_t first = b[0];
  uint32_t number = 0;
  if (first & 0x80) number = load_be32(b.data() + 1);
  else if ((first & 0x09) == 0x09 && !(first & 0x40) && b.size() > 13) number = load_be32(b.data() + 9);  // gQUIC public header
  const unsigned gq = gquic_number(number);
  const Salt salt = salt_of(number);

  // Google QUIC up to Q046: the handshake travels in clear after a 12-byte hash.
  if (gq && gq <= 46 && salt == kSalts) {
    size_t at = 0;
    if (gq <= 43) {
      if (!(first & 0x80) && !(first & 0x30)) at = gq <= 33 ? 27 : 26;  // 1-byte packet number; ≤ Q033: private flags
    } else if ((first & 0xf3) == 0xc3 && b[5] == 0x50) {
      at = 30;  // Q046 Initial: long header, 8-byte DCID
    }
    if (!at) return (first & 0xc0) == 0xc0 ? (m.app = id(ProtoId::QUIC), Verdict::Match) : Verdict::No;
    m.app = id(ProtoId::QUIC);
    const char* name = nullptr;
    size_t len = 0;
    if (!chlo_sni(gquic_stream(Bytes(b.data() + at, b.size() - at), gq), name, len)) len = 0;
    c.match_named(m, id(ProtoId::QUIC), name, len);
    m.more = gq == 46 && !len && c.info != nullptr;
    return Verdict::Match;
  }
  if (!(first & 0x80) || !(first & 0x40)) return Verdict::No;  // long header, fixed bit
  if (salt == kSalts) {
    // Versions whose Initials we don't open still have QUIC's shape: other
    // Google QUIC and Facebook mvfst versions.
    // Versions forcing a negotiation (0x?a?a?a?a) are QUIC but nDPI reads no name there.
    bool known = gq || (number & 0xfffffff0) == 0xfaceb000 || (number & 0x0f0f0f0f) == 0x0a0a0a0a;
    if (!known) return Verdict::No;
    m.app = id(ProtoId::QUIC);
    return Verdict::Match;
  }
  const Version& v = kVersions[salt];
  if (salt != kSaltT050 && salt != kSaltT051 && ((first >> 4) & 0x03) != v.initial_type) return Verdict::No;
  m.app = id(ProtoId::QUIC);
  uint8_t plain[kMaxDatagram];
  size_t n = decrypt_initial(b, v, plain);
  if (!n) return Verdict::Match;  // the shape is QUIC even if this one won't open
  const char* name = nullptr;
  size_t len = 0;
  if (gq) {  // Q050, T050, T051
    Bytes hs = gquic_stream(Bytes(plain, n), gq);
    if (gq == 50 && number == kQ050) {
      if (!chlo_sni(hs, name, len)) len = 0;
    } else if (hs.size()) {
      if (!tls_handshake_sni(hs, name, len)) len = 0;
      tls_hello_meta(c, hs, HelloTransport::Quic);
    }
    c.match_named(m, id(ProtoId::QUIC), name, len);
    return Verdict::Match;
  }
  uint8_t hello[kMaxDatagram];
  size_t hl = gather_crypto(Bytes(plain, n), hello, sizeof(hello));
  if (!hl || !tls_handshake_sni(Bytes(hello, hl), name, len)) len = 0;
  HelloFacts facts;
  if (hl) tls_hello_meta(c, Bytes(hello, hl), HelloTransport::Quic, &facts);
  c.match_named(m, id(ProtoId::QUIC), name, len);
  // DNS over QUIC (RFC 9250 §4.1.1: ALPN "doq"; drafts "doq-i…"): nDPI
  // names it over what the name said, from the first protocol offered.
  if (facts.alpn_len >= 3 && std::memcmp(facts.alpn, "doq", 3) == 0) m.master = id(ProtoId::QUIC), m.app = id(ProtoId::DoH_DoT);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(quic, {"QUIC", id(ProtoId::QUIC), kL4Udp, 4, classify_quic});

}  // namespace fg
