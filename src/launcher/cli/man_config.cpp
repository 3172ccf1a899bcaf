// cordon.toml(5), from the configuration reference (docs/configuration.md): the one place that
// says each key's type, default and meaning.
#include "common/build_config.h"
#include "common/text.h"
#include "launcher/cli/man_pages.h"
#include "launcher/cli/roff.h"

namespace cordon {
namespace {

// The cells of a markdown table row; a '|' inside `code` belongs to the cell.
std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  bool in_code = false;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '`') in_code = !in_code;
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += row[++i];  // markdown's escaped bar
    } else if (row[i] == '|' && !in_code) {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

// A table as tagged paragraphs: a key's row says its type and default, then its meaning; any
// other row is its first cell, then each other column under its heading.
std::string table_text(const std::vector<std::string>& rows) {
  const std::vector<std::string> heads = cells_of(rows.front());
  const bool keys = heads.size() == 4 && heads[0] == "key";
  std::string out;
  for (size_t r = 2; r < rows.size(); ++r) {  // rows[1] is the |---| line
    const std::vector<std::string> cells = cells_of(rows[r]);
    if (cells.size() != heads.size()) continue;
    out += ".TP\n" + roff_from_markdown(cells[0]) + "\n";
    if (keys) {
      out += "Type: " + roff_from_markdown(cells[1]) + ". Default: " + roff_from_markdown(cells[2]) + ".\n.br\n" +
             roff_from_markdown(cells[3]) + "\n";
      continue;
    }
    for (size_t c = 1; c < cells.size(); ++c)
      out += (c > 1 ? ".br\n" : "") + roff_from_markdown(heads[c]) + ": " + roff_from_markdown(cells[c]) + "\n";
  }
  return out;
}

struct MarkdownToRoff {
  std::string out, paragraph;
  std::vector<std::string> table;

  void flush() {
    if (!paragraph.empty()) out += ".PP\n" + roff_from_markdown(trim(paragraph)) + "\n";
    if (!table.empty()) out += table_text(table);
    paragraph.clear();
    table.clear();
  }

  void line(const std::string& text) {
    if (text.rfind('|', 0) == 0) {
      if (!paragraph.empty()) flush();
      table.push_back(text);
      return;
    }
    if (!table.empty() || trim(text).empty()) flush();
    if (text.rfind("# ", 0) == 0) return;  // the document's title: the page has its own
    if (text.rfind("## ", 0) == 0 || text.rfind("### ", 0) == 0) {
      out += ".SS \"" + roff_from_markdown(trim(text.substr(text.find(' ')))) + "\"\n";
      return;
    }
    if (!trim(text).empty()) paragraph += (paragraph.empty() ? "" : " ") + text;
  }
};

}  // namespace

std::string config_man_page(std::string_view reference_markdown) {
  MarkdownToRoff convert;
  std::string text(reference_markdown);
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    convert.line(text.substr(at, end - at));
    at = end + 1;
  }
  convert.flush();
  std::string out = roff_title("cordon.toml", 5, "File Formats");
  out += ".SH NAME\ncordon.toml \\- the configuration of cordon, the coding-agent sandbox\n";
  out += ".SH SYNOPSIS\n" + roff_escape(build::kConfigPath) + "\n";
  out += ".SH DESCRIPTION\n" + convert.out;
  out += ".SH \"SEE ALSO\"\n\\fBcordon\\fR(1), \\fBcordon\\-battery\\fR(8)\n";
  return out;
}

}  // namespace cordon
