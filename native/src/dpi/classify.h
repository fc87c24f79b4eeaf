// ④ The classifier of one worker: the dissector dispatch and the pool of
// FlowInfo entries (see dpi.h).
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "dpi/dpi.h"
#include "flow/hash_index.h"
#include "flow/interned_names.h"

namespace fg {

struct UserRules;

// kDpiExtra: classified, one dissector still reads metadata (Match::more).
enum DpiState : uint8_t { kDpiInspecting = 0, kDpiDone = 1, kDpiGaveUp = 2, kDpiExtra = 3 };

class Classifier {
 public:
  Classifier(uint32_t max_flows, double info_share, double meta_share);
  static constexpr uint32_t kMaxMeta = (1u << 24) - 1;  // FlowInfo keeps a metadata index in 24 bits
  static uint32_t pool_size(uint32_t max_flows, double share) { return share_of(max_flows, share) + 16; }

  // A new flow: protocols known from the IP protocol alone (ICMP, GRE …).
  void start(Flow& f) noexcept;
  // A packet (with or without payload) of a flow still being inspected or
  // read for metadata (wants()), as nDPI processes it: its connection
  // tracking (TCP scans, the 32-packet limit), the dissectors for a payload
  // that is not a TCP retransmission (`retrans`), then the checks nDPI makes
  // at the end of a packet it dissected (fully encrypted first packet,
  // payload entropy) and its give-up.
  void packet(Flow& f, const Packet& p, bool from_client, bool retrans) noexcept;
  static bool wants(const Flow& f) noexcept { return f.dpi_state == kDpiInspecting || f.dpi_state == kDpiExtra; }
  // The first packet of an ICMP flow (named at start()): nDPI's entropy of
  // its data.
  void first_icmp(Flow& f, const Packet& p) noexcept;
  // No more packets will be inspected (the flow ends, or the limit passed):
  // nDPI's give-up, which guesses by port.
  void give_up(Flow& f) noexcept;
  // The flow leaves the table.
  void release(Flow& f) noexcept;

