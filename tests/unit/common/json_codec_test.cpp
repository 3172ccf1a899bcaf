// The JSON codec: byte strings of any content survive a round trip, and what it writes is
// strict JSON (nlohmann's parser rejects invalid UTF-8 and lone surrogates).
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/json_codec.h"

namespace cordon {
namespace {

const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> strings = {
      "",
      "plain",
      "line\nbreak",
      ".x\nwritable /",
      "quote \" and backslash \\ and slash /",
      std::string("nul\0byte", 8),
      std::string("\0", 1),
      "\x01\x02\x1f\x7f controls \t\r\b\f",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7",  // valid UTF-8: é € 🐧
      "\xff\xfe invalid bytes",
      "\xc0\xaf overlong slash",
      "\xe0\x80\xaf overlong slash (3 bytes)",
      "\xed\xa0\x80 CESU lone high surrogate",
      "\xed\xb0\x80 CESU lone low surrogate",
      "\xed\xa0\xbd\xed\xb0\x80 CESU surrogate pair",
      "\xf4\x90\x80\x80 above U+10FFFF",
      "truncated \xe2\x82",
      "\x80 lone continuation",
  };
  return strings;
}

TEST(JsonCodec, Utf8ValidityFollowsRfc3629) {
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9"));
  EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
  EXPECT_TRUE(is_valid_utf8("\xed\x9f\xbf"));      // U+D7FF, just below the surrogates
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));
  EXPECT_FALSE(is_valid_utf8("\xc1\xbf"));
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));
  EXPECT_FALSE(is_valid_utf8("\xf0\x80\x80\xaf"));
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xf8\x88\x80\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));
}

TEST(JsonCodec, Base64RoundTripsEveryLength) {
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  std::string bytes;
  for (int i = 0; i < 260; ++i) {
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes) << i;
    bytes += static_cast<char>(255 - i);
  }
  EXPECT_FALSE(base64_decode("Zm9"));
  EXPECT_FALSE(base64_decode("Zm=v"));
  EXPECT_FALSE(base64_decode("Z!9v"));
}

TEST(JsonCodec, HostileStringsRoundTripThroughStrictJson) {
  for (const auto& bytes : hostile_strings()) {
    Json document{{"value", bytes_json(bytes)}, {"list", bytes_array_json({bytes, "x", bytes})}};
    const std::string text = dump_line(document);
    EXPECT_EQ(text.find('\n'), std::string::npos) << "one line";
    Json parsed = Json::parse(text);  // strict: throws on invalid UTF-8
    EXPECT_EQ(bytes_from_json(parsed["value"]), bytes);
    EXPECT_EQ(bytes_array_from_json(parsed["list"]), (std::vector<std::string>{bytes, "x", bytes}));
    EXPECT_EQ(bytes_json(bytes).is_string(), is_valid_utf8(bytes)) << text;
  }
}

TEST(JsonCodec, InvalidUtf8BecomesBase64) {
  EXPECT_EQ(dump_line(bytes_json("\xff")), R"({"base64":"/w=="})");
  EXPECT_EQ(dump_line(bytes_json("a\nb")), R"("a\nb")");
}

// nlohmann escapes U+0000..U+001F only: DEL and the C1 controls (CSI is U+009B) would reach a
// terminal as they are. dump_line writes them as \u escapes: the same characters, printable.
TEST(JsonCodec, DumpEscapesDelAndC1Controls) {
  const std::string value = "a\x7f" "b\xc2\x9b" "31m\xc2\x80\xc2\x9f\xc2\xa0\xc3\xa9\x1b]0;t\x07";
  const std::string text = dump_line(Json{{"k", bytes_json(value)}});
  EXPECT_EQ(text, R"({"k":"a\u007fb\u009b31m\u0080\u009f)" "\xc2\xa0\xc3\xa9" R"(\u001b]0;t\u0007"})");
  EXPECT_EQ(bytes_from_json(Json::parse(text)["k"]), value);
}

TEST(JsonCodec, DumpNeverThrowsOnStrayBytes) {
  // A string that bypassed bytes_json: replaced, not an internal error.
  Json stray = std::string("\xff");
  EXPECT_NO_THROW(Json::parse(dump_line(stray)));
}

