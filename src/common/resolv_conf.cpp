#include "common/resolv_conf.h"

#include <sstream>

namespace cordon {

std::vector<std::string> resolv_conf_nameservers(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string keyword, value;
    if (words >> keyword >> value && keyword == "nameserver") out.push_back(value);
  }
  return out;
}

}  // namespace cordon