  // The flow's FlowInfo while the classifier inspects or reads it (null
  // once settled: read its results through the accessors below).
  const FlowInfo* info(const Flow& f) const noexcept { return f.info && !(f.info & kSettled) ? &pool_[f.info - 1] : nullptr; }
  // The flow is done with (wants() false): its FlowInfo gives way to a
  // FlowResult (nothing changes when the result pool or the name pool is full).
  void settle(Flow& f) noexcept;
  // What the classifier kept of a flow, inspected or settled.
  bool has_state(const Flow& f) const noexcept { return f.info != 0; }
  uint8_t confidence(const Flow& f) const noexcept {  // Unknown without an entry
    if (const FlowResult* r = result(f)) return r->confidence;
    const FlowInfo* fi = info(f);
    return fi ? fi->confidence : 0;
  }
  // The confidence a flow is reported with: its entry's, else DPI for a
  // flow named without one (the pool was full).
  uint8_t reported_confidence(const Flow& f) const noexcept {
    return has_state(f) ? confidence(f) : uint8_t(f.l7_app ? Confidence::Dpi : Confidence::Unknown);
  }
  std::string_view host(const Flow& f) const noexcept {
    if (const FlowResult* r = result(f)) return r->host ? std::string_view(names_.name(r->host - 1)) : std::string_view();
    const FlowInfo* fi = info(f);
    return fi && fi->host[0] ? std::string_view(fi->host, strnlen(fi->host, sizeof(fi->host))) : std::string_view();
  }
  // `host(f)`'s str_hash: a settled flow's was taken when its name was interned.
  uint32_t host_hash(const Flow& f, std::string_view host) const noexcept {
    if (const FlowResult* r = result(f); r && r->host) return names_.hash(r->host - 1);
    return str_hash(host.data(), host.size());
  }
  MetaKind meta_kind(const Flow& f) const noexcept {
    if (const FlowResult* r = result(f)) return MetaKind(r->kind);
    const FlowInfo* fi = info(f);
    return fi ? MetaKind(fi->kind) : MetaKind::None;
  }
  // The DNS fields of a flow whose dissector is DNS's (meta_kind Dns).
  DnsMeta dns(const Flow& f) const noexcept {
    DnsMeta d{};
    if (const FlowResult* r = result(f)) r->dns_into(d);
    else if (const FlowInfo* fi = info(f)) d = fi->dns;
    return d;
  }
  // a risk the engine raises from outside the dissectors (ntopng's periodic flow); false: the flow has no entry
  bool add_risk(const Flow& f, Risk r) noexcept {
    if (!f.info) return false;
    set_word_risk(words(f), r, true);
    return true;
  }
  bool has_stored(const Flow& f, Risk r) const noexcept { return word_risk(words(f), r); }
  // The two stored words as they are (a cheap change test: no expansion).
  uint64_t stored_words(const Flow& f) const noexcept {
    const Words w = words(f);
    return w.w1 ? uint64_t(*w.w1) | uint64_t(*w.w2 & ~kHostMaskChecked) << 32 : 0;
  }
  // The risks kept for a flow's entry (both words), by risk id.
  uint64_t stored_risks(const Flow& f) const noexcept {
    const Words w = words(f);
    return w.w1 ? expand_risks(*w.w1, *w.w2) : 0;
  }
  // entry: FlowInfo pool index; on: raise, else clear
  void set_risk(uint32_t entry, Risk r, bool on) noexcept { set_word_risk(words_at(entry), r, on); }
  bool has_risk(uint32_t entry, Risk r) const noexcept { return word_risk(words_at(entry), r); }
  uint32_t entry_of(const FlowInfo* fi) const noexcept { return uint32_t(fi - &pool_[0]); }
  void prefetch(const Flow& f) const noexcept {
    if (!(f.info & kSettled)) __builtin_prefetch(&pool_[f.info - 1], 1);
  }
  // The flow's metadata entry (a TLS one holds only its kind, cert and tls:
  // the first kTlsMetaBytes of a FlowMeta).
  const FlowMeta* meta(const Flow& f) const noexcept {
    const uint32_t m = meta_index_of(f);
    if (!m) return nullptr;
    if (meta_kind(f) == MetaKind::Tls) return reinterpret_cast<const FlowMeta*>(&tls_[m - 1]);
    return &meta_[m - 1];
  }
  // An interned metadata string ("" for none).
  const char* meta_str(MetaStr r) const noexcept { return r ? strs_.name(r - 1) : ""; }
  // Sets a metadata string to the first cap - 1 bytes of s (up to a NUL),
  // interned; empty, or the string pool full (counted in meta_full): none.
  void set_meta_str(MetaStr& ref, size_t cap, const char* s, size_t n) noexcept;
  // The same for a TLS entry's ALPNs (a pool of their own: short strings).
  const char* alpn(MetaStr r) const noexcept { return r ? alpns_.name(r - 1) : ""; }
  void set_alpn(MetaStr& ref, const char* s, size_t n) noexcept;
  // The flow's interned strings read out (HTTP, SSH, TLS entries).
  void meta_text(const FlowMeta& m, MetaText& out) const noexcept;
  const TlsCert* cert(const FlowMeta& m) const noexcept { return m.kind == MetaKind::Tls && m.cert ? &certs_[m.cert - 1] : nullptr; }
  // Keeps the first certificate's fields for the flow's TLS entry (a pool
  // full: counted in meta_full, the risks and names were judged anyway).
  void keep_cert(FlowMeta& m, const TlsCert& c) noexcept;
  // nDPI's risk mask (bit = ndpi_risk_enum id): what dissectors raised, plus
  // what follows from the flow's protocol, ports and counters.
  uint64_t risks(const Flow& f) const noexcept;
  // The risk nDPI's ip_risk lists give the flow's client (anonymous
  // subscriber, crawler), 0 when none: its check on the flow's first
  // packet (ndpi_internal_detection_process_packet).
  uint8_t ip_list_risk(const Flow& f) const noexcept;
  bool risky_at_naming(const Flow& f) const noexcept;
  bool one_way_for_ndpi(const Flow& f) const noexcept;
  uint64_t info_full() const { return info_full_; }
  uint64_t meta_full() const { return meta_full_; }
  // The flow table was rebuilt at `max_flows` slots: the pools take the same
  // shares of it (they only grow; entries keep their numbers).
  void grow(uint32_t max_flows, double info_share, double meta_share);
  size_t memory_bytes(Mem m = Mem::Resident) const { return pool_.memory_bytes(m) + mem_bytes(risks2_, m) + done_.memory_bytes(m) + names_.memory_bytes(m) + meta_.memory_bytes(m) + tls_.memory_bytes(m) + certs_.memory_bytes(m) + strs_.memory_bytes(m) + alpns_.memory_bytes(m); }

