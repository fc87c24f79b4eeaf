#include "egress/egress.h"

#include <stdexcept>

namespace fg {
namespace {

std::unique_ptr<Output> open_output(const OutputSpec& s) {
  if (s.iface) return std::make_unique<IfaceOutput>(s.name);
  return std::make_unique<PcapFileOutput>(s.name, s.rotate_bytes);
}

// Slice-l3: right after the last IP header before L4 (IPv6 extension headers
// kept; in a tunnel, the innermost one). Non-IP packets are not cut.
uint32_t l3_end(const Packet& p, bool ip) noexcept {
  if (!ip) return p.caplen;
  if (p.is_fragment && !p.first_fragment) return p.payload ? uint32_t(p.payload - p.frame) : p.caplen;
  if (p.l4_offset > p.l3_offset) return p.l4_offset;
  return p.caplen;
}

// Slice-l4: right after the TCP or UDP header (ICMP: its 8-byte header);
// packets without one (other protocols, later fragments) are cut as slice-l3.
uint32_t l4_end(const Packet& p, bool ip) noexcept {
  if (!ip) return p.caplen;
  if (p.has_l4 && (p.l4_proto == kProtoTcp || p.l4_proto == kProtoUdp) && p.payload) return uint32_t(p.payload - p.frame);
  if ((p.l4_proto == kProtoIcmp || p.l4_proto == kProtoIcmpv6) && !(p.is_fragment && !p.first_fragment) &&
      p.l4_offset > p.l3_offset)
    return p.l4_offset + 8;
  return l3_end(p, ip);
}

uint64_t addr_hash(const IpAddr& a) noexcept {
  uint64_t lo, hi;
  std::memcpy(&lo, a.b, 8);
  std::memcpy(&hi, a.b + 8, 8);
  return mix64(lo ^ mix64(hi ^ 0x9e3779b97f4a7c15ULL));
}

}  // namespace

const char* target_kind_name(TargetKind k) {
  switch (k) {
    case TargetKind::Aggregated: return "aggregated";
    case TargetKind::Balanced: return "balanced";
    case TargetKind::Bridge: return "bridge";
  }
  return "";
}

uint32_t Egress::balanced_hash(const IpAddr& a, const IpAddr& b) noexcept {
  // Symmetric: the sum does not depend on the direction.
  return uint32_t(mix64(addr_hash(a) + addr_hash(b)) >> 32);
}

Egress::Egress(const EgressConfig& cfg, uint32_t lanes) : lanes_(lanes) {
  for (size_t i = 0; i < cfg.aggregated.size(); i++) {
    Target t{TargetKind::Aggregated, uint32_t(i), {}, {}};
    t.outputs.push_back(open_output(cfg.aggregated[i]));
    targets_.push_back(std::move(t));
  }
  if (!cfg.balanced.empty()) {
    Target t{TargetKind::Balanced, 0, {}, {}};
    for (const auto& s : cfg.balanced) t.outputs.push_back(open_output(s));
    targets_.push_back(std::move(t));
  }
  if (cfg.bridge()) {
    Target t{TargetKind::Bridge, 0, {}, {}};
    t.outputs.push_back(std::make_unique<IfaceOutput>(cfg.bridge_b));  // captured on A
    t.outputs.push_back(std::make_unique<IfaceOutput>(cfg.bridge_a));  // captured on B
    targets_.push_back(std::move(t));
  }
}

Egress::Egress(const Egress& first, uint32_t lane) : lanes_(first.lanes_), lane_(lane) {
  for (const Target& f : first.targets_) {
    Target t{f.kind, f.queue, {}, {}};
    for (const auto& o : f.outputs) {
      if (const auto* p = dynamic_cast<const PcapFileOutput*>(o.get())) t.outputs.push_back(std::make_unique<PcapFileOutput>(p->sink()));
      else t.outputs.push_back(std::make_unique<IfaceOutput>(static_cast<const IfaceOutput&>(*o).iface()));
    }
    targets_.push_back(std::move(t));
  }
}

Egress::~Egress() { close(); }

int Egress::find(TargetKind k, uint32_t queue) const {
  for (size_t i = 0; i < targets_.size(); i++)
    if (targets_[i].kind == k && (k != TargetKind::Aggregated || targets_[i].queue == queue)) return int(i);
  return -1;
}

std::shared_ptr<const PolicyTable> Egress::default_table() const {
  auto t = std::make_shared<PolicyTable>();
  for (size_t i = 0; i < targets_.size(); i++) {
    t->targets.push_back(std::make_unique<TargetPolicy>(Action::Forward));
    t->targets.back()->finish(lanes_);
  }
  return t;
}

void Egress::process(const RawPacket* raw, const Packet* pkts, const PacketFlowRef* refs, size_t n,
                     const PolicyTable& tab) noexcept {
  const size_t nt = targets_.size() < tab.targets.size() ? targets_.size() : tab.targets.size();
  for (size_t i = 0; i < n; i++) {
    const RawPacket& r = raw[i];
    const Packet& p = pkts[i];
    const PacketFlowRef& m = refs[i];
    const bool classified = m.has_flow && m.classified;
    for (size_t k = 0; k < nt; k++) {
      Target& T = targets_[k];
      const TargetPolicy& P = *tab.targets[k];
      const uint32_t rule = P.decide(p.src, p.dst, m.ip, classified, m.master, m.app);
      const Action a = P.rules[rule].action;
      RuleCounters& rc = P.counters[size_t(lane_) * P.rules.size() + rule];
      rc.packets++, rc.bytes += r.wirelen;
      TargetCounters& c = T.c;
      c.packets++, c.bytes += r.wirelen;
      c.action_packets[int(a)]++;
      uint32_t caplen = r.caplen;
      switch (a) {
        case Action::Forward: break;
        case Action::Discard: c.discarded++; continue;
        case Action::Shunt:
          // Packets with no flow (not IP, table full) cannot be counted: forwarded.
          if (m.has_flow && m.flow_pkts > tab.shunt.limit(p.l4_proto, classified, m.master, m.app)) {
            c.shunted++;
            continue;
          }
          break;
        case Action::SliceL4: {
          uint32_t e = l4_end(p, m.ip);
          if (e < caplen) caplen = e;
          c.sliced++;
          break;
        }
        case Action::SliceL3: {
          uint32_t e = l3_end(p, m.ip);
          if (e < caplen) caplen = e;
          c.sliced++;
          break;
        }
      }
      c.forwarded++, c.forwarded_bytes += r.wirelen;
      Output* o;
      if (T.kind == TargetKind::Aggregated) o = T.outputs[0].get();
      else if (T.kind == TargetKind::Balanced)
        o = T.outputs[m.ip ? balanced_hash(p.src, p.dst) % T.outputs.size() : 0].get();
      else o = T.outputs[r.port & 1].get();
      o->put(r, caplen);
    }
  }
}

void Egress::end_batch() noexcept {
  for (auto& t : targets_)
    for (auto& o : t.outputs) o->end_batch();
}

void Egress::flush() noexcept {
  end_batch();
  for (auto& t : targets_)
    for (auto& o : t.outputs) o->flush();
}

void Egress::flush_if_due(uint64_t mono_ns) noexcept {
  if (mono_ns - last_flush_ns_ < 1000000000ULL) return;
  last_flush_ns_ = mono_ns;
  flush();
}

void Egress::close() noexcept {
  if (closed_) return;
  closed_ = true;
  for (auto& t : targets_)
    for (auto& o : t.outputs) o->close();
}

}  // namespace fg
