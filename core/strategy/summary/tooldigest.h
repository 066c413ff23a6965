// SPDX-License-Identifier: MIT
#pragma once

// Deterministic one-line digests of tool results (seed 003 tier 2, "microcompact", without an LLM).
// A digest keeps what a model needs to remember that a result existed and what it said:
//
//   Read   "Read /src/utils/parser.ts — 245 lines TypeScript, exports parseConfig(), validateSchema(),
//           3 type definitions"     (definitions: lines starting with function/def/fn/func/class/struct
//                                    names, interfaces/types/enums counted; "exports" when the file
//                                    has export lines, then only exported names; at most 3 + "N more")
//   Grep   "Grep parseConfig — 12 matches in 4 files"  (or "N files with matches", "no matches")
//   Glob   "Glob src/**/*.ts — 17 files"
//   Shell  "Bash npm test — exit 1, 42 lines, last: Tests: 3 failed"   (error first line when failed
//           without an exit code)
//   Edit   "Edit src/a.ts — +3/−1 lines";  Write "Write src/b.ts — 40 lines written"
//   Web    "WebFetch https://x.dev — title: Getting started, 5120 chars"
//   other  "<tool> — <first meaningful line>, N lines"
//
// Kinds come from analysis::toolKind (Read/Write/Edit/Delete/Shell) plus name lists for search,
// file listing and web tools (Claude Code, Codex, Gemini CLI names). A failed result of a Read, Edit
// or Write reports "failed: <first line>". Counts are of the full text passed in; excerpts are cut
// at 80 code points (never inside one) and never contain a line break. Cost is linear in the text.
//
// Used by the microcompact tier and available to any other strategy (peer policies) that wants the
// same lines.

#include "core/model/transcript.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace cl::strategy::tooldigest {

// "[Compacted: <keyOutput>]". toolUse may be an empty Block (orphan result): the result's own
// toolName is used then.
std::string compactLine(const Block &toolUse, const Block &toolResult);
// The part inside the brackets.
std::string keyOutput(const Block &toolUse, const Block &toolResult);
// True when text is already a compact line (starts with "[Compacted:", leading blanks ignored).
bool isCompacted(std::string_view text);
// Language name for a path by its extension ("TypeScript"); empty when unknown.
std::string languageForPath(std::string_view path);
// Lines added / removed by an Edit-kind or Write-kind call, read from its input (old/new strings,
// MultiEdit edits, apply_patch +/- lines, written content); {0, 0} when the input says nothing.
std::pair<std::size_t, std::size_t> lineDelta(const Block &toolUse);

} // namespace cl::strategy::tooldigest
