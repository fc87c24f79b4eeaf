// ④ VMware: the UDP side of the ESXi host agent's port 902 (vmware-authd,
// remote console / heartbeat datagrams). VMware publishes no format for
// these datagrams; nDPI names them from their shape alone: exactly 66 bytes,
// the first one 0xA4, sent TO port 902. As nDPI, the destination port of
// the packet at hand counts (not the flow's server port): the host's 66-byte
// answers from 902 are not enough. One datagram decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kVmwarePort = 902;
constexpr size_t kVmwareSize = 66;
constexpr uint8_t kVmwareLead = 0xa4;

Verdict classify_vmware(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (b.size() != kVmwareSize || c.p.dport != kVmwarePort || b[0] != kVmwareLead) return Verdict::No;
  m.app = id(ProtoId::VMware);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(vmware, {"VMware", id(ProtoId::VMware), kL4Udp, 1, classify_vmware});

}  // namespace fg