  FlowMeta* ensure_meta(Flow& f, FlowInfo* fi, MetaKind k) noexcept;
  // A dissector reading on after its match names the application (TLS
  // certificate names): master.app, by DPI.
  void refine(Flow& f, uint16_t master, uint16_t app, Confidence c = Confidence::Dpi) noexcept { set(f, master, app, c); }

  // nDPI's endpoint caches (its LRUs lru.stun and lru.tls_cert, 1024
  // entries each): the application a flow was found to carry, remembered
  // per endpoint (address, port) so later flows from or to it are named
  // alike ("DPI (cache)"). Direct-mapped, 0 = none.
  // BitTorrent's (lru.bittorrent, 32768 entries) also keys pairs of peers.
  enum class Cache : uint8_t { Stun = 0, TlsCert = 1, BitTorrent = 2 };
  // An entry is found only by a flow whose last packet is no earlier than
  // the second it was written (nDPI's now_sec >= timestamp; these caches
  // have no TTL), `f` being the flow asking or writing.
  uint16_t cached(Cache which, const IpAddr& ip, uint16_t port, const Flow& f) const noexcept { return cached_key(which, endpoint_key(which, ip, port), f); }
  void remember(Cache which, const IpAddr& ip, uint16_t port, uint16_t app, const Flow& f) noexcept { remember_key(which, endpoint_key(which, ip, port), app, f); }
  uint16_t cached_key(Cache which, uint64_t key, const Flow& f) const noexcept;
  void remember_key(Cache which, uint64_t key, uint16_t app, const Flow& f) noexcept;
  static uint64_t endpoint_key(Cache which, const IpAddr& ip, uint16_t port) noexcept;
  static uint64_t host_key(const IpAddr& ip) noexcept;  // nDPI's key of one address (Ookla's)
  // A flow's client and server addresses, in that order.
  static uint64_t peers_key(const IpAddr& cli, const IpAddr& srv) noexcept;
  // nDPI's search_into_bittorrent_cache: the flow's peers, or either of its
  // endpoints, were seen in a BitTorrent flow.
  bool bittorrent_known(const Flow& f) const noexcept;
  // nDPI's mining cache (lru.mining: 1024 entries, no expiry): Mining,
  // Monero, Nano and Ethereum remember, on their match, the flow's client
  // and server addresses in that order (no ports) with the second of the
  // match; a flow between the same two, given up unclassified no earlier
  // than that second, is named so ("DPI (partial cache)"), after
  // BitTorrent's cache and before the port's guess.
  void remember_mining(const Flow& f, uint16_t app) noexcept;
  uint16_t mining_known(const Flow& f) const noexcept;
  // Bytes dissectors carry from one packet of a flow to a later one where no
  // FlowInfo scratch byte is free for them, in a small table by flow serial:
  // bytes 0-3 IMO's last one-byte datagram (UDP) or Gnutella's NEONet
  // message id (TCP), byte 4 FTP_CONTROL's stage (TCP). memo() is the
  // flow's bytes, or nullptr when another flow took the entry since (the
  // dissector then sees no earlier packet: a missed match, never a false
  // one); memo_take() is the flow's bytes, the entry claimed (zeroed) when
  // another flow held it.
  uint8_t* memo(const Flow& f) noexcept {
    Memo& e = memo_[f.serial % kMemoSlots];
    return e.tag == f.serial + 1 ? e.data : nullptr;
  }
  uint8_t* memo_take(const Flow& f) noexcept {
    Memo& e = memo_[f.serial % kMemoSlots];
    if (e.tag != f.serial + 1) e = {f.serial + 1, {}};
    return e.data;
  }
  // nDPI's Ookla cache (ookla.c, lru.ookla: 1024 entries, 120 s): every
  // DPI naming of a flow Ookla (its dissector, a host name, HTTP's URL /
  // Referer / policy request) remembers the flow's client address (nDPI's
  // client, as mining_key tells it); a flow to server port 8080 from that
  // address, given up unclassified within 120 s, is Ookla ("DPI (partial
  // cache)"), after the mining cache and before the port's guess.
  void remember_ookla(const Flow& f) noexcept;
  bool ookla_known(const Flow& f) const noexcept;

