// SPDX-License-Identifier: MIT
#pragma once

// --summarizer and its options for compact and compare (docs/design/summaries.md). The CLI library
// has no network code: the program registers how a model summarizer is made (app/cli_main.cpp, and
// the tests), and the commands ask for one here.

#include "cli/common.h"
#include "core/llm/prompts.h"
#include "core/llm/settings.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cl::cli {

using SummarizerFactory =
    std::function<std::unique_ptr<llm::ReportingSummarizer>(const llm::SummarizerSettings &, std::string &error)>;
void setSummarizerFactory(SummarizerFactory factory);

// The options, to add to a command's specs.
const std::vector<OptionSpec> &summarizerOptions();
// rules (or no --summarizer): null and no error. A provider: the summarizer, or null with *error.
std::unique_ptr<llm::ReportingSummarizer> summarizerFromArgs(const Args &a, std::string &error);
// The usage lines of the options.
std::string summarizerHelp();

} // namespace cl::cli
