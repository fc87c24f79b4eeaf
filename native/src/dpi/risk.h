// ④ nDPI's flow risks (ndpi_risk_enum ids and ndpi_risk2str names, nDPI 4.11).
// A flow reports them as a 64-bit mask (bit = id). The risks a dissector or
// the engine raises are kept in two compact 32-bit words: FlowInfo::risks
// and a second word beside the FlowInfo pool (Classifier); the ones that
// follow from the flow's counters, ports or protocol are derived when it is
// reported.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fg {

enum class Risk : uint8_t {
  UrlXss = 1, UrlSqlInjection = 2, UrlRceInjection = 3, BinaryAppTransfer = 4,
  KnownProtoNonStdPort = 5, TlsSelfSigned = 6, TlsObsoleteVersion = 7, TlsWeakCipher = 8,
  TlsCertExpired = 9, TlsCertMismatch = 10, HttpSuspUserAgent = 11, NumericIpHost = 12,
  HttpSuspUrl = 13, HttpSuspHeader = 14, TlsNotCarryingHttps = 15, SuspDgaDomain = 16,
  MalformedPacket = 17, SshObsoleteClient = 18, SshObsoleteServer = 19, SmbInsecure = 20,
  TlsSuspEsni = 21, UnsafeProtocol = 22, DnsSuspTraffic = 23, TlsMissingSni = 24,
  HttpSuspContent = 25, RiskyAsn = 26, RiskyDomain = 27, MaliciousFingerprint = 28,
  MaliciousCert = 29, DesktopFileSharing = 30, TlsUncommonAlpn = 31, TlsCertTooLong = 32,
  TlsSuspExtension = 33, TlsFatalAlert = 34, SuspEntropy = 35, ClearTextCredentials = 36,
  DnsLargePacket = 37, DnsFragmented = 38, InvalidCharacters = 39, PossibleExploit = 40,
  TlsCertAboutToExpire = 41, PunycodeIdn = 42, ErrorCode = 43, CrawlerBot = 44,
  AnonymousSubscriber = 45, Unidirectional = 46, HttpObsoleteServer = 47, PeriodicFlow = 48,
  MinorIssues = 49, TcpIssues = 50, FullyEncrypted = 51, TlsAlpnSniMismatch = 52,
  MalwareHost = 53, BinaryDataTransfer = 54, ProbingAttempt = 55, Obfuscated = 56,
};
constexpr uint8_t kRiskMax = 57;

// nDPI's name of a risk id ("" when unknown).
const char* risk_name(uint8_t id);

// The risks a dissector can raise, in FlowInfo::risks bit order.
constexpr Risk kStoredRisks[] = {
    Risk::BinaryAppTransfer, Risk::TlsSelfSigned, Risk::TlsObsoleteVersion, Risk::TlsWeakCipher,
    Risk::TlsCertExpired, Risk::HttpSuspUserAgent, Risk::NumericIpHost, Risk::TlsNotCarryingHttps,
    Risk::SuspDgaDomain, Risk::SshObsoleteClient, Risk::SshObsoleteServer, Risk::TlsMissingSni,
    Risk::TlsUncommonAlpn, Risk::TlsCertTooLong, Risk::TlsFatalAlert, Risk::ClearTextCredentials,
    Risk::TlsCertAboutToExpire, Risk::ErrorCode, Risk::HttpObsoleteServer, Risk::TlsAlpnSniMismatch,
    Risk::BinaryDataTransfer, Risk::DnsLargePacket, Risk::MalformedPacket, Risk::InvalidCharacters,
    Risk::PunycodeIdn, Risk::CrawlerBot, Risk::RiskyDomain, Risk::TlsCertMismatch, Risk::PossibleExploit,
    Risk::DesktopFileSharing, Risk::SmbInsecure, Risk::PeriodicFlow,
};
static_assert(sizeof(kStoredRisks) <= 32);

// The second word: risks that did not fit in FlowInfo::risks.
constexpr Risk kStoredRisks2[] = {
    Risk::MaliciousFingerprint, Risk::MaliciousCert, Risk::TcpIssues, Risk::FullyEncrypted,
    Risk::SuspEntropy, Risk::MinorIssues, Risk::DnsSuspTraffic, Risk::TlsSuspEsni,
    Risk::TlsSuspExtension, Risk::Obfuscated, Risk::AnonymousSubscriber, Risk::MalwareHost,
    Risk::UrlXss, Risk::UrlSqlInjection, Risk::UrlRceInjection, Risk::HttpSuspUrl,
    Risk::HttpSuspHeader, Risk::HttpSuspContent, Risk::DnsFragmented, Risk::RiskyAsn,
    Risk::KnownProtoNonStdPort, Risk::UnsafeProtocol,
};
static_assert(sizeof(kStoredRisks2) <= 32);

// A risk's bit in a word's list (0: not in it).
template <size_t N>
constexpr uint32_t bit_in(const Risk (&list)[N], Risk r) {
  for (uint32_t i = 0; i < N; i++)
    if (list[i] == r) return uint32_t(1) << i;
  return 0;
}
constexpr uint32_t stored_bit(Risk r) { return bit_in(kStoredRisks, r); }
constexpr uint32_t stored_bit2(Risk r) { return bit_in(kStoredRisks2, r); }
static_assert([] {  // a risk has one home
  for (Risk r : kStoredRisks)
    if (stored_bit2(r)) return false;
  return true;
}());

// Where each stored risk is kept, by risk id (a table: the classifier sets
// and tests risks with a runtime id on every packet it judges): word 0
// (kStoredRisks) or 1 (kStoredRisks2) and its bit; bit 0 for a risk never
// stored.
struct RiskHome {
  uint8_t word;
  uint32_t bit;
};
struct RiskHomes {
  RiskHome at[64];
};
inline constexpr RiskHomes kRiskHomes = [] {
  RiskHomes t{};
  for (uint32_t i = 0; i < sizeof(kStoredRisks); i++) t.at[uint8_t(kStoredRisks[i])] = {0, uint32_t(1) << i};
  for (uint32_t i = 0; i < sizeof(kStoredRisks2); i++) t.at[uint8_t(kStoredRisks2[i])] = {1, uint32_t(1) << i};
  return t;
}();

inline uint64_t expand_risks(uint32_t bits, uint32_t bits2 = 0) {
  uint64_t m = 0;
  for (uint32_t i = 0; bits && i < sizeof(kStoredRisks); i++, bits >>= 1)
    if (bits & 1) m |= uint64_t(1) << uint8_t(kStoredRisks[i]);
  for (uint32_t i = 0; bits2 && i < sizeof(kStoredRisks2); i++, bits2 >>= 1)
    if (bits2 & 1) m |= uint64_t(1) << uint8_t(kStoredRisks2[i]);
  return m;
}

}  // namespace fg
