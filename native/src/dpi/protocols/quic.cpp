// ④ QUIC (RFC 9000/9001, v2 RFC 9369, draft-29) and Google QUIC, with nDPI's
// detection rules (quic.c, ndpi_search_quic): a client Initial of 1200 bytes
// or more names the flow QUIC; its keys come from its Destination Connection
// ID alone, so it can be read: remove header protection, decrypt
// (AES-128-GCM), put the CRYPTO frames together (over several Initials if
// need be) and read the ClientHello's SNI. Older Google QUIC sends its CHLO
// in clear. Without an Initial, nDPI still names a few shapes QUIC: 0-RTT
// packets, three client short-header packets to port 443, a gQUIC REJ.
// State: before the match the flow's TLS metadata entry (the short-header
// heuristic's bytes, TlsMeta::quic_*), after it FlowInfo::state[0] (what
// follows), and a hello's first part in one of a few per-thread buffers.
// SHA256_* and AES_* (deprecated in OpenSSL 3, still exported by node) make
// HMAC and the header-protection block without EVP's per-call allocations.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/aes.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <strings.h>

#include <algorithm>
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

// ---- Versions, as quic.c sorts them ----------------------------------------

constexpr uint32_t kV1 = 1, kV2 = 0x6b3343cf;
constexpr uint32_t kQ046 = 0x51303436, kQ050 = 0x51303530, kT050 = 0x54303530, kT051 = 0x54303531;
constexpr uint32_t kMvfst22 = 0xfaceb001, kMvfst27 = 0xfaceb002, kMvfstExp = 0xfaceb00e;

// 0x?a?a?a?a: a client forcing version negotiation (RFC 9000 §15).
bool forcing_vn(uint32_t v) { return (v & 0x0f0f0f0f) == 0x0a0a0a0a; }
// Google QUIC: Q02x..Q05x and T05x, whatever the last character.
bool gquic_version(uint32_t v) {
  const uint32_t hi = v & 0xffffff00;
  return hi == 0x54303500 || hi == 0x51303500 || hi == 0x51303400 || hi == 0x51303300 || hi == 0x51303200;
}
bool gquic_5x(uint32_t v) { return (v & 0xffffff00) == 0x51303500 || (v & 0xffffff00) == 0x54303500; }
// IETF QUIC: v1, v2, the drafts, Facebook's mvfst (any 0xfaceb???), forced negotiation.
bool ietf_version(uint32_t v) {
  return v == kV1 || v == kV2 || (v & 0xffffff00) == 0xff000000 || (v & 0xfffff000) == 0xfaceb000 || forcing_vn(v);
}
// nDPI's get_u8_quic_ver: the draft a version follows (v1 34, v2 100,
// forced negotiation read as v1), 0 for none.
unsigned ietf_draft(uint32_t v) {
  if ((v >> 8) == 0xff0000) return v & 0xff;
  if (v == kV1) return 34;
  if (v == kMvfst22) return 22;
  if (v == kMvfst27 || v == kMvfstExp) return 27;
  if (forcing_vn(v)) return 34;
  if (v == kV2) return 100;
  return 0;
}
// nDPI's get_u8_gquic_ver: atoi() of the last two characters ("Q043" 43,
// "Q04x" 4), 0 for other versions.
unsigned gquic_number(uint32_t v) {
  if (!gquic_version(v)) return 0;
  const unsigned d1 = ((v >> 8) & 0xff) - '0', c2 = v & 0xff;
  return c2 >= '0' && c2 <= '9' ? d1 * 10 + (c2 - '0') : d1;
}
bool gquic_up_to(uint32_t v, unsigned n) {
  const unsigned g = gquic_number(v);
  return g && g <= n;
}
// nDPI's is_version_supported: the versions it reads further.
bool supported(uint32_t v) {
  switch (v) {
    case 0x51303234: case 0x51303235: case 0x51303330: case 0x51303333: case 0x51303334:  // Q024 Q025 Q030 Q033 Q034
    case 0x51303335: case 0x51303337: case 0x51303339: case 0x51303433: case kQ046:       // Q035 Q037 Q039 Q043 Q046
    case kQ050: case kT050: case kT051: case kMvfst22: case kMvfst27: case kMvfstExp:
      return true;
    default:
      return ietf_draft(v) >= 23;
  }
}
// The handshake is TLS (else a gQUIC CHLO): IETF versions and T05x.
bool tls_version(uint32_t v) { return ietf_version(v) || (v & 0xffffff00) == 0x54303500; }

// ---- Initial keys -----------------------------------------------------------

constexpr size_t kMaxPlain = 65536;  // a UDP payload's bound

