// ⑤ The egress stage of one worker (nProbe Cento's egress queues): after a
// batch went through the pipeline, each packet is offered to every target —
// each aggregated queue (every packet, filtered by that queue's policy), the
// balanced target (one queue per flow, chosen by a hash symmetric in the two
// IP addresses so that fragments follow their flow) and the bridge (packets
// captured on A leave through B and back). process() allocates nothing,
// takes no lock and never blocks on an output.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/source.h"
#include "decode/packet.h"
#include "egress/output.h"
#include "egress/policy.h"

namespace fg {

struct OutputSpec {
  bool iface = false;       // a network interface, else a pcap file
  std::string name;         // the interface or the file path
  uint64_t rotate_bytes = 0;  // pcap: start a new file past this size (0: never)
};

struct EgressConfig {
  std::vector<OutputSpec> aggregated;
  std::vector<OutputSpec> balanced;
  std::string bridge_a, bridge_b;  // both set: bridge between two live interfaces
  bool bridge() const { return !bridge_a.empty(); }
  bool any() const { return !aggregated.empty() || !balanced.empty() || bridge(); }
};

// What the pipeline knows of each packet's flow once the packet was counted.
struct PacketFlowRef {
  uint32_t flow_pkts;   // the flow's packets so far, this one included
  uint16_t master, app;
  uint8_t has_flow;     // 0: not IP, or no flow (table full)
  uint8_t classified;   // the classification decided (or an id is known)
  uint8_t ip;
  uint8_t pad;
};

enum class TargetKind : uint8_t { Aggregated = 0, Balanced = 1, Bridge = 2 };
const char* target_kind_name(TargetKind k);

struct TargetCounters {
  uint64_t packets = 0, bytes = 0;          // offered to the target
  uint64_t forwarded = 0, forwarded_bytes = 0;  // handed to an output (sliced ones included)
  uint64_t discarded = 0;                   // discard action
  uint64_t shunted = 0;                     // shunt action, past the flow's first K packets
  uint64_t sliced = 0;                      // forwarded under a slice action
  uint64_t action_packets[kActionCount] = {};  // by the action the policy chose
};

class Egress {
 public:
  struct Target {
    TargetKind kind;
    uint32_t queue;  // aggregated: its index
    std::vector<std::unique_ptr<Output>> outputs;  // balanced: one per queue; bridge: [to B, to A]
    TargetCounters c;
  };

  // Opens every output; throws std::runtime_error naming the one that failed.
  // `lanes`: the workers that will each run an Egress over these outputs.
  explicit Egress(const EgressConfig& cfg, uint32_t lanes = 1);
  // Worker `lane`'s egress over `first`'s outputs: a lane of each pcap
  // output, an interface socket of its own; counters of its own.
  Egress(const Egress& first, uint32_t lane);
  ~Egress();

  const std::vector<Target>& targets() const { return targets_; }
  // The index of a target, -1 when the engine has none such.
  int find(TargetKind k, uint32_t queue) const;
  // A table where every target forwards everything.
  std::shared_ptr<const PolicyTable> default_table() const;
  // Workers sharing the outputs; a policy table keeps rule counters per lane.
  uint32_t lanes() const { return lanes_; }

  void process(const RawPacket* raw, const Packet* pkts, const PacketFlowRef* refs, size_t n,
               const PolicyTable& t) noexcept;
  void end_batch() noexcept;            // sends what interfaces were given
  void flush() noexcept;                // writes file buffers
  void flush_if_due(uint64_t mono_ns) noexcept;  // at most once a second (live input)
  void close() noexcept;

  static uint32_t balanced_hash(const IpAddr& a, const IpAddr& b) noexcept;

 private:
  std::vector<Target> targets_;
  uint32_t lanes_ = 1, lane_ = 0;
  uint64_t last_flush_ns_ = 0;
  bool closed_ = false;
};

}  // namespace fg
