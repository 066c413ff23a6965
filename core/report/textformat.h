// SPDX-License-Identifier: MIT
#pragma once

// Text helpers of the reports: escaping for HTML and Markdown, cuts that keep UTF-8 whole, numbers.
// Every escaping function also makes its input valid UTF-8 (bad bytes become U+FFFD) and replaces
// control characters other than tab and newline, so a transcript's bytes cannot break the page.

#include "core/util/numbertext.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cl::report {

// Valid UTF-8 without control characters (tab and newline kept, "\r\n" becomes "\n").
std::string cleanText(std::string_view s);
// cleanText, then & < > " ' as entities: safe in element content and in quoted attributes.
std::string htmlEscape(std::string_view s);

// Code points of valid UTF-8 (continuation bytes not counted).
std::size_t utf8Length(std::string_view s);
// At most maxChars code points of s, never cutting one.
std::string_view utf8Prefix(std::string_view s, std::size_t maxChars);
// The first line of s, cut to maxChars code points with "…" when longer.
std::string excerpt(std::string_view s, std::size_t maxChars);

// Markdown ---------------------------------------------------------------------------------------

// A message's text "as is" (it is usually Markdown already), made safe to embed: outside code
// fences and code spans, '<' and '&' become entities, so that an HTML tag in the text shows as
// text instead of being rendered; a code fence the text leaves open is closed at its end. Ends with
// a newline.
std::string markdownText(std::string_view s);
// One line of plain text inside Markdown (a heading, a list item, a table cell): newlines become
// spaces and the characters Markdown would interpret are backslash-escaped.
std::string markdownInline(std::string_view s);
// The code fence a line opens or closes ("```", "~~~~", ...; up to three spaces before it), or "".
std::string_view fenceOf(std::string_view line);
// A fenced code block holding s verbatim: the fence is longer than any run of backticks in s.
std::string markdownFence(std::string_view s, std::string_view info = {});

// Numbers ----------------------------------------------------------------------------------------

using util::grouped;                                 // 1234567 -> "1,234,567"
std::string percent(double share, int decimals = 1); // 0.4567 -> "45.7 %"
std::string shortTokens(std::int64_t n);             // 0, 500, 1.5k, 50k, 1.2M

} // namespace cl::report
