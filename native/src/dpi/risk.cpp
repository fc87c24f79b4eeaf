#include "dpi/meta.h"
#include "dpi/risk.h"

namespace fg {

const char* risk_name(uint8_t id) {
  // ndpi_risk2str, nDPI 4.11 (its spelling, typos included).
  static const char* const kNames[kRiskMax] = {
      "No Risk", "XSS Attack", "SQL Injection", "RCE Injection", "Binary App Transfer",
      "Known Proto on Non Std Port", "Self-signed Cert", "Obsolete TLS (v1.1 or older)", "Weak TLS Cipher",
      "TLS Cert Expired", "TLS Cert Mismatch", "HTTP Susp User-Agent", "HTTP/TLS/QUIC Numeric Hostname/SNI",
      "HTTP Susp URL", "HTTP Susp Header", "TLS (probably) Not Carrying HTTPS", "Susp DGA Domain name",
      "Malformed Packet", "SSH Obsolete Cli Vers/Cipher", "SSH Obsolete Ser Vers/Cipher", "SMB Insecure Vers",
      "TLS Susp ESNI Usage", "Unsafe Protocol", "Susp DNS Traffic", "Missing SNI TLS Extn", "HTTP Susp Content",
      "Risky ASN", "Risky Domain Name", "Malicious Fingerpint", "Malicious SSL Cert/SHA1 Fingerp.",
      "Desktop/File Sharing", "Uncommon TLS ALPN", "TLS Cert Validity Too Long", "TLS Susp Extn", "TLS Fatal Alert",
      "Susp Entropy", "Clear-Text Credentials", "Large DNS Packet (512+ bytes)", "Fragmented DNS Message",
      "Non-Printable/Invalid Chars Detected", "Possible Exploit Attempt", "TLS Cert About To Expire",
      "IDN Domain Name", "Error Code", "Crawler/Bot", "Anonymous Subscriber", "Unidirectional Traffic",
      "HTTP Obsolete Server", "Periodic Flow", "Minor Issues", "TCP Connection Issues", "Fully Encrypted Flow",
      "ALPN/SNI Mismatch", "Client Contacted A Malware Host", "Binary File/Data Transfer (Attempt)",
      "Probing Attempt", "Obfuscated Traffic",
  };
  return id < kRiskMax ? kNames[id] : "";
}

const char* http_method_name(uint8_t m) {
  static const char* const kNames[] = {"", "GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"};
  return m < sizeof(kNames) / sizeof(kNames[0]) ? kNames[m] : "";
}

}  // namespace fg
