#include "dpi/user_rules.h"

#include "util/published.h"

namespace fg {

using Rules = Published<UserRules>;

std::shared_ptr<const UserRules> user_rules_shared() { return Rules::shared(); }

void set_user_rules(std::shared_ptr<UserRules> r) {
  // the version keys the per-thread host-name answers (host_match.cpp)
  if (r) r->version = Rules::next_version();
  Rules::publish(std::move(r));
}

}  // namespace fg