TEST(JsonCodec, DecodingRefusesOtherShapes) {
  EXPECT_THROW(bytes_from_json(Json(3)), Error);
  EXPECT_THROW(bytes_from_json(Json::parse(R"({"base64":"!!"})")), Error);
  EXPECT_THROW(bytes_from_json(Json::parse(R"({"base64":"AA==","x":1})")), Error);
  EXPECT_THROW(bytes_array_from_json(Json("x")), Error);
}

TEST(JsonCodec, FormatAndMajorVersionAreChecked) {
  std::string problem;
  EXPECT_TRUE(check_format(Json::parse(R"({"format":"f","version":2})"), "f", 2, &problem)) << problem;
  EXPECT_TRUE(check_format(Json::parse(R"({"format":"f","version":2.1})"), "f", 2, &problem)) << problem;
  EXPECT_FALSE(check_format(Json::parse(R"({"format":"f","version":3})"), "f", 2, &problem));
  EXPECT_NE(problem.find("version 3"), std::string::npos) << problem;
  EXPECT_FALSE(check_format(Json::parse(R"({"format":"g","version":2})"), "f", 2, &problem));
  EXPECT_FALSE(check_format(Json::parse(R"({"format":"f"})"), "f", 2, &problem));
  EXPECT_FALSE(check_format(Json::parse("[]"), "f", 2, &problem));
  EXPECT_FALSE(parse_json("{", &problem));
  EXPECT_NE(problem.find("not JSON"), std::string::npos);
  EXPECT_FALSE(parse_json("\"\xff\"", &problem)) << "invalid UTF-8 is not JSON";
}

// A version is read as its integer part; one outside int's range must not be converted to int
// (undefined behaviour: x86-64 makes 1e300 INT_MIN, and a compiler may make 2^32 + 2 into 2).
// It is not a version at all, and the reader says so instead of "use the cordon that wrote it".
TEST(JsonCodec, AVersionOutOfRangeIsAFormatErrorNotAConversion) {
  for (const char* version : {"1e300", "-1e300", "4294967298", "4294967298.5", "-4294967294", "2147483650",
                              "18446744073709551615", "1.8446744073709552e19", "9223372036854775809"}) {
    std::string problem;
    const Json document = Json::parse(std::string(R"({"format":"f","version":)") + version + "}");
    EXPECT_FALSE(check_format(document, "f", 2, &problem)) << version;
    EXPECT_NE(problem.find("is not a version number"), std::string::npos) << version << ": " << problem;
  }
  std::string problem;
  EXPECT_TRUE(check_format(Json::parse(R"({"format":"f","version":2.999})"), "f", 2, &problem)) << problem;
  EXPECT_TRUE(check_format(Json::parse(R"({"format":"f","version":2e0})"), "f", 2, &problem)) << problem;
}

// nlohmann's parser and serializer recurse: 100000 nested brackets overflowed the stack. A
// document nested deeper than kMaxJsonDepth is not JSON here.
TEST(JsonCodec, NestingDeeperThanTheBoundIsNotJson) {
  std::string problem;
  const std::string fine = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_json(fine, &problem)) << problem;
  const std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_FALSE(parse_json(deep, &problem));
  EXPECT_NE(problem.find("nested deeper than"), std::string::npos) << problem;
  EXPECT_FALSE(parse_json("{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}", &problem));
  // Brackets inside strings are text, not nesting.
  EXPECT_TRUE(parse_json("[\"" + std::string(100000, '[') + "\\\"\"]", &problem)) << problem;
}

// Integers are read only where they fit: an unsigned value above LLONG_MAX is not a long long.
TEST(JsonCodec, AnIntegerMemberIsReadOnlyWhereItFits) {
  EXPECT_EQ(integer_member(Json::parse(R"({"n":-5})"), "n"), -5);
  EXPECT_EQ(integer_member(Json::parse(R"({"n":9223372036854775807})"), "n"), 9223372036854775807LL);
  EXPECT_EQ(integer_member(Json::parse(R"({"n":18446744073709551615})"), "n"), std::nullopt);
  EXPECT_EQ(integer_member(Json::parse(R"({"n":1e300})"), "n"), std::nullopt);
  EXPECT_EQ(integer_member(Json::parse(R"({"n":"1"})"), "n"), std::nullopt);
}

}  // namespace
}  // namespace cordon
