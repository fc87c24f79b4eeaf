// ④ TLS handshake reading shared by the TLS, DTLS and QUIC dissectors:
// ClientHello (versions, ALPN, SNI, JA3 and FoxIO JA4), ServerHello (version,
// cipher, ALPN, JA3S) and the first certificate of a clear Certificate
// message (issuer, subject, validity) through a minimal DER walker. Every
// read is bounds-checked; a message cut short yields what it held.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dpi/meta.h"
#include "util/bytes.h"

namespace fg {

// What the risks need from a ClientHello beyond TlsMeta.
struct HelloFacts {
  bool complete = false;   // the whole message was there (fingerprints valid)
  bool has_sni = false;
  bool has_alpn = false;
  bool use_srtp = false;   // DTLS-SRTP (RFC 5764): WebRTC media
  bool esni = false;       // an encrypted_server_name nDPI could read (no missing-SNI risk then)
  bool susp_ext = false;   // nDPI's checkExtensions flagged one (tls_suspicious_extension)
  bool long_padding = false;  // a padding extension over 500 bytes (nDPI: obfuscated traffic)
  const char* sni = nullptr;
  size_t sni_len = 0;
  const uint8_t* alpn = nullptr;  // the first protocol offered (inside the hello)
  size_t alpn_len = 0;
  uint16_t legacy_version = 0;    // the hello's own version field (nDPI's risks judge it)
  // The ALPN extension's protocol list (after its length), within the
  // extension and the hello: each entry length-prefixed.
  const uint8_t* alpn_list = nullptr;
  size_t alpn_list_len = 0;
  // The first QUIC transport parameters extension (57; drafts 0xffa5):
  // its data and length (QUIC reads Google's user agent there).
  const uint8_t* quic_tp = nullptr;
  size_t quic_tp_len = 0;
};

enum class HelloTransport : uint8_t { Tcp, Quic, Dtls };

// `hs` starts at the handshake header (type 1). Fills t's client fields
// (the first offered protocol is facts.alpn: the caller keeps it).
bool tls_read_client_hello(Bytes hs, HelloTransport tr, TlsMeta& t, HelloFacts& facts);
// `hs` starts at the handshake header (type 2). `alpn`, when given, is set
// to the server's chosen protocol if it names one; `uncommon_alpn`, when given,
// tells whether the server's ALPN holds a value off nDPI's common list;
// `susp_ext` whether an extension is one nDPI calls suspicious.
bool tls_read_server_hello(Bytes hs, TlsMeta& t, Bytes* alpn = nullptr, bool* uncommon_alpn = nullptr, bool* susp_ext = nullptr, bool dtls = false);
// nDPI's checkExtensions on an extension id: above 59 (IANA's range as
// nDPI knows it), not renegotiation_info and not on its list of known
// non-IANA ones (ESNI, NPN, ALPS, Channel ID, QUIC's, GREASE, ECH …); or
// DTLS's own 53/54 outside DTLS.
bool tls_suspicious_extension(uint16_t id, bool dtls);
// nDPI's common ALPN list (load_common_alpns) and its matching.
bool tls_common_alpn(const uint8_t* a, size_t n);
// An ALPN protocol list (length-prefixed entries) holds an uncommon value.
bool tls_uncommon_alpns(const uint8_t* p, size_t n);
// The list's entries as nDPI walks them: one running past the list ends it;
// an empty list is one empty value. `fn` returns true to stop.
template <typename Fn>
void tls_alpn_entries(const uint8_t* p, size_t n, Fn fn) {
  if (!n) {
    fn(p, 0);
    return;
  }
  for (size_t off = 0; off < n;) {
    const size_t l = p[off++];
    if (off + l > n) return;
    if (fn(p + off, l)) return;
    off += l;
  }
}
// The names a certificate is for, as nDPI reads subjectAltName: first an
// empty name (len 0) telling the extension is there, then each rfc822Name,
// dNSName (maybe "*.example.com") and iPAddress (as text); return true to stop.
using CertNameFn = bool (*)(void* ctx, const char* name, size_t len);
// `body`: a Certificate message body after its 4-byte header (TLS ≤ 1.2).
// `on_name`, when given, sees the first certificate's names; `subject_dn`
// (when given) receives the whole subject DN, which `cert` keeps cut short.
// Flags go to `t`, the certificate's fields to `cert`.
bool tls_read_certificate(Bytes body, TlsMeta& t, TlsCert& cert, CertNameFn on_name = nullptr, void* ctx = nullptr,
                          char* subject_dn = nullptr, size_t dn_cap = 0);

// nDPI's cipher classes (ndpi_is_safe_ssl_cipher): weak or insecure.
bool tls_weak_cipher(uint16_t cipher);
// IANA name of common suites, "" otherwise.
const char* tls_cipher_name(uint16_t cipher);
// "TLSv1.2" as nDPI prints versions, "" when unknown.
const char* tls_version_name(uint16_t v);

inline bool tls_grease(uint16_t v) { return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff); }