enum Salt : uint8_t { kSaltV1, kSaltV2, kSaltDraft29, kSaltDraft23, kSaltDraft22, kSaltQ050, kSaltT050, kSaltT051, kSalts };

const uint8_t kSalt[kSalts][20] = {
    {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a},
    {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93, 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9},
    {0xaf, 0xbf, 0xec, 0x28, 0x99, 0x93, 0xd2, 0x4c, 0x9e, 0x97, 0x86, 0xf1, 0x9c, 0x61, 0x11, 0xe0, 0x43, 0x90, 0xa8, 0x99},
    {0xc3, 0xee, 0xf7, 0x12, 0xc7, 0x2e, 0xbb, 0x5a, 0x11, 0xa7, 0xd2, 0x43, 0x2b, 0xb4, 0x63, 0x65, 0xbe, 0xf9, 0xf5, 0x02},
    {0x7f, 0xbc, 0xdb, 0x0e, 0x7c, 0x66, 0xbb, 0xe9, 0x19, 0x3a, 0x96, 0xcd, 0x21, 0x51, 0x9e, 0xbd, 0x7a, 0x02, 0x64, 0x4a},
    // Google QUIC with IETF framing: Q050 (gQUIC handshake), T050/T051 (TLS).
    {0x50, 0x45, 0x74, 0xef, 0xd0, 0x66, 0xfe, 0x2f, 0x9d, 0x94, 0x5c, 0xfc, 0xdb, 0xd3, 0xa7, 0xf0, 0xd3, 0xb5, 0x6b, 0x45},
    {0x7f, 0xf5, 0x79, 0xe5, 0xac, 0xd0, 0x72, 0x91, 0x55, 0x80, 0x30, 0x4c, 0x43, 0xa2, 0x36, 0x7c, 0x60, 0x48, 0x83, 0x10},
    {0x7a, 0x4e, 0xde, 0xf4, 0xe7, 0xcc, 0xee, 0x5f, 0xa4, 0x50, 0x6c, 0x19, 0x12, 0x4f, 0xc8, 0xcc, 0xda, 0x6e, 0x03, 0x3d},
};

// nDPI's quic_derive_initial_secrets: by the draft a version follows; past
// draft 34 (v2, drafts 35+, unknown mvfst) the v2 salt.
Salt salt_of(uint32_t v) {
  if (v == kQ050) return kSaltQ050;
  if (v == kT050) return kSaltT050;
  if (v == kT051) return kSaltT051;
  const unsigned d = ietf_draft(v);
  if (d && d <= 22) return kSaltDraft22;
  if (d && d <= 28) return kSaltDraft23;
  if (d && d <= 32) return kSaltDraft29;
  if (d && d <= 34) return kSaltV1;
  return kSaltV2;
}
// nDPI's is_version_with_v1_labels: "quic key" up to draft 34 and for
// Q05x/T05x, "quicv2 key" otherwise.
bool v1_labels(uint32_t v) {
  const unsigned d = ietf_draft(v);
  return gquic_5x(v) || (d && d <= 34);
}

bool varint(Bytes b, size_t& off, uint64_t& v) {
  if (off >= b.size()) return false;
  size_t n = size_t(1) << (b[off] >> 6);
  if (off + n > b.size()) return false;
  v = b[off] & 0x3f;
  for (size_t i = 1; i < n; i++) v = v << 8 | b[off + i];
  off += n;
  return true;
}

// nDPI's quic_len, where the caller made room for 8 bytes.
size_t quic_len(const uint8_t* p, uint64_t& v) {
  const size_t n = size_t(1) << (p[0] >> 6);
  v = p[0] & 0x3f;
  for (size_t i = 1; i < n; i++) v = v << 8 | p[i];
  return n;
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
  uint8_t kind = 0;         // salt, + 0x10 for the v2 labels
  uint8_t key[16], iv[12], hp[16];
};

