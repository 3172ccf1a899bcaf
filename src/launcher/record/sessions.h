// `cordon sessions list` / `show ID`: reading the records the launcher wrote.
#pragma once

#include <string>

namespace cordon {

int print_sessions_list(const std::string& dir);
int print_session(const std::string& dir, const std::string& id);

}  // namespace cordon
