// SPDX-License-Identifier: MIT
#pragma once

// --redact and --redact-patterns FILE, shared by convert, compact -o, report and export-markdown
// (cli/write.cpp; core/redact/redact.h). The counts per rule go to the command's report: a "redacted"
// line in text, a "redaction" object in --json.

#include "cli/common.h"
#include "core/redact/redact.h"

#include <memory>

namespace cl::cli {

inline const std::vector<OptionSpec> &redactionOptions()
{
    static const std::vector<OptionSpec> specs = {{"--redact", "", false}, {"--redact-patterns", "", true}};
    return specs;
}

// The redactor the options ask for (null without --redact or --redact-patterns, which implies it);
// false with an error for a patterns file that cannot be read or compiled.
bool redactorFromArgs(const Args &a, std::unique_ptr<redact::Redactor> &redactor, std::string &error);
// A write that redacts what `write` produces (in memory, as one file) before it goes to the sink.
std::function<WriteResult(ByteSink &)> redactingWrite(std::function<WriteResult(ByteSink &)> write, redact::Redactor *redactor);
// {"secrets": N, "distinct": N, "rules": {"anthropic-key": 2, ...}}
ojson redactionJson(const redact::Redactor &r);
// "redacted 3 secrets (2 distinct): 2 anthropic-key, 1 jwt\n" or "redacted: no secrets found\n".
std::string redactionText(const redact::Redactor &r);

} // namespace cl::cli