const InitialKeys* initial_keys(uint32_t version, const uint8_t* dcid, uint8_t dcid_len) {
  static thread_local InitialKeys memo[4];
  static thread_local unsigned next = 0;
  const Salt salt = salt_of(version);
  const bool v1 = v1_labels(version);
  const uint8_t kind = uint8_t(salt | (v1 ? 0 : 0x10));
  for (const InitialKeys& k : memo)
    if (k.dcid_len == dcid_len && k.kind == kind && std::memcmp(k.dcid, dcid, dcid_len) == 0) return &k;
  // HKDF-Extract(salt, DCID), each salt keyed once.
  static const struct SaltKeys {
    HmacKey k[kSalts];
    SaltKeys() {
      for (size_t i = 0; i < kSalts; i++) hmac_key(k[i], kSalt[i], sizeof(kSalt[i]));
    }
  } salts;
  InitialKeys& k = memo[next++ & 3];
  uint8_t initial[32], client[32];
  HmacKey ik, ck;
  hmac(salts.k[salt], dcid, dcid_len, initial);
  hmac_key(ik, initial, 32);
  if (!expand_label(ik, "client in", client, 32)) return nullptr;
  hmac_key(ck, client, 32);
  if (!expand_label(ck, v1 ? "quic key" : "quicv2 key", k.key, 16) || !expand_label(ck, v1 ? "quic iv" : "quicv2 iv", k.iv, 12) ||
      !expand_label(ck, v1 ? "quic hp" : "quicv2 hp", k.hp, 16)) {
    k.dcid_len = 0xff;
    return nullptr;
  }
  std::memcpy(k.dcid, dcid, dcid_len);
  k.dcid_len = dcid_len, k.kind = kind;
  return &k;
}

// nDPI's decrypt_initial_packet: the header's offsets from this packet's
// CID lengths (may_be_initial checked them), the keys from `dcid` (the
// flow's first Initial's). nDPI's 32-bit offset arithmetic is kept. The
// plaintext into `out` (kMaxPlain bytes), its length or 0.
size_t decrypt_initial(Bytes b, uint32_t version, const uint8_t* dcid, uint8_t dcid_len, uint8_t* out) {
  uint32_t pn_off = 7 + uint32_t(b[5]) + b[6 + b[5]];
  uint64_t token_len, length;
  pn_off += uint32_t(quic_len(b.data() + pn_off, token_len));
  pn_off += uint32_t(token_len);
  // the length's 8 bytes at most, then the 4 + 16 of the sample
  if (uint64_t(pn_off) + 8 + 4 + 16 >= b.size()) return 0;
  pn_off += uint32_t(quic_len(b.data() + pn_off, length));
  if (pn_off + length > b.size()) return 0;

  const InitialKeys* keys = initial_keys(version, dcid, dcid_len);
  if (!keys) return 0;
  static thread_local EVP_CIPHER_CTX* gcm = EVP_CIPHER_CTX_new();
  static thread_local EVP_CIPHER* aes_gcm = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
  if (!gcm || !aes_gcm) return 0;
  // Header protection: AES-ECB of the 16-byte sample 4 bytes after the
  // packet number's start; a long header masks 4 bits of the first byte.
  AES_KEY hp_key;
  if (AES_set_encrypt_key(keys->hp, 128, &hp_key) != 0) return 0;
  uint8_t mask[16];
  AES_encrypt(b.data() + pn_off + 4, mask, &hp_key);
  const uint8_t first = uint8_t(b[0] ^ (mask[0] & ((b[0] & 0x80) ? 0x0f : 0x1f)));
  const size_t pn_len = (first & 0x03) + 1;
  uint8_t pn_bytes[4];
  uint64_t pn = 0;
  for (size_t i = 0; i < pn_len; i++) {
    pn_bytes[i] = uint8_t(b[pn_off + i] ^ mask[1 + i]);
    pn = pn << 8 | pn_bytes[i];
  }
  const uint64_t hdr_len = pn_off + pn_len, end = pn_off + length;
  if (end < hdr_len + 16 || end - hdr_len - 16 == 0 || end - hdr_len - 16 > kMaxPlain) return 0;
  uint8_t nonce[12];
  std::memcpy(nonce, keys->iv, 12);
  for (int i = 0; i < 8; i++) nonce[11 - i] ^= uint8_t(pn >> (8 * i));
  const uint8_t* ct = b.data() + hdr_len;
  const size_t ct_len = size_t(end - hdr_len - 16);
  int n = 0, fin = 0;
  // The cipher is given once: naming it again makes OpenSSL 3 free and
  // allocate its provider context on every packet.
  static thread_local bool gcm_ready = false;
  if (!gcm_ready) {
    if (!EVP_DecryptInit_ex2(gcm, aes_gcm, nullptr, nullptr, nullptr)) return 0;
    gcm_ready = true;
  }
  // The header, unprotected, is the associated data: given in three parts
  // rather than copied (a token can make it long).
  if (!EVP_DecryptInit_ex2(gcm, nullptr, keys->key, nonce, nullptr) || !EVP_DecryptUpdate(gcm, nullptr, &n, &first, 1) ||
      !EVP_DecryptUpdate(gcm, nullptr, &n, b.data() + 1, int(pn_off - 1)) ||
      !EVP_DecryptUpdate(gcm, nullptr, &n, pn_bytes, int(pn_len)) || !EVP_DecryptUpdate(gcm, out, &n, ct, int(ct_len)) ||
      !EVP_CIPHER_CTX_ctrl(gcm, EVP_CTRL_GCM_SET_TAG, 16, const_cast<uint8_t*>(ct + ct_len)) ||
      EVP_DecryptFinal_ex(gcm, out + n, &fin) <= 0)
    return 0;
  return ct_len;
}

