// SPDX-License-Identifier: MIT
#pragma once

// Results of the tools a provider runs itself (Block::serverSide results: Anthropic's web search,
// web fetch, code execution), whose text is the whole block as JSON, said in one line for a list.

#include "core/model/transcript.h"

#include <string>

namespace cl {

// "3 results: Title (url); ..." for a web search, the page for a fetch, "error: code" for an
// error, the output's first line for code execution; "" when the text is not such a block.
std::string serverResultSummary(const Block &b);

} // namespace cl
