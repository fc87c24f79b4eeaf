// ④ What dissectors extract beyond the name: one entry per flow whose
// dissector has metadata, from bounded pools separate from FlowInfo, so
// flows without any cost nothing: 120 bytes (a FlowMeta) for HTTP and SSH,
// 88 (its first part) for TLS / DTLS / QUIC, whose certificate's fields —
// read only from TLS ≤ 1.2 and DTLS, never from TLS 1.3 or QUIC — take a
// TlsCert entry of their own. The strings that recur across flows (HTTP's
// User-Agent, Server and Content-Type, SSH's banners, TLS's ALPNs) are kept
// once per worker (flow/interned_names.h) and referenced by id; a query
// reads them out into a MetaText. DNS's few fields fit in FlowInfo itself
// (DnsMeta). Strings are NUL-terminated, truncated to their cap.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fg {

enum class MetaKind : uint8_t { None = 0, Tls = 1, Http = 2, Ssh = 3, Dns = 4 };
constexpr uint8_t kMetaKinds = 5;

// A MetaStrings reference: the string's id + 1, 0 = none.
using MetaStr = uint32_t;

struct TlsMeta {
  uint16_t version;         // negotiated (ServerHello, supported_versions); 0 = not seen
  uint16_t client_version;  // highest the client offered
  uint16_t cipher;          // ServerHello's
  uint8_t flags;            // TlsFlag
  uint8_t srv_state;        // server stream walker (tls.cpp); kTlsLooked before the match
  // TLS over TCP only, so free on UDP: QUIC (always UDP; DTLS never reads
  // them) keeps there what it carries between packets before its match.
  union {
    struct {
      uint32_t srv_skip;    // bytes of the server stream to skip to the next record
      uint32_t hello_seq;   // a ClientHello cut short: the sequence number its rest starts at, 0 = none
    };
    uint8_t quic_cid[8];    // QUIC: the first bytes after a short header's first byte (nDPI's quic_server_cid)
  };
  // the client's first offered protocol, the server's choice (interned: Classifier::set_alpn)
  MetaStr alpn_client, alpn_server;
  uint8_t ja3c[16], ja3s[16];     // MD5
  // FoxIO JA4 "a_b_c": a's 10 characters, b's and c's 12 hex digits as the
  // 6 bytes they spell
  struct Ja4 {
    char a[10];
    uint8_t b[6], c[6];
  } ja4;
  union {
    uint16_t hello_app;     // the app the cut ClientHello's SNI names, once its rest follows (TCP)
    struct {
      uint8_t quic_last;    // QUIC: the last byte of the client's last short-header packet
      uint8_t quic_flags;   // QUIC: QuicPre bits (dpi/protocols/quic.cpp)
    };
  };
};
static_assert(sizeof(TlsMeta) == 80);
// The first certificate (TLS ≤ 1.2, DTLS): FlowMeta::cert.
struct TlsCert {
  int64_t not_before, not_after;  // epoch seconds, 0 = not read
  char issuer[57], subject[57];
};

// srv_state bit (TCP, before the match): a record looked like TLS (nDPI's
// ndpi_looks_like_tls: its guessed protocol when the ports gave none)
constexpr uint8_t kTlsLooked = 0x10;

enum TlsFlag : uint8_t {
  kTlsJa3c = 1, kTlsJa3s = 2, kTlsCert = 4, kTlsQuic = 8, kTlsServerHello = 16, kTlsClientHello = 32,
  kTlsAlpnOffered = 64, kTlsSelfSigned = 128,  // issuer DN == subject DN, compared whole
};

// The longest each string keeps, its NUL included (a longer one is cut).
constexpr size_t kUserAgentCap = 80, kContentTypeCap = 32, kServerCap = 36, kBannerCap = 72, kAlpnCap = 16;
constexpr size_t kMetaStrCap = 80;  // the longest of them: a MetaStrings entry (ALPNs have a pool of their own)
static_assert(kUserAgentCap <= kMetaStrCap && kBannerCap <= kMetaStrCap);

struct HttpMeta {
  uint8_t method;     // HttpMethod
  uint8_t flags;
  uint16_t status;    // response status code, 0 = none seen
  char url[96];
  MetaStr user_agent, content_type, server;
};
enum class HttpMethod : uint8_t { Unknown, Get, Post, Head, Put, Delete, Options, Patch, Connect, Trace };
const char* http_method_name(uint8_t m);

struct SshMeta {
  uint8_t flags;      // SshFlag
  uint8_t pad[3];
  uint8_t hassh_c[16], hassh_s[16];
  MetaStr banner_c, banner_s;
};
enum SshFlag : uint8_t { kSshHasshC = 1, kSshHasshS = 2 };

struct alignas(8) FlowMeta {
  MetaKind kind;
  uint8_t pad[3];
  uint32_t cert;  // TLS: its TlsCert entry + 1, 0 = none
  union {
    TlsMeta tls;
    HttpMeta http;
    SshMeta ssh;
  };
};
static_assert(sizeof(FlowMeta) == 120);
// A TLS entry is a FlowMeta's first kTlsMetaBytes: only its kind, cert and tls are read.
constexpr size_t kTlsMetaBytes = 88;
static_assert(offsetof(FlowMeta, tls) + sizeof(TlsMeta) <= kTlsMetaBytes);
struct alignas(8) TlsMetaSlot {
  uint8_t b[kTlsMetaBytes];
};

// A flow's interned strings read out (a query's copy of them).
union MetaText {
  struct {
    char alpn_client[kAlpnCap], alpn_server[kAlpnCap];
  } tls;
  struct {
    char user_agent[kUserAgentCap], content_type[kContentTypeCap], server[kServerCap];
  } http;
  struct {
    char banner_c[kBannerCap], banner_s[kBannerCap];
  } ssh;
};

// Lives in FlowInfo over the dissector mask, which is dead once a
// dissector matched.
struct __attribute__((packed)) DnsMeta {
  uint16_t qtype;
  uint16_t answers;
  uint8_t rcode;
  uint8_t flags;      // 1 = a response was seen
  uint8_t pad[9];
};
static_assert(sizeof(DnsMeta) == 15);

// Copies at most cap-1 bytes and terminates.
inline void copy_str(char* dst, size_t cap, const void* src, size_t n) {
  if (n >= cap) n = cap - 1;
  std::memcpy(dst, src, n);
  dst[n] = 0;
}
// Copies a C string, cut to cap - 1 bytes.
inline void copy_cstr(char* dst, size_t cap, const char* src) {
  size_t n = src ? strnlen(src, cap - 1) : 0;
  std::memcpy(dst, src, n);
  dst[n] = 0;
}

}  // namespace fg