 private:
  FlowInfo* ensure_info(Flow& f) noexcept;
  // packet() before the flow settles
  void step(Flow& f, const Packet& p, bool from_client, bool retrans) noexcept;
  // The dissectors on a payload packet; true when nDPI gives up after it
  // (no dissector left to ask).
  bool inspect(Flow& f, FlowInfo* fi, const Packet& p, bool from_client) noexcept;
  // nDPI's checks at the end of a packet it dissected (fully_enc_heuristic,
  // ndpi_entropy2risk).
  void after_dissection(Flow& f, FlowInfo& fi, const Packet& p) noexcept;
  // ndpi_entropy2risk for the flow as it is now: whether an entropy above
  // plain text's raises the risk (else it is cleared whatever the entropy).
  bool entropy_matters(const Flow& f, const FlowInfo& fi) const noexcept;
  // nDPI's Client Contacted A Malware Host (ndpi_fill_ip_protocol_category).
  bool malware_server(const Flow& f) const noexcept;
  // ndpi_check_tcp_flags, run by nDPI's give-up.
  void tcp_giveup_issues(Flow& f) const noexcept;
  // The give-up named the flow from a cache: not a fully encrypted one.
  void named_by_cache(const Flow& f) noexcept {
    if (f.info) set_word_risk(words(f), Risk::FullyEncrypted, false);
  }
  // While inspecting: the dissector of `proto` answered no on this flow.
  bool ruled_out(const Flow& f, uint16_t proto) const noexcept;
  void extra(Flow& f, FlowInfo& fi, const Packet& p, bool from_client, bool retrans) noexcept;
  void judge_ports(const Flow& f) noexcept;
  void set(Flow& f, uint16_t master, uint16_t app, Confidence c, bool name_after = false) noexcept;
  bool custom_rule(Flow& f, const UserRules& u) noexcept;
  bool user_port_first(Flow& f) noexcept;

  EntryPool<FlowInfo> pool_;
  // settled flows (settle()): their results, and their names kept once
  EntryPool<FlowResult> done_;
  InternedNames<sizeof(FlowInfo::host)> names_;
  // the flow's metadata entry + 1, 0 = none
  uint32_t meta_index_of(const Flow& f) const noexcept {
    if (const FlowResult* r = result(f)) return meta24(r->meta);
    const FlowInfo* fi = info(f);
    return fi ? fi->meta_index() : 0;
  }
  // SSH's probing state (ssh_unanswered) of a flow with an entry
  bool ssh_unanswered_of(const Flow& f) const noexcept;
  const FlowResult* result(const Flow& f) const noexcept { return f.info & kSettled ? &done_[(f.info & ~kSettled) - 1] : nullptr; }
  // The FlowInfo of a flow being inspected, brought back for a settled one
  // (null: no entry, or the pool full).
  FlowInfo* live(Flow& f) noexcept {
    if (!(f.info & kSettled)) return f.info ? &pool_[f.info - 1] : nullptr;
    return unsettle(f);
  }
  FlowInfo* unsettle(Flow& f) noexcept;
  // The two stored risk words of the flow's entry, FlowInfo or FlowResult (null: none).
  struct Words {
    uint32_t *w1, *w2;
  };
  Words words_at(uint32_t entry) const noexcept {  // a FlowInfo entry's
    auto* self = const_cast<Classifier*>(this);
    return {&self->pool_[entry].risks, &self->risks2_[entry]};
  }
  Words words(const Flow& f) const noexcept {
    if (!f.info) return {nullptr, nullptr};
    if (f.info & kSettled) {
      FlowResult& r = const_cast<Classifier*>(this)->done_[(f.info & ~kSettled) - 1];
      return {&r.risks, &r.risks2};
    }
    return words_at(f.info - 1);
  }
  static void set_word_risk(Words w, Risk r, bool on) noexcept {
    const RiskHome h = kRiskHomes.at[uint8_t(r) & 63];
    uint32_t& x = h.word ? *w.w2 : *w.w1;
    x = on ? x | h.bit : x & ~h.bit;
  }
  static bool word_risk(Words w, Risk r) noexcept {
    const RiskHome h = kRiskHomes.at[uint8_t(r) & 63];
    return w.w1 && ((h.word ? *w.w2 : *w.w1) & h.bit) != 0;
  }
  // per FlowInfo entry: the second word of stored risks (kStoredRisks2), beside the
  // 64-byte entries rather than in them
  ZeroArray<uint32_t> risks2_;
  // risks2_'s top two bits (past kStoredRisks2): what nDPI's host risk
  // exceptions gave when it evaluated them, once (set(): a naming that found
  // risks and a name): 0 not evaluated, 1 no exception, 2 the exception
  // mask, 3 every risk masked (builtin_host_risk_mask)
  static constexpr int kHostMaskShift = 30;
  static constexpr uint32_t kHostMaskChecked = uint32_t(3) << kHostMaskShift;
  static_assert(sizeof(kStoredRisks2) <= kHostMaskShift);

