#include "common/json_codec.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/error.h"

namespace cordon {
namespace {

constexpr std::string_view kBase64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence at bytes[i], or 0 (RFC 3629 table 3-7).
size_t sequence_length(std::string_view bytes, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(bytes[i + k]); };
  const unsigned char lead = at(0);
  if (lead < 0x80) return 1;
  size_t length = lead >= 0xC2 && lead <= 0xDF   ? 2
                  : lead >= 0xE0 && lead <= 0xEF ? 3
                  : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                 : 0;
  if (length == 0 || i + length > bytes.size()) return 0;
  for (size_t k = 1; k < length; ++k)
    if (!is_continuation(at(k))) return 0;
  // The second byte's range rules out overlong forms, surrogates and code points > U+10FFFF.
  if (lead == 0xE0 && at(1) < 0xA0) return 0;
  if (lead == 0xED && at(1) > 0x9F) return 0;
  if (lead == 0xF0 && at(1) < 0x90) return 0;
  if (lead == 0xF4 && at(1) > 0x8F) return 0;
  return length;
}

int base64_value(char c) {
  auto at = kBase64Alphabet.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    size_t length = sequence_length(bytes, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
    out += kBase64Alphabet[(chunk >> 18) & 63];
    out += kBase64Alphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Alphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64Alphabet[chunk & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return std::nullopt;
    uint32_t chunk = 0;
    for (int k = 0; k < 4 - pad; ++k) {
      int v = base64_value(text[i + k]);
      if (v < 0) return std::nullopt;
      chunk |= static_cast<uint32_t>(v) << (18 - 6 * k);
    }
    out += static_cast<char>((chunk >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((chunk >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(chunk & 0xFF);
  }
  return out;
}

Json bytes_json(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return Json(std::string(bytes));
  return Json{{"base64", base64_encode(bytes)}};
}

Json bytes_array_json(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& item : items) out.push_back(bytes_json(item));
  return out;
}

std::string bytes_from_json(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.size() == 1 && value.contains("base64") && value["base64"].is_string())
    if (auto bytes = base64_decode(value["base64"].get<std::string>())) return *bytes;
  throw Error("expected a string or {\"base64\": ...}, found " + dump_line(value),
              "the document was not written by cordon; see docs/schemas.md");
}

std::vector<std::string> bytes_array_from_json(const Json& value) {
  if (!value.is_array()) throw Error("expected an array of strings, found " + dump_line(value));
  std::vector<std::string> out;
  for (const auto& item : value) out.push_back(bytes_from_json(item));
  return out;
}

namespace {

// `text` (nlohmann's output) with DEL and the C1 controls written as \u00NN escapes.
std::string escape_controls(const std::string& text) {
  // nlohmann escapes U+0000..U+001F but writes DEL and the C1 controls (U+0080..U+009F, CSI
  // among them) as they are; a terminal obeys them. They can only stand inside a string (the
  // rest of the text is ASCII), where \u00NN is the same character: the document means the
  // same and holds no control character a terminal would act on.
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c == 0x7f) {
      out += "\\u007f";
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[next >> 4];
      out += kHex[next & 0xf];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string dump_line(const Json& document) {
  return escape_controls(document.dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::string dump_pretty(const Json& document) {
  return escape_controls(document.dump(2, ' ', false, Json::error_handler_t::replace));
}

namespace {

// True when arrays and objects in `text` nest deeper than `limit` (brackets in strings are text).
bool nested_deeper_than(std::string_view text, size_t limit) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::optional<Json> parse_json(std::string_view text, std::string* problem) {
  if (nested_deeper_than(text, kMaxJsonDepth)) {
    if (problem) *problem = "not JSON: nested deeper than " + std::to_string(kMaxJsonDepth);
    return std::nullopt;
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    if (problem) *problem = std::string("not JSON: ") + e.what();
    return std::nullopt;
  }
}

namespace {

// A version's integer part (docs/schemas.md: 2.1 is read as 2), when it fits an int: nullopt
// for 1e300 or 2^32 + 2, whose conversion to int would be undefined behaviour.
std::optional<int> version_number(const Json& version) {
  constexpr auto kMin = static_cast<double>(std::numeric_limits<int>::min());
  constexpr auto kMax = static_cast<double>(std::numeric_limits<int>::max());
  double whole = 0;
  if (version.is_number_unsigned()) whole = static_cast<double>(version.get<unsigned long long>());
  else if (version.is_number_integer()) whole = static_cast<double>(version.get<long long>());
  else if (version.is_number_float()) whole = std::trunc(version.get<double>());
  else return std::nullopt;
  if (!std::isfinite(whole) || whole < kMin || whole > kMax) return std::nullopt;
  return static_cast<int>(whole);
}

}  // namespace

bool check_format(const Json& document, const char* format, int major, std::string* problem) {
  auto fail = [&](const std::string& why) {
    if (problem) *problem = why;
    return false;
  };
  if (!document.is_object() || !document.contains("format") || document["format"] != format)
    return fail(std::string("not a ") + format + " document (no \"format\": \"" + format + "\")");
  const Json& version = document.contains("version") ? document["version"] : Json();
  if (!version.is_number()) return fail(std::string(format) + " document without a numeric version");
  const std::optional<int> number = version_number(version);
  if (!number) return fail(std::string(format) + " version " + dump_line(version) + " is not a version number");
  if (*number != major)
    return fail(std::string(format) + " version " + dump_line(version) + " is not the version " +
                std::to_string(major) + " this cordon reads: use the cordon that wrote it");
  return true;
}

std::string string_member(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) ? bytes_from_json(object[key]) : std::string();
}

std::vector<std::string> string_array_member(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) ? bytes_array_from_json(object[key]) : std::vector<std::string>();
}

bool bool_member(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_boolean() && object[key].get<bool>();
}

std::optional<long long> integer_member(const Json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number_integer()) return std::nullopt;
  const Json& value = object[key];
  // An unsigned value above LLONG_MAX is no long long (nlohmann would wrap it round).
  if (value.is_number_unsigned() && value.get<unsigned long long>() > std::numeric_limits<long long>::max())
    return std::nullopt;
  return value.get<long long>();
}

}  // namespace cordon
