#include "launcher/workspace/git_config_filter.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <sstream>

namespace cordon {
namespace {

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool comment(char c) { return c == '#' || c == ';'; }

struct Section {
  std::string name, sub;
  bool has_sub = false;
  std::string header() const {
    if (!has_sub) return "[" + name + "]";
    std::string escaped;
    for (char c : sub) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    return "[" + name + " \"" + escaped + "\"]";
  }
};

// Parses "[name]", "[name.sub]" (old form: the subsection is case-insensitive) or
// "[name "sub"]" at line[pos] == '['; on success pos is just past ']'.
std::optional<Section> parse_header(const std::string& line, size_t& pos) {
  Section s;
  size_t i = pos + 1;
  while (i < line.size() && (name_char(line[i]) || line[i] == '.')) s.name += line[i++];
  if (s.name.empty()) return std::nullopt;
  if (i < line.size() && line[i] == ']') {
    if (auto dot = s.name.find('.'); dot != std::string::npos) {
      s.sub = lower(s.name.substr(dot + 1));
      s.name = s.name.substr(0, dot);
      s.has_sub = true;
      if (s.sub.empty() || s.name.empty()) return std::nullopt;
    }
    s.name = lower(s.name);
    pos = i + 1;
    return s;
  }
  if (s.name.find('.') != std::string::npos) return std::nullopt;
  while (i < line.size() && space(line[i])) ++i;
  if (i >= line.size() || line[i] != '"') return std::nullopt;
  for (++i; i < line.size() && line[i] != '"'; ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) ++i;
    s.sub += line[i];
  }
  if (i + 1 >= line.size() || line[i + 1] != ']') return std::nullopt;
  s.name = lower(s.name);
  s.has_sub = true;
  pos = i + 2;
  return s;
}

// True when the value from line[pos] ends in a backslash that joins the next line (outside a
// comment; a backslash escapes the next character, in quotes or not).
bool continues(const std::string& line, size_t pos) {
  bool quoted = false;
  for (size_t i = pos; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\') {
      if (i + 1 == line.size()) return true;
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (comment(c) && !quoted) {
      return false;
    }
  }
  return false;
}

class Scanner {
 public:
  explicit Scanner(const std::string& text) {
    std::stringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines_.push_back(line);
  }

  GitConfigScan run() {
    for (size_t i = 0; i < lines_.size(); ++i) i = statement(i);
    return std::move(out_);
  }

 private:
  // One statement starting at line i; returns the last line it used.
  size_t statement(size_t i) {
    const std::string& line = lines_[i];
    size_t pos = 0;
    while (pos < line.size() && space(line[pos])) ++pos;
    if (pos == line.size() || comment(line[pos])) return i;
    if (line[pos] == '[') {
      std::optional<Section> header = parse_header(line, pos);
      section_ = header;
      header_written_ = false;
      if (!header) {
        out_.refused.push_back("line " + std::to_string(i + 1) + ": malformed section header");
        return i;
      }
      while (pos < line.size() && space(line[pos])) ++pos;
      if (pos == line.size() || comment(line[pos])) return i;
    }
    return key(i, pos);  // git accepts a key on the header's own line too
  }

  size_t key(size_t i, size_t pos) {
    const size_t first = i;
    std::string raw = lines_[i].substr(pos), name;
    while (pos < lines_[i].size() && name_char(lines_[i][pos])) name += lines_[i][pos++];
    size_t after = pos;
    while (after < lines_[i].size() && space(lines_[i][after])) ++after;
    const bool shaped = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
                        (after == lines_[i].size() || lines_[i][after] == '=' || comment(lines_[i][after]));
    size_t from = pos;
    while (continues(lines_[i], from) && i + 1 < lines_.size()) {
      raw += "\n" + lines_[++i];
      from = 0;
    }
    if (!shaped || !section_) {
      out_.refused.push_back("line " + std::to_string(first + 1) + ": " + (section_ ? "unparsed" : "no section"));
      return i;
    }
    name = lower(name);
    const Section& s = *section_;
    if (!git_config_key_allowed(s.name, s.has_sub, name)) {
      out_.refused.push_back(s.name + (s.has_sub ? "." + s.sub : "") + "." + name);
      return i;
    }
    if (!header_written_) out_.filtered += s.header() + "\n";
    header_written_ = true;
    out_.filtered += "\t" + raw + "\n";
    ++out_.allowed;
    return i;
  }

  std::vector<std::string> lines_;
  std::optional<Section> section_;
  bool header_written_ = false;
  GitConfigScan out_;
};

}  // namespace

bool git_config_key_allowed(const std::string& section, bool has_subsection, const std::string& name) {
  // include and includeIf would pull in another file: never, whatever the key.
  if (section == "include" || section == "includeif") return false;
  static const char* const kPlain[] = {"core.repositoryformatversion",
                                       "core.filemode",
                                       "core.bare",
                                       "core.logallrefupdates",
                                       "core.ignorecase",
                                       "core.precomposeunicode",
                                       "core.symlinks",
                                       "user.name",
                                       "user.email",
                                       "init.defaultbranch",
                                       "extensions.objectformat"};
  static const char* const kWithSubsection[] = {"remote.url", "remote.fetch", "branch.remote", "branch.merge"};
  const std::string key = section + "." + name;
  auto listed = [&](const auto& list) { return std::find(std::begin(list), std::end(list), key) != std::end(list); };
  return has_subsection ? listed(kWithSubsection) : listed(kPlain);
}

GitConfigScan scan_git_config(const std::string& text) { return Scanner(text).run(); }

}  // namespace cordon
