// ④ Bitcoin peer-to-peer protocol (Bitcoin developer reference, "P2P
// Network: Message Headers"; en.bitcoin.it/wiki/Protocol_documentation):
// every message opens with the 4-byte start string (network magic) of the
// chain it belongs to. nDPI looks at the flow's first payload packet on TCP
// only, and only when port 8333 is on either side: the first four bytes must
// be the magic of mainnet, testnet, testnet3, signet or Namecoin, else the
// flow is not Bitcoin.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kBitcoinPort = 8333;
// Start strings as they appear on the wire (read big-endian).
constexpr uint32_t kMagics[] = {
    0xf9beb4d9,  // mainnet
    0xfabfb5da,  // testnet (the original)
    0x0b110907,  // testnet3
    0x0a03cf40,  // signet (default challenge)
    0xf9beb4fe,  // Namecoin
};

Verdict classify_bitcoin(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 4 || (c.cli_port != kBitcoinPort && c.srv_port != kBitcoinPort)) return Verdict::No;
  const uint32_t magic = load_be32(b.data());
  for (uint32_t k : kMagics) {
    if (magic != k) continue;
    m.app = id(ProtoId::BITCOIN);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(bitcoin, {"BITCOIN", id(ProtoId::BITCOIN), kL4Tcp, 1, classify_bitcoin});

}  // namespace fg
