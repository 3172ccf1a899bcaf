// Writing man pages (roff, the man macros): escaping text so groff prints it as written, and
// the page's title line. The pages themselves are cli/man_pages.h.
#pragma once

#include <string>
#include <string_view>

namespace cordon {

// `text` as roff prints it literally: a backslash as \e, a hyphen-minus as \- (an option's
// dash, not a hyphen), a '.' or '\'' that would start a line as a request behind \&, a
// character outside ASCII as \[uXXXX] and a byte that is not UTF-8 as '?'. Line breaks stay.
std::string roff_escape(std::string_view text);

// Markdown's inline marks as roff: `code` and **strong** in bold, [text](link) as its text;
// everything else escaped as roff_escape does.
std::string roff_from_markdown(std::string_view text);

// The page's .TH line: `name` upper-cased, its section, the source ("cordon VERSION") and
// the manual's title, e.g. "User Commands".
std::string roff_title(const std::string& name, int section, const std::string& manual);

// `text` on lines of its own, filled as a paragraph (every line break a space).
std::string roff_paragraph(std::string_view text);

}  // namespace cordon
