#include "common/terminal_classes.h"

namespace cordon {
namespace {

constexpr const char* kNames[kTerminalClassCount] = {"title",  "hyperlink", "clipboard", "palette",  "notify",
                                                     "status", "query",     "window",    "keyboard", "unknown"};

}  // namespace

const char* terminal_class_name(TerminalClass c) { return kNames[static_cast<size_t>(c)]; }

std::optional<TerminalClass> terminal_class_named(std::string_view name) {
  for (size_t i = 0; i < kTerminalClassCount; ++i)
    if (name == kNames[i]) return static_cast<TerminalClass>(i);
  return std::nullopt;
}

std::vector<std::string> passable_terminal_class_names() {
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < kTerminalClassCount; ++i) out.emplace_back(kNames[i]);
  return out;
}

TerminalPassSet default_terminal_pass_set() {
  TerminalPassSet set;
  set.add(TerminalClass::kStatus);
  // The keyboard protocols' replies are keys and flags, arriving as the sandbox's own input;
  // what they change is undone at the session's end (output_filter.h kModeKeyboard).
  set.add(TerminalClass::kKeyboard);
  return set;
}

}  // namespace cordon
