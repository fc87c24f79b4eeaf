#include "dpi/user_rules.h"

#include <atomic>
#include <mutex>

namespace fg {
namespace {

std::mutex g_mu;
std::shared_ptr<const UserRules> g_rules;
std::atomic<uint64_t> g_version{0};

}  // namespace

std::shared_ptr<const UserRules> user_rules_shared() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_rules;
}

const UserRules* user_rules() {
  // This thread's copy of the snapshot pointer, refreshed when the version
  // moved; holding it keeps the snapshot alive for this thread.
  thread_local std::shared_ptr<const UserRules> mine;
  thread_local uint64_t seen = 0;
  const uint64_t v = g_version.load(std::memory_order_acquire);
  if (v != seen) {
    std::lock_guard<std::mutex> lk(g_mu);
    mine = g_rules;
    seen = g_version.load(std::memory_order_relaxed);
  }
  return mine.get();
}

void set_user_rules(std::shared_ptr<UserRules> r) {
  std::lock_guard<std::mutex> lk(g_mu);
  const uint64_t v = g_version.load(std::memory_order_relaxed) + 1;
  if (r) r->version = v;
  g_rules = std::move(r);
  g_version.store(v, std::memory_order_release);
}

}  // namespace fg
