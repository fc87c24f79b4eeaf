// libFuzzer target: frames through decode → flow → hosts → counters.
//
// Input layout: byte 0 selects the link type (low nibble, see kLinks) and
// four modifiers; the rest is the captured frame, or several frames.
//   bit 7: the wire length is larger than the captured length (snaplen cut),
//          so decoders must trust caplen and not the headers;
//   bit 6: run the frames through Pipeline::decode_only as well;
//   bit 5: the rest is a sequence of frames, each preceded by its length
//          (2 bytes, big endian; a short last record takes what is left),
//          all handed to the pipeline as one batch (up to 64 frames);
//   bit 4: the frames are fed twice within the same batch (a flow that is
//          created by one packet of a batch and found by a later one).
// The pipeline is static and keeps state across inputs on purpose: its tables
// are tiny (8 flows, 8 hosts, 4 MACs) and the clock moves 100 ms per input, so
// full tables, idle/lifetime expiry, host expiry, the sweep and the expired
// ring (16 records, drained only now and then) are all exercised. An input
// that finds the flow table full flushes it first (see below).
// Build: see native/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

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


constexpr size_t kMaxFrames = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static State st;
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  const uint16_t link = kLinks[(sel & 0x0f) % kNumLinks];

  // Exact-size copies: any read before or past a frame is an ASan report.
  std::vector<std::unique_ptr<uint8_t[]>> bufs;
  std::vector<fg::RawPacket> raw;
  auto add = [&](const uint8_t* p, size_t n) {
    bufs.emplace_back(new uint8_t[n ? n : 1]);
    if (n) std::memcpy(bufs.back().get(), p, n);
    fg::RawPacket r;
    r.data = n ? bufs.back().get() : bufs.back().get() + 1;  // zero-length: one past the end, never read
    r.caplen = uint32_t(n);
    r.wirelen = (sel & 0x80) ? uint32_t(n) + 1500 : uint32_t(n);
    r.linktype = link;
    r.ts_ns = 0;
    raw.push_back(r);
  };
  const uint8_t* p = data + 1;
  size_t left = size - 1;
  if (sel & 0x20) {
    while (left > 0 && raw.size() < kMaxFrames) {
      size_t n = left >= 2 ? size_t(p[0]) << 8 | p[1] : 0;
      size_t hdr = left >= 2 ? 2 : left;
      p += hdr, left -= hdr;
      if (n > left) n = left;
      add(p, n);
      p += n, left -= n;
    }
  } else {
    add(p, left);
  }
  if (sel & 0x10) {
    size_t k = raw.size();
    for (size_t i = 0; i < k && raw.size() < 2 * kMaxFrames; i++) raw.push_back(raw[i]);
  }
  st.now += 100000000ULL;  // 100 ms per input, 1 µs between the frames of one
  for (size_t i = 0; i < raw.size(); i++) raw[i].ts_ns = st.now + i * 1000;

  // A table left full by earlier inputs would turn every new flow away before
  // it is inspected: start each input with room (within one input of many
  // frames the table still fills up, and then turns flows away).
  if (st.pipe->flows().size() == st.pipe->flows().max()) st.pipe->flush_all();
  st.pipe->process_batch(raw.data(), raw.size(), st.nets);
  if (sel & 0x40)
    for (const auto& r : raw) st.pipe->decode_only(r);
  st.pipe->advance(st.now + raw.size() * 1000);

  st.calls++;
  if (st.calls % 7 == 0) st.ring.drain(st.drained, 16);
  if (st.calls % 4096 == 0) {
    st.pipe->flush_all();
    st.ring.drain(st.drained, 16);
  }
  return 0;
}
