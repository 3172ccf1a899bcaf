// `cordon-battery --only`: which checks to run.
#pragma once

#include <set>
#include <string>

namespace cordon::battery {

// "7,19" or "07,19" -> {"07","19"} added to `ids`; false with *bad = the item for a number
// no check carries.
bool parse_only(const std::string& text, std::set<std::string>& ids, std::string* bad);

}  // namespace cordon::battery