  EntryPool<FlowMeta> meta_;      // HTTP, SSH
  EntryPool<TlsMetaSlot> tls_;    // TLS, DTLS, QUIC (each pool a share of the flow table)
  EntryPool<TlsCert> certs_;      // their certificates (TLS ≤ 1.2, DTLS)
  // HTTP's and SSH's recurring strings (room for an HTTP entry's three per
  // metadata entry: never refuses while the metadata pool has room)
  InternedNames<kMetaStrCap> strs_;
  InternedNames<kAlpnCap> alpns_;  // TLS's two ALPNs (room for both per TLS entry)
  template <class Pool>
  static void drop_str(Pool& p, MetaStr& r) noexcept {
    if (r) p.release(r - 1), r = 0;
  }
  template <class Pool>
  void set_str(Pool& p, MetaStr& ref, size_t cap, const char* s, size_t n) noexcept;
  static uint32_t strs_for(uint32_t entries, uint32_t per) noexcept {
    const uint64_t n = uint64_t(entries) * per;
    return uint32_t(n < HashIndex::kNone ? n : HashIndex::kNone - 1);
  }
  struct CacheEntry {
    uint64_t key;
    uint32_t sec;  // written at this second of the writing flow's last packet
    uint16_t app;
  };
  static constexpr size_t kCacheSlots = 1024, kBitTorrentSlots = 32768;
  // nDPI's LRU slot of a key (ndpi_lru_find_cache): djb2 over the key's
  // eight bytes in memory order, modulo the cache's entries
  static size_t lru_slot(uint64_t key, size_t n) noexcept {
    uint32_t h = 5381;
    for (int i = 0; i < 8; i++) h = h * 33 + uint8_t(key >> (8 * i));
    return h % n;
  }
  CacheEntry stun_[kCacheSlots] = {}, tls_cert_[kCacheSlots] = {}, bittorrent_[kBitTorrentSlots] = {};
  CacheEntry mining_[kCacheSlots] = {}, ookla_[kCacheSlots] = {};
  struct Memo {
    uint32_t tag;  // Flow::serial + 1; 0 = empty
    uint8_t data[8];
  };
  static constexpr size_t kMemoSlots = 4096;
  Memo memo_[kMemoSlots] = {};
  static uint64_t mining_key(const Flow& f) noexcept;
  const CacheEntry& slot(Cache which, uint64_t key) const noexcept {
    return which == Cache::Stun ? stun_[lru_slot(key, kCacheSlots)] : which == Cache::TlsCert ? tls_cert_[lru_slot(key, kCacheSlots)] : bittorrent_[lru_slot(key, kBitTorrentSlots)];
  }
  CacheEntry& slot(Cache which, uint64_t key) noexcept { return const_cast<CacheEntry&>(std::as_const(*this).slot(which, key)); }
  uint64_t info_full_ = 0, meta_full_ = 0;
};

}  // namespace fg