// ---- The ClientHello over several CRYPTO frames -----------------------------

// nDPI's reassembly (quic.c __reassemble): the CRYPTO data by offset in a
// 4096-byte buffer, a bit per byte received; the hello is there once every
// byte up to the furthest one received is and its handshake header's length
// ends exactly there (is_ch_complete). The buffer lives from the first
// CRYPTO frame that is not a whole hello at offset 0 to the flow's end, so
// across Initials: those later Initials are opened with the first one's DCID.
constexpr uint32_t kReasmMax = 4096;
struct ChReasm {
  const Flow* flow = nullptr;
  uint64_t first_ns = 0;  // with `flow`: the same flow, not a later one at that address
  uint64_t used_ns = 0;   // packet time of the last use (the oldest is taken over)
  uint32_t last_pos = 0;
  bool open = false;      // nDPI's buffer allocated
  uint8_t dcid_len = 0;
  uint8_t dcid[20];
  uint8_t bits[kReasmMax / 8];
  uint8_t buf[kReasmMax];

  bool add(const uint8_t* frag, uint64_t at, uint64_t len) {
    if (!open) open = true, last_pos = 0, std::memset(bits, 0, sizeof(bits));
    if (at + len > kReasmMax) return false;
    std::memcpy(buf + at, frag, size_t(len));
    last_pos = std::max(last_pos, uint32_t(at + len));
    for (uint64_t i = at; i < at + len; i++) bits[i >> 3] |= uint8_t(1u << (i & 7));
    return true;
  }
  // Bytes received without a gap from offset 0.
  uint32_t contiguous() const {
    uint32_t i = 0;
    while (i < last_pos && (bits[i >> 3] >> (i & 7) & 1)) i++;
    return i;
  }
  bool complete() const {
    return last_pos >= 4 && contiguous() == last_pos && 4 + (uint32_t(buf[1]) << 16 | uint32_t(buf[2]) << 8 | buf[3]) == last_pos;
  }
  bool pending() const { return open && !complete(); }
};

bool ch_complete(const uint8_t* p, uint64_t n) { return n >= 4 && 4 + (uint64_t(p[1]) << 16 | uint64_t(p[2]) << 8 | p[3]) == n; }

// The flows whose hello goes on in a later Initial: a few per-thread
// buffers, no allocation per flow; with all in use the hello is read as far
// as it goes without a gap (nDPI, never short of one, would wait).
constexpr size_t kReasmSlots = 16;
constexpr uint64_t kReasmStaleNs = 3'000'000'000ULL;  // of packet time: the flow's rest never came

ChReasm* reasm_slot(const DpiCtx& c, bool take) {
  static thread_local ChReasm slots[kReasmSlots];
  ChReasm* oldest = &slots[0];
  for (ChReasm& r : slots) {
    if (r.flow == &c.flow && r.first_ns == c.flow.first_ns) return &r;
    if (r.used_ns < oldest->used_ns) oldest = &r;
  }
  if (!take) return nullptr;
  if (oldest->flow && c.p.ts_ns - oldest->used_ns < kReasmStaleNs) return nullptr;
  oldest->flow = &c.flow, oldest->first_ns = c.flow.first_ns, oldest->used_ns = c.p.ts_ns;
  return oldest;
}

// nDPI's get_crypto_data for IETF versions: PADDING and PING are skipped,
// CRYPTO frames taken in order until the hello is whole (a whole hello at
// offset 0 without the buffer); any other frame (ACK, CONNECTION_CLOSE …)
// ends the reading. The hello, or nothing yet.
Bytes crypto_frames(Bytes p, ChReasm& r) {
  size_t off = 0;
  while (off < p.size()) {
    const uint8_t type = p[off];
    if (type == 0x00) {  // PADDING fills most of an Initial: skip the run, 8 bytes at a time
      for (uint64_t w; off + 8 <= p.size() && (std::memcpy(&w, p.data() + off, 8), w == 0);) off += 8;
      while (off < p.size() && p[off] == 0) off++;
      continue;
    }
    if (type == 0x01) {  // PING
      off++;
      continue;
    }
    if (type != 0x06) return {};
    off++;
    uint64_t at, len;
    if (!varint(p, off, at) || !varint(p, off, len) || len > p.size() - off) return {};
    const uint8_t* frag = p.data() + off;
    if (at == 0 && ch_complete(frag, len)) return Bytes(frag, size_t(len));
    if (r.add(frag, at, len) && r.complete()) return Bytes(r.buf, r.last_pos);
    off += size_t(len);
  }
  return {};
}

