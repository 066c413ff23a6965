// SPDX-License-Identifier: MIT
#pragma once

// Robust JSON helpers shared by the loaders: line splitting that keeps exact bytes, a parse that
// never throws and survives invalid UTF-8 and absurd nesting, tolerant field getters (wrong field
// types read as absent), and a structural scanner that finds the byte range of each element of a
// JSON array, so JSON-document formats can also write untouched items back byte-for-byte.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl {
class ByteSink;
}

namespace cl::json {

using nlohmann::json;

struct LineSpan {
    std::uint32_t offset = 0;        // first byte
    std::uint32_t length = 0;        // including the terminator ("\n" or "\r\n"); the last line may have none
    std::uint32_t contentLength = 0; // without the terminator
    std::uint32_t line = 0;          // 1-based
};
std::vector<LineSpan> splitLines(std::string_view buffer);

bool isValidUtf8(std::string_view s);
std::string sanitizeUtf8(std::string_view s); // invalid sequences become U+FFFD

constexpr int kMaxDepth = 512;
// Deepest nesting of [ and { outside strings; stops counting once above limit.
int nestingDepth(std::string_view text, int limit = kMaxDepth);

enum class ParseStatus {
    Ok,
    OkSanitized,
    Failed
};
// Parses text into out. Never throws. On failure, error says why (with the byte position).
// Text with invalid UTF-8 is parsed after replacing bad bytes (status OkSanitized).
ParseStatus parse(std::string_view text, json &out, std::string &error);
// The same, for a text that has at least readableAfter more bytes readable after its end (a loader's
// padded buffer): a big text made of a few huge values (a 50 MB tool result on one line) is then
// parsed by simdjson in place. nlohmann's lexer keeps two growing copies of each string it reads,
// which cost three times such a text on top of it.
ParseStatus parse(std::string_view text, json &out, std::string &error, std::size_t readableAfter);
// How many texts this thread parsed in place so far (tests and benchmarks).
std::size_t inPlaceParses();
// nlohmann's DOM of a simdjson element (a later duplicate key replaces an earlier one, as nlohmann
// parses; non-negative integers unsigned). Declared in core/util/json_simd.h.

// Tolerant getters: a missing key or a value of the wrong type yields the fallback.
std::string str(const json &obj, std::string_view key, std::string_view fallback = {});
std::int64_t num(const json &obj, std::string_view key, std::int64_t fallback = 0);
bool boolean(const json &obj, std::string_view key, bool fallback = false);
const json *child(const json &obj, std::string_view key);  // nullptr when absent / not an object-child
const json *array(const json &obj, std::string_view key);  // nullptr unless an array
const json *object(const json &obj, std::string_view key); // nullptr unless an object
// The same for the order-keeping documents the writers edit (nlohmann's value() throws on a wrong type).
std::string str(const nlohmann::ordered_json &obj, std::string_view key, std::string_view fallback = {});
bool boolean(const nlohmann::ordered_json &obj, std::string_view key, bool fallback = false);

// Text of a content value: a string as is, an array of blocks as their "text" fields joined by
// '\n' (non-text blocks as their compact JSON), anything else as compact JSON.
std::string flattenText(const json &content);

// Compact dump that never throws (invalid UTF-8 replaced).
std::string dump(const json &j, int indent = -1);
// The same bytes as dump(j, indent), written straight into out without building the string (a 50 MB
// tool result is not copied once more), every line after the first shifted right by `shift` spaces.
void dumpTo(const json &j, ByteSink &out, int indent = -1, unsigned shift = 0);
void dumpTo(const nlohmann::ordered_json &j, ByteSink &out, int indent = -1, unsigned shift = 0);

struct Range {
    std::size_t begin = 0;
    std::size_t end = 0; // one past the last byte
};
// Byte ranges of the elements of the array starting at doc[arrayBegin] == '['. Empty on error.
std::vector<Range> arrayElements(std::string_view doc, std::size_t arrayBegin);
// Range of the value of a top-level key of the object document doc; begin==end==0 when absent.
Range topLevelValue(std::string_view doc, std::string_view key);
// A top-level string field read from the bytes without a DOM (a line may hold a 50 MB tool result);
// empty when absent or not a string. topLevelTrue: the field is the literal true.
std::string topLevelString(std::string_view doc, std::string_view key);
bool topLevelTrue(std::string_view doc, std::string_view key);

} // namespace cl::json
