#include "battery/selection.h"

#include "battery/check.h"

namespace cordon::battery {

bool parse_only(const std::string& text, std::set<std::string>& ids, std::string* bad) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.size() == 1) item = "0" + item;
    bool known = false;
    for (const auto& c : all_checks()) known |= item == c.id;
    if (!known) {
      *bad = item;
      return false;
    }
    ids.insert(item);
  }
  return true;
}

}  // namespace cordon::battery
