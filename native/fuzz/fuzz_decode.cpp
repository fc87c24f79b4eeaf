// libFuzzer target: one frame through decode → flow → hosts → counters.
//
// Input layout: byte 0 selects the link type (low nibble, see kLinks) and two
// modifiers; the rest is the captured frame.
//   bit 7: the wire length is larger than the captured length (snaplen cut),
//          so decoders must trust caplen and not the headers;
//   bit 6: run the frame through Pipeline::decode_only as well.
// The pipeline is static and keeps state across inputs on purpose: its tables
// are tiny (8 flows, 8 hosts, 4 MACs) and the clock moves 100 ms per input, so
// full tables, idle/lifetime expiry, host expiry, the sweep and the expired
// ring (16 records, drained only now and then) are all exercised.
// Build: see native/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "capture/source.h"
#include "engine/pipeline.h"
#include "flow/local_nets.h"

namespace {

constexpr uint16_t kLinks[] = {
    fg::kLinkEthernet,  // 0
    fg::kLinkRaw,       // 1
    fg::kLinkSll,       // 2
    fg::kLinkSll2,      // 3
    fg::kLinkNull,      // 4
    fg::kLinkLoop,      // 5
    fg::kLinkCiscoHdlc, // 6
    fg::kLinkIpv4,      // 7
    fg::kLinkIpv6,      // 8
    12,                 // 9: DLT_RAW (some BSDs)
    14,                 // 10: DLT_RAW (OpenBSD)
    147,                // 11: a link type the decoder does not know
};
constexpr size_t kNumLinks = sizeof(kLinks) / sizeof(kLinks[0]);

struct State {
  fg::SpscRing<fg::ExpiredFlow> ring{16};
  std::unique_ptr<fg::Pipeline> pipe;
  fg::NetConfig nets;
  uint64_t now = 1700000000ULL * 1000000000ULL;
  uint64_t calls = 0;
  fg::ExpiredFlow drained[16];

  State() {
    fg::PipelineLimits lim;
    lim.max_flows = 8;
    lim.max_hosts = 8;
    lim.max_macs = 4;
    lim.flow_idle_ns = 2ULL * 1000000000;       // 20 inputs
    lim.flow_lifetime_ns = 5ULL * 1000000000;   // 50 inputs
    lim.local_host_idle_ns = 3ULL * 1000000000;
    lim.remote_host_idle_ns = 1ULL * 1000000000;
    pipe = std::make_unique<fg::Pipeline>(lim, &ring);
    for (const char* c : {"10.0.0.0/8", "192.168.1.0/24", "172.16.0.0/12", "fc00::/7", "2001:db8::/32"}) {
      fg::Cidr cidr;
      if (fg::parse_cidr(c, cidr)) nets.local.push_back(cidr);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static State st;
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  const size_t n = size - 1;
  // An exact-size copy: any read before or past the frame is an ASan report.
  std::unique_ptr<uint8_t[]> frame(new uint8_t[n ? n : 1]);
  if (n) std::memcpy(frame.get(), data + 1, n);

  fg::RawPacket raw;
  raw.data = n ? frame.get() : frame.get() + 1;  // zero-length: one past the end, never read
  raw.caplen = uint32_t(n);
  raw.wirelen = (sel & 0x80) ? uint32_t(n) + 1500 : uint32_t(n);
  raw.linktype = kLinks[(sel & 0x0f) % kNumLinks];
  st.now += 100000000ULL;  // 100 ms per input
  raw.ts_ns = st.now;

  st.pipe->process(raw, st.nets);
  if (sel & 0x40) st.pipe->decode_only(raw);
  st.pipe->advance(st.now);

  st.calls++;
  if (st.calls % 7 == 0) st.ring.drain(st.drained, 16);
  if (st.calls % 4096 == 0) {
    st.pipe->flush_all();
    st.ring.drain(st.drained, 16);
  }
  return 0;
}