// The TLS dissector's reading of a ClientHello into the flow's metadata
// and risks (dpi/protocols/tls.cpp), also for QUIC and DTLS.
struct DpiCtx;
// `out`, when given, receives what the hello held (QUIC reads its ALPN).
void tls_hello_meta(DpiCtx& c, Bytes hs, HelloTransport tr, HelloFacts* out = nullptr);
// TLS begun inside another protocol's flow (FTP's AUTH TLS), read on as
// the TLS dissector does after its match (dpi/protocols/tls.cpp): hello
// metadata, the server's certificate naming master.App.
enum class Verdict : uint8_t;
Verdict tls_after_starttls(DpiCtx& c);
// TLS begins inside another protocol's flow (a mail STARTTLS / STLS the server
// accepted: SMTPS, IMAPS, POPS; RDP's TLS security: TLS.RDP): the flow is
// named master.app from here, and tls_after_starttls() reads on.
void tls_begins(DpiCtx& c, uint16_t master, uint16_t app);
// nDPI reads TLS over TCP after a match for 12 packets (tlsInitExtraPacketProcessing;
// switch_extra_dissection_to_tls when another protocol hands the flow over),
// every packet counted, payload or not, from the one its reading began
// after: TLS's own match, or the other protocol's (nDPI's count of packets
// read after a match runs on across the hand-over); TLS inside RDP keeps
// RDP's 5. tls_read_from() notes the flow's packet count at that match: a
// reader handing over calls it at its own match (FlowInfo::state byte
// kTlsReadFrom, which it leaves free); tls_read_spent() says the packets
// are used up.
constexpr size_t kTlsReadFrom = 14;
void tls_read_from(DpiCtx& c);
bool tls_read_spent(const DpiCtx& c);
// DTLS (dpi/protocols/tls.cpp). A record header (handshake, alert, CCS or
// data; DTLS 1.0/1.2/1.3 version) whose length fits the datagram.
bool dtls_record(Bytes b);
// The handshake messages of a datagram's records: ServerHello, then the
// server's certificate while in clear, whose names (or subject) name the
// flow DTLS.App (nDPI's certificate rules). True once the certificate has
// been read or nothing more can be (nothing left to look for).
bool dtls_read_records(DpiCtx& c);
// An address literal where a name belongs (nDPI's numeric host risk).
bool numeric_host(const char* s, size_t n);
// The SNI as nDPI's processClientServerHello keeps it (TLS, QUIC):
// ndpi_hostname_sni_set with every normalization into out; a name failing
// ndpi_is_valid_hostname raises Invalid Characters and Possible Exploit.
// Returns the length of the name to match against the host list: 0 for an
// address literal, which names nothing but is kept as the flow's host (the
// certificate's names are checked against it).
size_t tls_sni_name(DpiCtx& c, const char* raw, size_t n, char (&out)[80]);

void md5_digest(const void* data, size_t n, uint8_t out[16]);
void sha256_digest(const void* data, size_t n, uint8_t out[32]);
void sha1_digest(const void* data, size_t n, uint8_t out[20]);
// nDPI's certificate fingerprint (tls.c, metadata.sha1_fingerprint on by
// default): the SHA-1 of the first certificate of a Certificate message
// body (after its 4-byte header), when the body holds it whole; its
// listing on the malicious SHA-1 list (fingerprints.h). False otherwise.
bool tls_first_cert_malicious(Bytes body);

}  // namespace fg