// ---- Google QUIC ------------------------------------------------------------

// nDPI's get_crypto_data for Google QUIC: the handshake data of the first
// stream frame, maybe after an ACK: up to Q046 a legacy stream frame
// (0b1010?x00, stream 1, 16-bit length, little-endian before Q039), for
// Q050/T050/T051 a type-0x08 frame with varint offset and length.
Bytes gquic_stream(Bytes p, uint32_t version) {
  size_t off = 0;
  while (off < p.size() && p[off] == 0) off++;
  if (off >= p.size()) return {};
  uint8_t type = p[off];
  if (type == 0x40 || type == 0x60) {
    off += type == 0x40 ? 6 : 9;
    if (off >= p.size()) return {};
    type = p[off];
  }
  if (gquic_up_to(version, 46)) {
    if (type != 0xa0 && type != 0xa4) return {};
    size_t offset_len = (type & 0x1c) >> 2;
    if (offset_len) offset_len++;
    if (off + 2 + offset_len + 2 > p.size() || p[off + 1] != 0x01) return {};
    off += 2 + offset_len;
    const size_t len = version >= 0x51303339 ? load_be16(p.data() + off) : load_le16(p.data() + off);  // Q039
    off += 2;
    if (len > p.size() - off) return {};
    return p.subspan(off, len);
  }
  if (type != 0x08) return {};
  off++;
  if (off + 16 >= p.size()) return {};
  uint64_t at, len;
  off += quic_len(p.data() + off, at);
  off += quic_len(p.data() + off, len);
  if (len > p.size() - off) return {};
  return p.subspan(off, size_t(len));
}

// nDPI's process_chlo: the CHLO's tags (count little-endian, then per tag
// its name and end offset, then the values). SNI names the flow; a name
// with other bytes than letters, digits and . - _ : is an attack's sign;
// UAID is the client's User-Agent (HTTP's checks); the walk stops once both
// were read. No SNI after the walk: the missing-SNI risk.
void read_chlo(DpiCtx& c, Match& m, Bytes b, char (&host)[80], size_t& host_len) {
  if (b.size() < 6 || !has_at(b, 0, "CHLO")) return;
  const uint32_t tags = load_le16(b.data() + 4);
  const uint64_t values = 8 + 8 * uint64_t(tags);
  uint32_t prev = 0;
  bool sni = false, ua = false;
  for (uint32_t i = 0; i < tags; i++) {
    if (8 + 8 * uint64_t(i) + 8 >= b.size()) break;
    const uint8_t* t = b.data() + 8 + 8 * i;
    const uint32_t end = load_le32(t + 4);
    if (prev > end) break;
    const uint32_t len = end - prev;
    if (values + prev + len > b.size()) break;
    const uint8_t* v = b.data() + values + prev;
    if (std::memcmp(t, "SNI\0", 4) == 0) {
      host_len = ndpi_host_name(v, len, host);
      c.match_named(m, id(ProtoId::QUIC), host, host_len);
      if (!valid_hostname(v, len)) c.risk(Risk::InvalidCharacters), c.risk(Risk::PossibleExploit);
      sni = true;
      if (ua) return;
    }
    if (std::memcmp(t, "UAID", 4) == 0) {
      // http_process_user_agent: an empty one is not kept, nor a second one.
      if (len && !ua) http_user_agent_risks(c, reinterpret_cast<const char*>(v), len);
      ua = ua || len;
      if (sni) return;
    }
    prev = end;
  }
  if (!host_len) c.risk(Risk::TlsMissingSni);
}

// tls.c's reading of the hello's QUIC transport parameters: Google's user
// agent (0x3129) is checked as HTTP's (http_process_user_agent); varint ids
// and lengths from draft 27 on and for T051, before that a 16-bit list
// length, then 16-bit ids and lengths. The walk stays inside the extension.
void tp_user_agent(DpiCtx& c, Bytes hs, const HelloFacts& f, uint32_t version) {
  if (!f.quic_tp) return;
  const bool var = (ietf_version(version) && ietf_draft(version) >= 27) || version == kT051;
  const size_t total = hs.size();
  size_t s = size_t(f.quic_tp - hs.data()), fin;
  if (!var) {
    if (s + 1 >= total) return;
    const size_t seq = load_be16(hs.data() + s);
    s += 2;
    fin = std::min(total, s + seq);
  } else {
    fin = std::min(total, s + f.quic_tp_len);
  }
  while (s < fin) {
    uint64_t type, len;
    if (!var) {
      if (s + 3 >= fin) break;
      type = load_be16(hs.data() + s), len = load_be16(hs.data() + s + 2);
      s += 4;
    } else {
      if ((size_t(1) << (hs[s] >> 6)) > fin - s) break;
      s += quic_len(hs.data() + s, type);
      if (s >= fin || (size_t(1) << (hs[s] >> 6)) > fin - s) break;
      s += quic_len(hs.data() + s, len);
    }
    if (len > fin - s) break;
    if (type == 0x3129) {
      if (len) http_user_agent_risks(c, reinterpret_cast<const char*>(hs.data() + s), size_t(len));
      break;
    }
    s += size_t(len);
  }
}

