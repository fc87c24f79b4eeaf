// ④ FTP_DATA: the data connections of FTP (RFC 959 §3.2–3.3: the file or
// the LIST output travels on a TCP connection of its own, from port 20 in
// active mode, to a port announced by PASV/EPSV otherwise). Nothing in such
// a flow names FTP, so nDPI guesses from the flow alone, on its first
// payload packet (either direction), and only on a flow seen from its TCP
// handshake (a data stream joined midway would match anything):
//  - TCP port 20 on either side (active-mode data), whatever the payload;
//  - a "ls -l" line (the usual LIST output, RFC 959 §4.1.3 leaves it free):
//    more than 10 bytes, a type of '-' (file) or 'd' (directory), then
//    three rwx triplets made only of '-', 'r', 'w', 'x' in their places;
//  - a file's magic number (the set libprotoident uses: archives, images,
//    audio/video, documents, markup …) at the start of a packet of 256 bytes
//    or more — XML ("<?xm") only when "jabber" is not in the text before the
//    first NUL, so clear-text XMPP is not taken for a file.
// Anything else on that packet ends the search. nDPI's FTP control
// dissector learns no data ports (PASV/PORT replies are only command words
// there), so neither do we: a passive-mode transfer of a file without a
// known header is Unknown in both.
// "Seen from its handshake" is nDPI's ndpi_seen_flow_beginning (ftp_data.c,
// ndpi_main.c): a SYN, then a SYN-ACK, then an ACK without SYN, which we
// read from the flags each side sent (the client's SYN, the server's SYN
// and ACK, an ACK from the client or on this packet). nDPI also checks the
// order they came in; we do not.
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

using namespace std::string_view_literals;

constexpr uint16_t kFtpDataPort = 20;
constexpr size_t kMinFileHeader = 256;

// File signatures at offset 0, any of which names the flow.
constexpr std::string_view kMagic[] = {
    "RIFF"sv,              // AVI, WAV
    "OggS"sv,              // Ogg
    "PK\x03\x04"sv,        // ZIP (and jar, docx …)
    "\x00\x00\x01\xba"sv,  // MPEG program stream pack header
    "Rar!"sv,              // RAR
    "\x1a\x45\xdf\xa3"sv,  // EBML (Matroska, WebM)
    "\xff\xd8"sv,          // JPEG start of image
    "GIF8"sv,              // GIF87a / GIF89a
    "<?ph"sv,              // PHP script
    "%PDF"sv,              // PDF
    "\x89PNG"sv,           // PNG
    "<htm"sv,              // HTML
    "\n<!D"sv,             // HTML doctype after a line end
    "7z\xbc\xaf"sv,        // 7-Zip
    "\x1f\x8b\x08"sv,      // gzip, deflate
    "<!DO"sv,              // doctype (HTML, XML)
    "fLaC"sv,              // FLAC
    "ID3\x03"sv,           // MP3 with an ID3v2.3 tag
    "\xff\xfb\x90\xc0"sv,  // MP3 frame (MPEG-1 layer III, 128 kb/s, 44.1 kHz)
    "\xed\xab\xee\xdb"sv,  // RPM lead
    "WzPa"sv,              // Wizet game patch
    "FLV\x01"sv,           // Flash video
    "TAPE"sv,              // Microsoft Tape Format (.bkf)
    "\xd0\xcf\x11\xe0"sv,  // OLE2 compound file (MS Office)
    "<%@ "sv,              // ASP directive
    "<!--"sv,              // markup comment (WMS …)
    "!<ar"sv,              // ar archive (.deb)
    "<iq "sv,              // XML stanza
    "SPFI"sv,              // SPF
    "ABIF"sv,              // Applied Biosystems trace
    "BZh9"sv,              // bzip2, 900k blocks
    "<cf"sv, "<CF"sv,      // ColdFusion markup
    ".tem"sv, ".ite"sv, ".lef"sv,
};

bool file_header(Bytes b) {
  if (b.size() < kMinFileHeader) return false;
  for (std::string_view s : kMagic)
    if (has_at(b, 0, s)) return true;
  if (has_at(b, 0, "<?xm")) {
    // "jabber" searched only in the text before the first NUL
    const void* nul = std::memchr(b.data(), 0, b.size());
    const size_t text = nul ? size_t(static_cast<const uint8_t*>(nul) - b.data()) : b.size();
    return !contains(b.first(text), "jabber");
  }
  return false;
}

// "-rw-r--r--" / "drwxr-xr-x": a long-listing line's type and mode bits.
bool listing_line(Bytes b) {
  if (b.size() <= 10 || (b[0] != '-' && b[0] != 'd')) return false;
  for (size_t i = 1; i < 10; i += 3) {
    if (b[i] != '-' && b[i] != 'r') return false;
    if (b[i + 1] != '-' && b[i + 1] != 'w') return false;
    if (b[i + 2] != '-' && b[i + 2] != 'x') return false;
  }
  return true;
}

Verdict classify_ftp_data(DpiCtx& c, Match& m) {
  if (c.flow.dpi_packets != 1 || !seen_flow_beginning(c)) return Verdict::No;
  const bool port20 = c.cli_port == kFtpDataPort || c.srv_port == kFtpDataPort;
  if (!port20 && !listing_line(c.payload) && !file_header(c.payload)) return Verdict::No;
  m.app = id(ProtoId::FTP_DATA);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ftp_data, {"FTP_DATA", id(ProtoId::FTP_DATA), kL4Tcp, 1, classify_ftp_data});

}  // namespace fg
