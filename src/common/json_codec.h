// The one JSON codec every document cordon writes or reads goes through (nlohmann-json).
// Include it only from the .cpp files that encode or decode: the header is heavy.
//
// Byte strings (paths, argv words, names, messages) are not always UTF-8, and JSON text must
// be. A byte string is a JSON string when its bytes are valid UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF); otherwise it is {"base64": "..."} holding
// the exact bytes (RFC 4648, padded). Readers decode both forms back to the same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// Members keep the order they were written in: documents read the way they were built.
using Json = nlohmann::ordered_json;

bool is_valid_utf8(std::string_view bytes);
std::string base64_encode(std::string_view bytes);
// nullopt for text that is not padded RFC 4648 base64.
std::optional<std::string> base64_decode(std::string_view text);

// A byte string as JSON: a string when valid UTF-8, otherwise {"base64": ...}.
Json bytes_json(std::string_view bytes);
Json bytes_array_json(const std::vector<std::string>& items);
// The inverse; throws cordon::Error when the value is neither form.
std::string bytes_from_json(const Json& value);
std::vector<std::string> bytes_array_from_json(const Json& value);

// One line of JSON text, never throwing: every string cordon puts in a document went through
// bytes_json, so invalid UTF-8 here is a bug, and it is replaced (U+FFFD) rather than crashing
// the command that reports it. DEL and the C1 controls (U+0080..U+009F) are written as
// \u00NN escapes like the C0 controls: the text is safe on a terminal as it is.
std::string dump_line(const Json& document);
// The same, indented two spaces a level, for a person at a terminal.
std::string dump_pretty(const Json& document);

// How deep arrays and objects may nest in a document parse_json reads: nlohmann's parser and
// serializer recurse, and 100000 nested brackets overflow the stack. cordon's own documents
// nest a few levels; an agent's state file (fs/home_audit.h) a few more.
inline constexpr size_t kMaxJsonDepth = 512;

// Parses one JSON document; nullopt with *problem when the text is not JSON, or nests arrays
// and objects deeper than kMaxJsonDepth.
std::optional<Json> parse_json(std::string_view text, std::string* problem);

// True when `document` is an object with "format": format and "version" of major version
// `major` (the integer part); otherwise false with *problem saying which and what to do. A
// version whose integer part does not fit an int (1e300) is no version number.
bool check_format(const Json& document, const char* format, int major, std::string* problem);

// Members that may be absent (a reader ignores unknown members and defaults missing ones).
std::string string_member(const Json& object, const char* key);
std::vector<std::string> string_array_member(const Json& object, const char* key);
bool bool_member(const Json& object, const char* key);
// An integer member that fits a long long; nullopt for anything else (a float, a string, 2^64 - 1).
std::optional<long long> integer_member(const Json& object, const char* key);

}  // namespace cordon