// ---- One packet, as ndpi_search_quic reads it -------------------------------

// nDPI's may_be_initial_pkt: 1200 bytes at least (RFC 9000 §14.1), a known
// version (a long header's, or a gQUIC public header's after its 8-byte CID),
// the Initial's type bits for that version, CIDs of 20 bytes at most.
bool may_be_initial(Bytes b, uint32_t& v) {
  if (b.size() < 1200) return false;
  const uint8_t f = b[0], type = f & 0x30;
  v = 0;
  if (f & 0x80) v = load_be32(b.data() + 1);
  else if ((f & 0x08) && !(f & 0x40) && (f & 0x01)) v = load_be32(b.data() + 9);
  if (!gquic_version(v) && !ietf_version(v)) return false;
  if (gquic_up_to(v, 43) && (!(f & 0x08) || type)) return false;
  if (v == kQ046 && (f & 0x03) != 0x03) return false;
  if (((ietf_version(v) && v != kV2) || v == kQ046 || v == kQ050) && type) return false;
  if (v == kV2 && type != 0x10) return false;  // RFC 9369 §3.2: Initial is type 1
  if (forcing_vn(v) && (f & 0xc0) != 0xc0) return false;
  if ((ietf_version(v) || gquic_5x(v)) && (b[5] > 20 || b[6 + b[5]] > 20)) return false;
  return true;
}

// nDPI's may_be_0rtt: an IETF long header with the fixed bit, 0-RTT's type
// (1; v2: 2), CIDs within the packet and of 20 bytes at most; any size.
bool may_be_0rtt(Bytes b) {
  if (b.size() < 6) return false;
  const uint32_t v = load_be32(b.data() + 1);
  if (!ietf_version(v) || (b[0] & 0xc0) != 0xc0 || (b[0] & 0x30) != (v == kV2 ? 0x20 : 0x10)) return false;
  const size_t dl = b[5];
  if (b.size() <= 6 + dl) return false;
  const size_t sl = b[6 + dl];
  return b.size() > 7 + dl + sl && dl <= 20 && sl <= 20;
}

// QuicPre bits (TlsMeta::quic_flags), before the match: the short-header
// stage (nDPI's quic_server_cid_stage) and a 0-RTT packet seen.
constexpr uint8_t kPreStage = 0x03, kPre0Rtt = 0x04;

// nDPI's may_be_sh: packets with the fixed bit from port 443 wait; to it,
// the client's short-header packets must repeat their first 8 bytes after
// the first byte (the server's CID) and differ in their last byte (QUIC does
// not retransmit): the third names the flow (1). -1 keeps looking, 0 not.
int may_be_sh(const DpiCtx& c, Bytes b) {
  if (!(b[0] & 0x40)) return 0;
  if (c.p.dport != 443) return c.p.sport == 443 ? -1 : 0;
  if (b.size() < 1 + 8) return 0;
  FlowMeta* fm = c.meta(MetaKind::Tls);
  if (!fm) return -1;  // no entry to count in: keep looking
  TlsMeta& t = fm->tls;
  const uint8_t last = b[b.size() - 1];
  const uint8_t stage = t.quic_flags & kPreStage;
  if (stage) {
    if (std::memcmp(t.quic_cid, b.data() + 1, 8) != 0 || t.quic_last == last) return 0;
    if (stage + 1 == 3) return 1;
    t.quic_flags = uint8_t((t.quic_flags & ~kPreStage) | (stage + 1));
  } else {
    std::memcpy(t.quic_cid, b.data() + 1, 8);
    t.quic_flags |= 1;
  }
  t.quic_last = last;
  return -1;
}

// nDPI's may_be_gquic_rej: from port 443, a gQUIC public header with an
// 8-byte CID and no version (0x08), "REJ" within 16 bytes after the 12-byte
// message hash.
bool may_be_rej(const DpiCtx& c, Bytes b) {
  if (c.p.sport != 443 || b[0] != 0x08 || b.size() < 1 + 8 + 1 + 12 + 16) return false;
  const void* r = std::memchr(b.data() + 22, 'R', 16 - 3);
  return r && std::memcmp(r, "REJ", 3) == 0;
}

