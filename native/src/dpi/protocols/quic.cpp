// ④ QUIC (RFC 9000/9001, v2 RFC 9369, draft-29): the client's Initial packet
// is protected with keys derived from its Destination Connection ID alone,
// so it can be read: remove header protection, decrypt (AES-128-GCM), put
// the CRYPTO frames together and read the ClientHello's SNI.
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <cstring>

#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr size_t kMaxDatagram = 2048;

struct Version {
  uint32_t number;
  uint8_t salt[20];
  const char* key_label;
  const char* iv_label;
  const char* hp_label;
  uint8_t initial_type;  // long-header packet type of Initial
};

const Version kVersions[] = {
    {0x00000001, {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a},
     "quic key", "quic iv", "quic hp", 0},
    {0x6b3343cf, {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93, 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9},
     "quicv2 key", "quicv2 iv", "quicv2 hp", 1},
    {0xff00001d, {0xaf, 0xbf, 0xec, 0x28, 0x99, 0x93, 0xd2, 0x4c, 0x9e, 0x97, 0x86, 0xf1, 0x9c, 0x61, 0x11, 0xe0, 0x43, 0x90, 0xa8, 0x99},
     "quic key", "quic iv", "quic hp", 0},
};

bool varint(Bytes b, size_t& off, uint64_t& v) {
  if (off >= b.size()) return false;
  size_t n = size_t(1) << (b[off] >> 6);
  if (off + n > b.size()) return false;
  v = b[off] & 0x3f;
  for (size_t i = 1; i < n; i++) v = v << 8 | b[off + i];
  off += n;
  return true;
}

// HMAC-SHA256 through MAC contexts made once per worker thread: fetching the
// algorithm per call (what the one-shot HMAC() does) cost more than the
// whole Initial decryption; the extract step keeps each version's salt keyed.
EVP_MAC_CTX* new_hmac_sha256() {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
  EVP_MAC_free(mac);  // the context holds its own reference
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
  if (ctx && !EVP_MAC_CTX_set_params(ctx, params)) EVP_MAC_CTX_free(ctx), ctx = nullptr;
  return ctx;
}

// key == nullptr reuses the context's previous key (the version's salt).
bool hmac_sha256(EVP_MAC_CTX* ctx, const uint8_t* key, size_t klen, const uint8_t* msg, size_t mlen, uint8_t out[32]) {
  size_t n = 0;
  return ctx && EVP_MAC_init(ctx, key, klen, nullptr) && EVP_MAC_update(ctx, msg, mlen) && EVP_MAC_final(ctx, out, &n, 32) &&
         n == 32;
}

// RFC 8446 §7.1 HKDF-Expand-Label with an empty context, output ≤ 32 bytes.
bool expand_label(const uint8_t* secret, const char* label, uint8_t* out, size_t len) {
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
  static thread_local EVP_MAC_CTX* ctx = new_hmac_sha256();
  uint8_t t[32];
  if (!hmac_sha256(ctx, secret, 32, info, info_len + 1, t)) return false;
  std::memcpy(out, t, len);
  return true;
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

  // HKDF-Extract(salt, DCID), with one context per version keyed by its salt.
  static thread_local EVP_MAC_CTX* extract[sizeof(kVersions) / sizeof(kVersions[0])] = {};
  const size_t vi = size_t(&v - kVersions);
  bool first = !extract[vi];
  if (first) extract[vi] = new_hmac_sha256();
  uint8_t initial[32], client[32], key[16], iv[12], hp[16];
  if (!hmac_sha256(extract[vi], first ? v.salt : nullptr, first ? sizeof(v.salt) : 0, dcid, dcid_len, initial)) return 0;
  if (!expand_label(initial, "client in", client, 32) || !expand_label(client, v.key_label, key, 16) ||
      !expand_label(client, v.iv_label, iv, 12) || !expand_label(client, v.hp_label, hp, 16))
    return 0;

  // Header protection: AES-ECB of the 16-byte sample 4 bytes after the packet number start.
  if (pn_off + 4 + 16 > end) return 0;
  static thread_local EVP_CIPHER_CTX* ecb = EVP_CIPHER_CTX_new();
  static thread_local EVP_CIPHER_CTX* gcm = EVP_CIPHER_CTX_new();
  static thread_local EVP_CIPHER* aes_ecb = EVP_CIPHER_fetch(nullptr, "AES-128-ECB", nullptr);
  static thread_local EVP_CIPHER* aes_gcm = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
  uint8_t mask[32];
  int ml = 0;
  if (!ecb || !gcm || !aes_ecb || !aes_gcm || !EVP_EncryptInit_ex2(ecb, aes_ecb, hp, nullptr, nullptr) ||
      !EVP_EncryptUpdate(ecb, mask, &ml, b.data() + pn_off + 4, 16))
    return 0;
  uint8_t header[96 + 20];
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
  if (!EVP_DecryptInit_ex2(gcm, aes_gcm, key, nonce, nullptr) ||
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
    if (p[off] == 0) {  // PADDING fills most of an Initial: skip the run
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

Verdict classify_quic(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.l4_proto != kProtoUdp || b.size() < 1200 - 8 || b.size() > kMaxDatagram) return c.from_client ? Verdict::No : Verdict::NeedMore;
  if (!c.from_client) return Verdict::NeedMore;
  if (!(b[0] & 0x80) || !(b[0] & 0x40)) return Verdict::No;  // long header, fixed bit
  uint32_t number = load_be32(b.data() + 1);
  const Version* v = nullptr;
  for (const Version& x : kVersions)
    if (x.number == number) v = &x;
  if (!v) {
    // Versions whose Initials we don't open still have QUIC's shape: Google
    // QUIC (Q0xx, T0xx), IETF drafts, Facebook's mvfst (0xfaceb00x).
    bool known = (number >> 8) == 0xff0000 || (number & 0xff00f000) == 0x51003000 ||
                 (number & 0xff00f000) == 0x54003000 || (number & 0xfffffff0) == 0xfaceb000;
    if (!known) return Verdict::No;
    m.app = id(ProtoId::QUIC);
    return Verdict::Match;
  }
  if (((b[0] >> 4) & 0x03) != v->initial_type) return Verdict::No;
  m.app = id(ProtoId::QUIC);
  uint8_t plain[kMaxDatagram];
  size_t n = decrypt_initial(b, *v, plain);
  if (!n) return Verdict::Match;  // the shape is QUIC even if this one won't open
  uint8_t hello[kMaxDatagram];
  size_t hl = gather_crypto(Bytes(plain, n), hello, sizeof(hello));
  const char* name = nullptr;
  size_t len = 0;
  if (!hl || !tls_handshake_sni(Bytes(hello, hl), name, len)) len = 0;
  if (hl) tls_hello_meta(c, Bytes(hello, hl), HelloTransport::Quic);
  c.match_named(m, id(ProtoId::QUIC), name, len);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(quic, {"QUIC", id(ProtoId::QUIC), kL4Udp, 4, classify_quic});

}  // namespace fg
