#include "capture/live_source.h"

#include <linux/if_packet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fg {
namespace {

std::string pcap_problem(pcap_t* p, int rc) {
  switch (rc) {
    case PCAP_ERROR_NO_SUCH_DEVICE: return std::string("no such interface (") + pcap_geterr(p) + ")";
    case PCAP_ERROR_PERM_DENIED: return std::string("permission denied: capturing needs root or CAP_NET_RAW (") + pcap_geterr(p) + ")";
    case PCAP_ERROR_PROMISC_PERM_DENIED: return "permission denied for promiscuous mode";
    case PCAP_ERROR_IFACE_NOT_UP: return "interface is down";
    default: return pcap_geterr(p);
  }
}

}  // namespace

LiveSource::LiveSource(const LiveOptions& o) {
  char err[PCAP_ERRBUF_SIZE] = {0};
  pcap_ = pcap_create(o.iface.c_str(), err);
  if (!pcap_) throw std::runtime_error(o.iface + ": " + err);
  pcap_set_snaplen(pcap_, o.snaplen);
  pcap_set_promisc(pcap_, o.promisc ? 1 : 0);
  // Short timeout: stop() and idle queries must not wait on a quiet link.
  pcap_set_timeout(pcap_, 50);
  pcap_set_buffer_size(pcap_, o.buffer_mb << 20);
  pcap_set_tstamp_precision(pcap_, PCAP_TSTAMP_PRECISION_NANO);
  if (o.immediate) pcap_set_immediate_mode(pcap_, 1);
  port_ = o.port;
  int rc = pcap_activate(pcap_);
  if (rc < 0) {
    std::string why = pcap_problem(pcap_, rc);
    pcap_close(pcap_);
    throw std::runtime_error(o.iface + ": " + why);
  }
  if (!o.bpf.empty()) {
    struct bpf_program prog;
    if (pcap_compile(pcap_, &prog, o.bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      std::string why = pcap_geterr(pcap_);
      pcap_close(pcap_);
      throw std::runtime_error(o.iface + ": bad BPF filter '" + o.bpf + "': " + why);
    }
    int src = pcap_setfilter(pcap_, &prog);
    pcap_freecode(&prog);
    if (src != 0) {
      std::string why = pcap_geterr(pcap_);
      pcap_close(pcap_);
      throw std::runtime_error(o.iface + ": cannot set BPF filter: " + why);
    }
  }
  if (o.inbound_only && pcap_setdirection(pcap_, PCAP_D_IN) != 0) {
    std::string why = pcap_geterr(pcap_);
    pcap_close(pcap_);
    throw std::runtime_error(o.iface + ": cannot capture inbound only: " + why);
  }
  // Always non-blocking: a TPACKET_V3 handle in blocking mode waits in
  // poll() without limit until the kernel retires a block, which it never
  // does for a link with no packets — the worker would stop keeping time
  // (expiry, ticks, a recording's clock) on a quiet link or a quiet share of
  // a fanout group. next_batch() polls with a 50 ms limit instead.
  own_poll_ = !o.nonblock;
  {
    char e2[PCAP_ERRBUF_SIZE] = {0};
    if (pcap_setnonblock(pcap_, 1, e2) != 0) {
      pcap_close(pcap_);
      throw std::runtime_error(o.iface + ": cannot set non-blocking mode: " + e2);
    }
  }
  if (o.fanout_group >= 0) {
    // Joined last: from here on the group shares the interface's packets,
    // and a handle that failed above must not have taken any of them.
    int group = o.fanout_group & 0xffff;
    int arg = group | ((PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_DEFRAG) << 16);
    if (setsockopt(pcap_fileno(pcap_), SOL_PACKET, PACKET_FANOUT, &arg, sizeof arg) != 0) {
      int err = errno;
      pcap_close(pcap_);
      throw std::runtime_error(o.iface + ": cannot join packet fanout group " + std::to_string(group) + ": " +
                               std::strerror(err));
    }
  }
  linktype_ = uint16_t(pcap_datalink(pcap_));
  arena_size_ = size_t(4) << 20;
  arena_.reset(new uint8_t[arena_size_]);
}

int LiveSource::new_fanout_group() noexcept {
  static std::atomic<uint32_t> next{0};
  // An odd multiplier keeps the pid's low bits spread; adding the counter
  // after it keeps ids distinct within the process.
  return int((uint32_t(getpid()) * 40503u + next.fetch_add(1, std::memory_order_relaxed)) & 0xffff);
}

LiveSource::~LiveSource() {
  if (pcap_) pcap_close(pcap_);
}

void LiveSource::on_packet(u_char* user, const struct pcap_pkthdr* h, const u_char* bytes) {
  auto* self = reinterpret_cast<LiveSource*>(user);
  if (self->batch_n_ >= self->batch_max_) return;
  uint32_t cap = h->caplen;
  if (self->arena_used_ + cap > self->arena_size_) {
    pcap_breakloop(self->pcap_);
    return;
  }
  uint8_t* dst = self->arena_.get() + self->arena_used_;
  std::memcpy(dst, bytes, cap);
  self->arena_used_ += (cap + 7) & ~size_t(7);
  RawPacket& p = self->batch_[self->batch_n_++];
  p.data = dst;
  p.caplen = cap;
  p.wirelen = h->len < cap ? cap : h->len;
  // Nanosecond precision was requested at activation, so tv_usec holds ns.
  p.ts_ns = uint64_t(h->ts.tv_sec) * 1000000000ULL + uint64_t(h->ts.tv_usec);
  p.linktype = self->linktype_;
  p.port = self->port_;
}

size_t LiveSource::next_batch(RawPacket* out, size_t max) noexcept {
  if (done_) return 0;
  batch_ = out, batch_n_ = 0, batch_max_ = max, arena_used_ = 0;
  // The arena bounds a batch too: max packets of full snaplen may not fit.
  int rc = pcap_dispatch(pcap_, int(max), on_packet, reinterpret_cast<u_char*>(this));
  if (rc == 0 && own_poll_) {
    struct pollfd f = {pcap_get_selectable_fd(pcap_), POLLIN, 0};
    ::poll(&f, 1, 50);
    rc = pcap_dispatch(pcap_, int(max), on_packet, reinterpret_cast<u_char*>(this));
  }
  if (rc == PCAP_ERROR) {
    error_ = pcap_geterr(pcap_);
    done_ = true;
  }
  return batch_n_;
}

void LiveSource::interrupt() noexcept {
  if (pcap_) pcap_breakloop(pcap_);
}

uint64_t LiveSource::kernel_drops() noexcept {
  struct pcap_stat st {};
  // ntopng's drops (PcapInterface::getNumDroppedPackets): what the capture
  // ring had no room for. ps_ifdrop (the NIC's own drops) is left out, as there.
  // libpcap keeps the count in 32 bits: the differences are summed here.
  if (pcap_ && pcap_stats(pcap_, &st) == 0) drops_ += uint32_t(st.ps_drop - last_ps_drop_), last_ps_drop_ = st.ps_drop;
  return drops_;
}

namespace {
LiveOptions bridge_side(LiveOptions o, uint8_t port) {
  o.inbound_only = o.immediate = o.nonblock = true;
  o.port = port;
  return o;
}
}  // namespace

BridgeSource::BridgeSource(const LiveOptions& a, const LiveOptions& b)
    : a_(bridge_side(a, 0)), b_(bridge_side(b, 1)) {}

size_t BridgeSource::next_batch(RawPacket* out, size_t max) noexcept {
  // Each side gets half a batch first, then what the other left; a quiet
  // bridge waits in poll() (50 ms at most, so stop() and time keep moving).
  for (int round = 0; round < 2; round++) {
    LiveSource& x = a_first_ ? a_ : b_;
    LiveSource& y = a_first_ ? b_ : a_;
    a_first_ = !a_first_;
    size_t n = x.next_batch(out, max / 2);
    n += y.next_batch(out + n, max - n);
    if (n || done() || round == 1 || stop_.load(std::memory_order_relaxed)) return n;
    struct pollfd fds[2] = {{a_.selectable_fd(), POLLIN, 0}, {b_.selectable_fd(), POLLIN, 0}};
    ::poll(fds, 2, 50);
  }
  return 0;
}

void BridgeSource::interrupt() noexcept {
  stop_.store(true);
  a_.interrupt();
  b_.interrupt();
}

}  // namespace fg
