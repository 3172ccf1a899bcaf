// cordon-battery(8) and cordon-probe(8), from the helper's own --help text.
#include <map>

#include "common/text.h"
#include "launcher/cli/man_pages.h"
#include "launcher/cli/roff.h"

namespace cordon {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

bool is_option_line(const std::string& line) {
  const size_t indent = line.find_first_not_of(' ');
  return indent != std::string::npos && indent > 0 && line[indent] == '-';
}

// The column the options' descriptions start at: the most common one after a gap of two
// spaces (an option as long as the column leaves only one).
size_t description_column(const std::vector<std::string>& lines) {
  std::map<size_t, int> votes;
  for (const auto& line : lines) {
    if (!is_option_line(line)) continue;
    const size_t gap = line.find("  ", line.find_first_not_of(' '));
    if (gap != std::string::npos && line.find_first_not_of(' ', gap) != std::string::npos)
      ++votes[line.find_first_not_of(' ', gap)];
  }
  size_t best = 0;
  for (const auto& [column, count] : votes)
    if (best == 0 || count > votes[best]) best = column;
  return best;
}

struct HelpParts {
  std::string synopsis, description, options, exit_status;
};

HelpParts parts_of(std::string_view help_text) {
  const std::vector<std::string> lines = lines_of(help_text);
  const size_t column = description_column(lines);
  HelpParts parts;
  std::string paragraph;
  auto flush = [&] {
    if (paragraph.empty()) return;
    (paragraph.rfind("Exit status", 0) == 0 ? parts.exit_status : parts.description) += ".PP\n" +
                                                                                        roff_paragraph(paragraph);
    paragraph.clear();
  };
  for (const auto& line : lines) {
    const size_t indent = line.find_first_not_of(' ');
    if (line.rfind("usage: ", 0) == 0) {
      parts.synopsis = roff_paragraph(line.substr(7));
    } else if (is_option_line(line)) {
      flush();
      const std::string tag = trim(line.substr(0, std::min(column, line.size())));
      const std::string rest = column && line.size() > column ? trim(line.substr(column)) : "";
      parts.options += ".TP\n\\fB" + roff_escape(tag) + "\\fR\n" + (rest.empty() ? "" : roff_paragraph(rest));
    } else if (indent != std::string::npos && column && indent >= column && !parts.options.empty() &&
               paragraph.empty()) {
      parts.options += roff_paragraph(line);  // an option's description, continued
    } else if (indent == std::string::npos) {
      flush();
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + trim(line);
    }
  }
  flush();
  return parts;
}

}  // namespace

std::string helper_man_page(const std::string& name, const std::string& summary, std::string_view help_text) {
  const HelpParts parts = parts_of(help_text);
  std::string out = roff_title(name, 8, "System Administration");
  out += ".SH NAME\n" + roff_escape(name) + " \\- " + roff_escape(summary) + "\n";
  out += ".SH SYNOPSIS\n" + parts.synopsis;
  out += ".SH DESCRIPTION\n" + parts.description;
  out += ".PP\n" + roff_paragraph("cordon verify runs it inside a sandbox; see cordon(1).");
  out += ".SH OPTIONS\n" + parts.options;
  if (!parts.exit_status.empty()) out += ".SH \"EXIT STATUS\"\n" + parts.exit_status;
  out += ".SH \"SEE ALSO\"\n\\fBcordon\\fR(1), \\fBcordon.toml\\fR(5)\n";
  return out;
}

}  // namespace cordon
