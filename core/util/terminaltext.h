// SPDX-License-Identifier: MIT
#pragma once

// Text from transcripts (titles, requests, paths, tool output) made safe to print on a terminal:
// a transcript can hold ESC[2J (clear the screen), an OSC sequence (set the window title, write the
// clipboard) or a bare carriage return that hides what came before it. Every control character is
// shown as a visible escape instead: C0 and DEL as "\xNN", C1 (U+0080..U+009F, which some terminals
// obey as 8-bit controls) as "\u0080".."\u009f", so "ESC[2J" prints as "\x1b[2J". Bytes that are no
// UTF-8 become U+FFFD (a lone 0x9b is CSI to an 8-bit terminal).

#include <string>
#include <string_view>

namespace cl::util {

enum class LineBreaks {
    Keep,   // '\n' and '\t' stay (a command's multi-line report)
    Escape, // every control character escaped (one field on one line)
};

std::string terminalSafe(std::string_view text, LineBreaks breaks = LineBreaks::Keep);
// True when terminalSafe(text, breaks) would change nothing.
bool isTerminalSafe(std::string_view text, LineBreaks breaks = LineBreaks::Keep);

// JSON text as written by the commands made safe the same way without changing what it says: the
// characters JSON lets through unescaped that a terminal obeys (DEL, C1) become \u escapes. Only
// for JSON text (every byte >= 0x80 of it is inside a string).
std::string jsonTerminalSafe(std::string_view json);

} // namespace cl::util
