#include "launcher/cli/exit_table.h"

#include "common/error.h"

namespace cordon {
namespace {

std::string n(int status) { return std::to_string(status); }

constexpr size_t kWidth = 100;       // the help's lines wrap before this column
constexpr size_t kStatusWidth = 10;  // "126, 127" and two spaces

// `text` word-wrapped before column kWidth, starting at `column`; each later line is indented
// to `indent`.
std::string wrapped(const std::string& text, size_t column, size_t indent) {
  std::string out;
  bool line_start = true;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const size_t length = end - at;
    if (!line_start && column + 1 + length > kWidth) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++column;
    }
    out.append(text, at, length);
    column += length;
    line_start = false;
    at = end + 1;
  }
  return out;
}

std::string rows_text(const ExitGroup& group, size_t indent) {
  std::string out;
  for (const auto& [status, meaning] : group.rows) {
    std::string start = std::string(indent, ' ') + status;
    start += std::string(indent + kStatusWidth > start.size() ? indent + kStatusWidth - start.size() : 1, ' ');
    out += start + wrapped(meaning, start.size(), indent + kStatusWidth) + "\n";
  }
  return out;
}

}  // namespace

const std::vector<ExitGroup>& exit_table() {
  static const std::vector<ExitGroup> table = {
      {"cordon run",
       {"run"},
       {{"0-255", "the command's own exit status, passed through"},
        {n(kExitSignalBase) + "+N",
         "the command died of signal N (also: cordon was interrupted by signal N before the sandbox started; "
         "nothing ran)"},
        {n(kExitLaunchRefused),
         "cordon failed before the command ran: invalid configuration, usage error, a missing mechanism or "
         "workspace, a failed setup; or the teardown could not be verified"},
        {n(kExitNotExecutable) + ", " + n(kExitNotFound),
         "the command cannot be executed (a directory, no execute permission) / was not found (a path that does "
         "not exist, a name on none of the sandbox's PATH directories), as a shell reports them; nothing ran. A "
         "command the host has but the sandbox hides (under $HOME, in /tmp) still fails inside bwrap and exits " +
             n(kExitLaunchRefused)}}},
      {"cordon verify [--deep]",
       {"verify"},
       {{n(kExitSuccess), "every check PASS (with --deep: and every probe BLOCKED)"},
        {n(kExitChecksFailed),
         "at least one check FAILed, or a probe ESCAPED; the FAIL count is in the report and in the last-verify "
         "record (cordon status)"},
        {n(kExitInconclusive),
         "nothing FAILed or ESCAPED, but a probe was INCONCLUSIVE, or the battery or the probes did not finish "
         "their report"},
        {n(kExitConfigError), "invalid configuration or usage"},
        {n(kExitLaunchRefused), "the sandbox could not be launched (or its teardown could not be verified)"}}},
      {"cordon doctor",
       {"doctor"},
       {{n(kExitSuccess), "no FAIL row (WARN rows allowed)"},
        {n(kExitChecksFailed), "at least one FAIL row"},
        {n(kExitConfigError), "invalid configuration (reported as a FAIL row too) or usage"}}},
      {"cordon diff, apply, discard",
       {"diff", "apply", "discard"},
       {{n(kExitSuccess), "done (apply: every change asked for was applied, or nothing was pending)"},
        {n(kExitChecksFailed),
         "apply refused (a blocking finding not accepted, a conflict with the host tree, the session still "
         "running; nothing was written), or some changes could not be applied (named; the rest landed)"},
        {n(kExitConfigError),
         "invalid configuration or usage: no such pending review (the ones it could mean are named), an unknown "
         "finding id, a path the review does not change"},
        {n(kExitLaunchRefused), "any other failure (the workspace moved or was replaced: nothing was written)"}}},
      {"cordon status, argv, shim, sessions",
       {"status", "argv", "shim", "sessions"},
       {{n(kExitSuccess), "done"},
        {n(kExitConfigError), "invalid configuration or usage (an unknown session id included)"},
        {n(kExitLaunchRefused), "any other failure"}}},
  };
  return table;
}

std::string exit_table_text() {
  std::string out = "Exit status:\n";
  for (const auto& group : exit_table()) out += "  " + group.label + "\n" + rows_text(group, 4);
  return out;
}

std::string exit_rows_text(const std::string& subcommand) {
  for (const auto& group : exit_table())
    for (const auto& name : group.subcommands)
      if (name == subcommand) return "Exit status:\n" + rows_text(group, 2);
  return "";
}

}  // namespace cordon