// nDPI's is_vn (RFC 8999 §6): a long header, version 0, CIDs of 20 bytes at most.
bool is_vn(Bytes b) {
  if (b.size() < 11 || !(b[0] & 0x80) || load_be32(b.data() + 1) != 0) return false;
  const size_t dl = b[5];
  return 6 + dl < b.size() && dl <= 20 && b[6 + dl] <= 20;
}

// What follows the match (FlowInfo::state[0]): nDPI's extra functions.
enum Follow : uint8_t {
  kDone = 0,
  kRead = 1,    // ndpi_search_quic_extra: the hello's rest, or RTP after the QUIC packets
  kVn = 2,      // ndpi_search_quic_extra_vn: the server's Version Negotiation awaited
  kVnPair = 3,  // then the client's Initial
};

// The flow's QUIC hello metadata entry if it has one (without taking one).
TlsMeta* quic_meta(const DpiCtx& c) {
  const FlowMeta* fm = c.clf->meta(c.flow);
  return fm && fm->kind == MetaKind::Tls ? &const_cast<FlowMeta*>(fm)->tls : nullptr;
}

// An Initial (may_be_initial holds), from ndpi_search_quic's step 2 on: the
// flow is QUIC; supported versions are read (in clear up to Q046, else
// decrypted) and the hello names it. What nDPI reads next; `may_follow`:
// the hello may go on in a later Initial (nDPI drops it after a Version
// Negotiation).
Follow on_initial(DpiCtx& c, Match& m, Bytes b, uint32_t version, bool may_follow) {
  m.master = 0, m.app = id(ProtoId::QUIC);
  if (!supported(version)) return kDone;
  if (forcing_vn(version)) return kVn;  // nothing to read before the client's next Initial
  static thread_local uint8_t plain[kMaxPlain];
  static thread_local ChReasm work;
  ChReasm* slot = nullptr;
  Bytes crypto;
  if (gquic_up_to(version, 43)) {
    const size_t at = gquic_up_to(version, 33) ? 27 : 26;  // ≤ Q033: a private-flags byte
    crypto = gquic_stream(b.subspan(at), version);
  } else if (version == kQ046) {
    if (b[5] != 0x50) return kDone;  // 8-byte DCID, no SCID
    crypto = gquic_stream(b.subspan(30), version);
  } else {
    const uint8_t dcid_len = b[5];
    if (!dcid_len) return kDone;  // the server's Initial to a client without a CID
    slot = reasm_slot(c, false);
    const uint8_t* dcid = slot ? slot->dcid : b.data() + 6;
    const uint8_t key_len = slot ? slot->dcid_len : dcid_len;
    const size_t n = decrypt_initial(b, version, dcid, key_len, plain);
    if (n && (version == kQ050 || version == kT050 || version == kT051)) {
      crypto = gquic_stream(Bytes(plain, n), version);
    } else if (n) {
      ChReasm& r = slot ? *slot : work;
      if (!slot) r.open = false;
      crypto = crypto_frames(Bytes(plain, n), r);
      if (slot) slot->used_ns = c.p.ts_ns;
      if (!slot && r.pending()) {
        if (may_follow && (slot = reasm_slot(c, true))) {
          slot->open = true, slot->last_pos = r.last_pos;
          std::memcpy(slot->bits, r.bits, sizeof(r.bits));
          std::memcpy(slot->buf, r.buf, r.last_pos);
          std::memcpy(slot->dcid, b.data() + 6, dcid_len);
          slot->dcid_len = dcid_len;
        } else if (const uint32_t k = r.contiguous(); k >= 4 && !c.extra) {
          crypto = Bytes(r.buf, k);  // nowhere to keep it: read as far as it goes
        }
      }
    }
  }
  char host[80];
  size_t host_len = 0;
  const char* sni = nullptr;
  size_t sni_len = 0;
  if (!crypto.empty()) {
    if (!tls_version(version)) {
      read_chlo(c, m, crypto, host, host_len);
    } else {
      // process_tls: the hello's SNI names the flow; ALPN "doq" (RFC 9250
      // §4.1.1; drafts "doq-i…"), offered first, makes it DNS over QUIC.
      const char* raw = nullptr;
      size_t raw_len = 0;
      if (tls_handshake_sni(crypto, raw, raw_len)) sni_len = tls_sni_name(c, raw, raw_len, host), sni = host;
      HelloFacts facts;
      tls_hello_meta(c, crypto, HelloTransport::Quic, &facts);
      tp_user_agent(c, crypto, facts, version);
      c.match_named(m, id(ProtoId::QUIC), sni, sni_len);
      host_len = sni_len;
      if (facts.alpn_len >= 3 && std::memcmp(facts.alpn, "doq", 3) == 0) m.master = id(ProtoId::QUIC), m.app = id(ProtoId::DoH_DoT);
    }
  }
  const bool pending = slot && slot->pending();
  if (slot && (!pending || !may_follow)) slot->flow = nullptr, slot->used_ns = 0, slot->open = false;
  // eval_extra_processing: a Snapchat call multiplexes RTP with QUIC (Q046
  // without SNI; v1 to *.addlive.io), or the hello goes on.
  if (version == kQ046 && !host_len) return kRead;
  if (version == kV1 && m.app == id(ProtoId::Snapchat) && sni_len > 11 && strncasecmp(sni + sni_len - 11, ".addlive.io", 11) == 0) return kRead;
  return pending ? kRead : kDone;
}

