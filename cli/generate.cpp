// SPDX-License-Identifier: MIT
// `generate`: synthetic sessions for demos, tests and benchmarks.
#include "cli/cli.h"

#include "cli/common.h"
#include "core/generator/generator.h"
#include "core/io/writer.h"

#include <charconv>
#include <cstdlib>

namespace cl::cli {

namespace {

bool parseUnsigned(const std::string &s, std::uint64_t &v)
{
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
}

} // namespace

int generate(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--format", "", true}, {"--messages", "", true}, {"--size-mb", "", true}, {"--seed", "", true}, {"--max-read-lines", "", true}, {"--cwd", "", true}, {"--output", "-o", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("generate");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("generate: " + a.error);
    const auto formatArg = a.value("--format");
    const auto outPath = a.value("--output");
    const auto messages = a.value("--messages");
    const auto sizeMb = a.value("--size-mb");
    if (!a.positional.empty() || !formatArg || !outPath || outPath->empty() || messages.has_value() == sizeMb.has_value())
        return o.fail("generate: usage: contextlens-cli generate --format FORMAT (--messages N | --size-mb M) [--seed S] [--cwd DIR] -o OUT");
    std::string error;
    gen::Options opts;
    const auto format = parseFormat(*formatArg, error);
    if (!format)
        return o.fail(error);
    opts.format = *format;
    std::uint64_t v = 0;
    if (messages) {
        if (!parseUnsigned(*messages, v) || v == 0 || v > 50'000'000)
            return o.fail("generate: --messages needs a positive count, got '" + *messages + "'");
        opts.messages = std::size_t(v);
    } else {
        char *end = nullptr;
        const double mb = std::strtod(sizeMb->c_str(), &end);
        if (end == sizeMb->c_str() || *end != '\0' || !(mb > 0) || mb > 3000)
            return o.fail("generate: --size-mb needs a size in MB between 0 and 3000, got '" + *sizeMb + "'");
        opts.targetBytes = std::size_t(mb * 1024 * 1024);
    }
    if (const auto seed = a.value("--seed")) {
        if (!parseUnsigned(*seed, v))
            return o.fail("generate: --seed needs an unsigned number, got '" + *seed + "'");
        opts.seed = v;
    }
    if (const auto maxLines = a.value("--max-read-lines")) {
        if (!parseUnsigned(*maxLines, v) || v == 0 || v > 100000)
            return o.fail("generate: --max-read-lines needs a positive count, got '" + *maxLines + "'");
        opts.maxReadLines = int(v);
    }
    if (const auto cwd = a.value("--cwd")) {
        if (cwd->empty() || cwd->front() != '/')
            return o.fail("generate: --cwd needs an absolute folder, got '" + *cwd + "'");
        opts.cwd = *cwd;
    }
    gen::Stats stats;
    std::string bytes = gen::generate(opts, &stats, &error);
    if (bytes.empty())
        return o.fail("generate: " + (error.empty() ? std::string("nothing generated") : error));
    const bool toStdout = *outPath == "-";
    if (toStdout)
        out += bytes;
    else if (!writeFileAtomic(*outPath, bytes, &error))
        return o.fail(error);
    // clang-format off
    const ojson report{{"output", *outPath}, {"format", std::string(formatName(opts.format))}, {"seed", opts.seed},
        {"bytes", bytes.size()}, {"messages", stats.messages}, {"userPrompts", stats.userPrompts},
        {"assistantResponses", stats.assistantResponses}, {"toolCalls", stats.toolCalls},
        {"failedToolCalls", stats.failedToolCalls}, {"toolRounds", stats.toolRounds},
        {"thinkingBlocks", stats.thinkingBlocks}, {"compactions", stats.compactions}, {"gaps", stats.gaps},
        {"lines", stats.lines}};
    // clang-format on
    std::string summary = o.json ? report.dump(2) + "\n"
                                 : "wrote " + *outPath + " (" + std::string(formatName(opts.format)) + ", " + std::to_string(bytes.size())
                                       + " bytes, " + std::to_string(stats.messages) + " messages, " + std::to_string(stats.toolCalls) + " tool calls, "
                                       + std::to_string(stats.compactions) + " compactions, seed " + std::to_string(opts.seed) + ")\n";
    // With the session on stdout, the summary goes to stderr so the output stays a clean file.
    (toStdout ? err : out) += summary;
    return Exit::Success;
}

} // namespace cl::cli
