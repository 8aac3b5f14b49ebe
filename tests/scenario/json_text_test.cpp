// The strict JSON reader: the same document as nlohmann's parser where the text is plain JSON, and an error with
// the right position or pointer for repeated keys, trailing bytes, NUL bytes and integers beyond 64 bits.
#include <gtest/gtest.h>

#include "llmsim/scenario/json_text.hpp"
#include "llmsim/util/error.hpp"

namespace {
using llmsim::ScenarioError;
using llmsim::scenario::find_null;
using llmsim::scenario::parse_json_text;
using nlohmann::json;

std::string error_of(const std::string& text) {
  try {
    parse_json_text(text, "f.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonText, PlainDocumentsReadAsNlohmannReadsThem) {
  const std::string text = R"({"a": [1, -2, 3.5, {"b": null, "c": [true, "x"]}], "d": 18446744073709551615,
                               "e": -9223372036854775808, "f": 1e300, "g": {}})";
  EXPECT_EQ(parse_json_text(text, "f.json"), json::parse(text));
  EXPECT_EQ(parse_json_text("  7 \n", "f.json"), json(7));
}

TEST(JsonText, RepeatedKeyNamesItsObject) {
  EXPECT_EQ(error_of(R"({"a": 1, "a": 2})"), "f.json: key \"a\" appears twice in / (each key once per object)");
  EXPECT_EQ(error_of(R"({"x": [{"k": 1}, {"y/z": {"k": 1, "k": 1}}]})"),
            "f.json: key \"k\" appears twice in /x/1/y~1z (each key once per object)");
  // The same key in two objects is fine.
  EXPECT_EQ(parse_json_text(R"([{"k": 1}, {"k": 2}])", "f.json"), json::parse(R"([{"k": 1}, {"k": 2}])"));
}

TEST(JsonText, IntegerBeyond64BitsNamesItsPointer) {
  EXPECT_EQ(error_of(R"({"n": [0, 18446744073709551616]})"),
            "f.json: integer 18446744073709551616 at /n/1 is beyond 64 bits (integers range from "
            "-9223372036854775808 to 18446744073709551615)");
  EXPECT_EQ(error_of("-9223372036854775809"),
            "f.json: integer -9223372036854775809 at / is beyond 64 bits (integers range from "
            "-9223372036854775808 to 18446744073709551615)");
}

TEST(JsonText, BytesAfterTheDocumentAndNulBytes) {
  EXPECT_EQ(error_of("{}\n{}").rfind("f.json: malformed JSON at line 2, column 1: syntax error", 0), 0u)
      << error_of("{}\n{}");
  EXPECT_EQ(error_of(std::string("{}\n ") + '\0'), "f.json: malformed JSON at line 2, column 2: a NUL byte (JSON text has none)");
  EXPECT_EQ(error_of(std::string("{\"a\": \"x") + '\0' + "\"}"),
            "f.json: malformed JSON at line 1, column 9: a NUL byte (JSON text has none)");
}

TEST(JsonText, SyntaxErrorsKeepTheirPosition) {
  EXPECT_EQ(error_of("{\"a\": 1,\n  }").rfind("f.json: malformed JSON at line 2, column 3: syntax error", 0), 0u)
      << error_of("{\"a\": 1,\n  }");
}

TEST(JsonText, NestingIsBoundedBeforeAnyRecursiveReaderSeesIt) {
  // 64 levels read; the 65th container is refused with its pointer (the first element of 64 nested arrays).
  EXPECT_EQ(parse_json_text(std::string(64, '[') + std::string(64, ']'), "f.json").size(), 1u);
  std::string pointer;
  for (int i = 0; i < 64; ++i) pointer += "/0";
  EXPECT_EQ(error_of(std::string(65, '[') + std::string(65, ']')),
            "f.json: objects and arrays nest deeper than 64 levels at " + pointer + " (at most 64)");
  EXPECT_NE(error_of(std::string(100000, '[') + std::string(100000, ']')).find("deeper than 64"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": )" + std::string(30000, '[')).find("deeper than 64"), std::string::npos);
}

TEST(JsonText, FindNullGivesThePointer) {
  EXPECT_EQ(find_null(json::parse(R"({"a": {"b": [1, {"c~d": null}]}})")), "/a/b/1/c~0d");
  EXPECT_EQ(find_null(json::parse(R"({"a": [1, 2], "b": false})")), "");
  EXPECT_EQ(find_null(json()), "/");
}

TEST(ErrorText, ControlCharactersAreEscaped) {
  EXPECT_EQ(llmsim::escape_control("a\nb\tc\rd\x01\x7f" "e"), "a\\nb\\tc\\rd\\x01\\x7fe");
  EXPECT_EQ(std::string(ScenarioError("/x\n", "bad\nvalue").what()), "/x\\n: bad\\nvalue");
  // A right-to-left override (U+202E), an isolate (U+2066) and a C1 control (U+0085) reorder or break a terminal
  // line; other UTF-8 ("é", U+2014) stays as it is.
  EXPECT_EQ(llmsim::escape_control("a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xc2\x85" "d\xc3\xa9\xe2\x80\x94"),
            "a\\u202eb\\u2066c\\u0085d\xc3\xa9\xe2\x80\x94");
  EXPECT_EQ(llmsim::escape_control("line\xe2\x80\xa8" "end\xe2\x80"), "line\\u2028end\xe2\x80");  // a cut-off tail stays
}

TEST(ErrorText, NumbersAsWritten) {
  EXPECT_EQ(llmsim::plain_number(1000001), "1000001");
  EXPECT_EQ(llmsim::plain_number(-2147483648.0), "-2147483648");
  EXPECT_EQ(llmsim::plain_number(0.1), "0.1");
  EXPECT_EQ(llmsim::plain_number(1.5e-7), "1.5e-07");
  EXPECT_EQ(llmsim::plain_number(2.5), "2.5");
  EXPECT_EQ(llmsim::plain_number(1e20), "1e+20");
}

TEST(ErrorText, DecimalNumbersOnly) {
  EXPECT_EQ(llmsim::decimal_number("0.02"), 0.02);
  EXPECT_EQ(llmsim::decimal_number("+1.5e3"), 1500.0);
  EXPECT_EQ(llmsim::decimal_number("-2"), -2.0);
  for (const char* bad : {"", "0x10", "inf", "nan", "1e999", "1e", "1.2.3", "12K", " 1"})
    EXPECT_FALSE(llmsim::decimal_number(bad).has_value()) << bad;
}

}  // namespace
