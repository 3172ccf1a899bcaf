// cordon(1), from the command-line definition and the exit table.
#include "common/build_config.h"
#include "launcher/cli/exit_table.h"
#include "launcher/cli/man_pages.h"
#include "launcher/cli/roff.h"

namespace cordon {
namespace {

std::string option_tag(const CliOption& o) {
  std::string tag;
  for (const auto& name : o.names) tag += (tag.empty() ? "" : ", ") + ("\\fB" + roff_escape(name) + "\\fR");
  if (o.positional) tag = "\\fI" + roff_escape(o.names.front()) + "\\fR";
  if (!o.value.empty() && !o.positional) tag += " \\fI" + roff_escape(o.value) + "\\fR";
  return tag;
}

std::string options_text(const CliCommand& command) {
  std::string out;
  for (const CliOption& o : command.options)
    out += ".TP\n" + option_tag(o) + "\n" + roff_paragraph(o.description + (o.required ? " (required)" : ""));
  return out;
}

// Whether the exit table has rows for the top-level subcommand of `path` ("sessions show").
bool in_exit_table(const std::string& path) {
  const std::string top = path.substr(0, path.find(' '));
  for (const ExitGroup& group : exit_table())
    for (const auto& subcommand : group.subcommands)
      if (subcommand == top) return true;
  return false;
}

std::string subcommand_section(const CliCommand& command) {
  std::string out = ".SS \"cordon " + roff_escape(command.path) + "\"\n" + roff_paragraph(command.description);
  if (!command.subcommands.empty()) {
    out += ".PP\nSubcommands:";
    for (const auto& sub : command.subcommands) out += " \\fB" + roff_escape(sub) + "\\fR";
    out += ".\n";
  }
  out += options_text(command);
  // The statuses of the exit table are its own section, once; another footer stays here.
  if (in_exit_table(command.path)) out += ".PP\nExit status: see \\fBEXIT STATUS\\fR.\n";
  else if (!command.footer.empty()) out += ".PP\n" + roff_paragraph(command.footer);
  return out;
}

std::string exit_status_section() {
  std::string out = ".SH \"EXIT STATUS\"\n";
  for (const ExitGroup& group : exit_table()) {
    out += ".PP\n\\fB" + roff_escape(group.label) + "\\fR\n";
    for (const auto& [status, meaning] : group.rows)
      out += ".TP\n" + roff_escape(status) + "\n" + roff_paragraph(meaning);
  }
  return out;
}

std::string head_sections(const CliCommand& top) {
  std::string out = roff_title("cordon", 1, "User Commands");
  out += ".SH NAME\ncordon \\- " + roff_escape(top.description.substr(top.description.find(": ") + 2)) + "\n";
  out +=
      ".SH SYNOPSIS\n\\fBcordon\\fR [\\fIOPTIONS\\fR] \\fISUBCOMMAND\\fR [\\fISUBCOMMAND-OPTIONS\\fR] "
      "[\\fB\\-\\-\\fR \\fICOMMAND\\fR [\\fIARGS\\fR...]]\n";
  out += ".SH DESCRIPTION\n" +
         roff_paragraph(
             "cordon runs a command (a coding agent, a build, a shell) in a bubblewrap sandbox with a private "
             "network namespace, and supervises it. It claims a property only where a check measures it "
             "(cordon verify), and refuses to launch when a mechanism it needs is missing, naming the fix.");
  out += ".SH OPTIONS\n" + options_text(top);
  return out;
}

std::string tail_sections() {
  std::string out = ".SH FILES\n.TP\n" + roff_escape(build::kConfigPath) + "\n" +
                    roff_paragraph("The configuration, fixed at build time; see cordon.toml(5).");
  out += ".TP\n/var/lib/cordon/sessions, ~/.local/state/cordon/sessions\n" +
         roff_paragraph("Session records of root and of other users (cordon sessions).");
  out +=
      ".SH \"SEE ALSO\"\n\\fBcordon.toml\\fR(5), \\fBcordon\\-battery\\fR(8), \\fBcordon\\-probe\\fR(8), "
      "\\fBbwrap\\fR(1), \\fBpasta\\fR(1)\n";
  out += roff_paragraph("README.md and docs/ under share/doc/cordon.");
  return out;
}

}  // namespace

std::string cordon_man_page(const std::vector<CliCommand>& catalog) {
  std::string out = head_sections(catalog.front());
  out += ".SH SUBCOMMANDS\n";
  for (size_t i = 1; i < catalog.size(); ++i) out += subcommand_section(catalog[i]);
  out += exit_status_section();
  return out + tail_sections();
}

}  // namespace cordon