// After the match (nDPI's extra functions).
Verdict quic_extra(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  uint8_t& follow = c.info->state[0];
  Bytes b = c.payload;
  uint32_t version;
  Match m;
  if (follow == kVn) {  // the server's answer must be a Version Negotiation
    if (!is_vn(b)) return Verdict::No;
    follow = kVnPair;
    return Verdict::NeedMore;
  }
  if (follow == kVnPair) {  // then one packet is read as a flow's first
    if (may_be_initial(b, version)) {
      on_initial(c, m, b, version, false);
      c.clf->refine(c.flow, m.master, m.app);
    }
    return Verdict::No;
  }
  if (reasm_slot(c, false)) {  // the hello's rest, from any Initial
    if (may_be_initial(b, version)) {
      const Follow f = on_initial(c, m, b, version, true);
      c.clf->refine(c.flow, m.master, m.app);
      if (f == kVn) {
        follow = kVn;
        return Verdict::NeedMore;
      }
    }
    return reasm_slot(c, false) ? Verdict::NeedMore : Verdict::No;
  }
  // RTP after the QUIC packets (0x40 set: still QUIC): the first that is
  // not is RTP or RTCP (version 2; sender/receiver report, or an RTP payload
  // type) for a call multiplexed with QUIC, or ends the reading.
  if (b[0] & 0x40) return Verdict::NeedMore;
  if (b.size() > 1 && (b[0] >> 6) == 2) {
    const uint8_t pt = b[1] & 0x7f;
    if (b[1] == 200 || b[1] == 201 || pt <= 34 || pt >= 96) c.clf->refine(c.flow, id(ProtoId::QUIC), id(ProtoId::SnapchatCall));
  }
  return Verdict::No;
}

// Before an Initial: a 0-RTT packet waits for it up to the third packet (a
// packet of another kind after one names the flow at once), then the short
// headers, then a REJ.
Verdict first_look(DpiCtx& c, Match& m, Bytes b) {
  if (may_be_0rtt(b)) {
    if (FlowMeta* fm = c.meta(MetaKind::Tls)) fm->tls.quic_flags |= kPre0Rtt;
    if (c.flow.dpi_packets < 3) return Verdict::NeedMore;
    m.app = id(ProtoId::QUIC);
    return Verdict::Match;
  }
  if (const TlsMeta* t = quic_meta(c); t && (t->quic_flags & kPre0Rtt)) {
    m.app = id(ProtoId::QUIC);
    return Verdict::Match;
  }
  const int sh = may_be_sh(c, b);
  if (sh == -1) return c.flow.dpi_packets > 10 ? Verdict::No : Verdict::NeedMore;
  if (sh == 1 || may_be_rej(c, b)) {
    m.app = id(ProtoId::QUIC);
    return Verdict::Match;
  }
  return Verdict::No;
}

Verdict classify_quic(DpiCtx& c, Match& m) {
  if (c.extra) return quic_extra(c);
  Bytes b = c.payload;
  uint32_t version;
  if (c.p.l4_proto != kProtoUdp || b.empty()) return Verdict::No;
  if (!may_be_initial(b, version)) {
    const Verdict v = first_look(c, m, b);
    // an entry taken for the heuristics' state reads as QUIC's
    if (TlsMeta* t = v == Verdict::Match ? quic_meta(c) : nullptr) t->flags |= kTlsQuic;
    return v;
  }
  const Follow f = on_initial(c, m, b, version, c.info != nullptr);
  if (f != kDone && c.info) {
    c.info->state[0] = f;
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

// nDPI asks QUIC on a flow while its packets may be 0-RTT or short-header
// ones to port 443: up to the eleventh packet.
FG_DISSECTOR(quic, {"QUIC", id(ProtoId::QUIC), kL4Udp, 11, classify_quic});

}  // namespace fg
