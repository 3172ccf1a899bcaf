#include "common/limit_keys.h"

namespace cordon {

const LimitKey* find_limit_key(std::string_view name) {
  for (const auto& k : kLimitKeys)
    if (name == k.name) return &k;
  return nullptr;
}

const LimitKey* find_recorded_limit_key(std::string_view name) {
  return name == kCoreLimit.name ? &kCoreLimit : find_limit_key(name);
}

std::string limit_key_names() {
  std::string out;
  for (const auto& k : kLimitKeys) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

bool limit_value_in_bounds(const LimitKey& key, long long value) {
  if (key.min == 0 && key.max == 0) return value >= 0;
  return value >= key.min && value <= key.max;
}

}  // namespace cordon
