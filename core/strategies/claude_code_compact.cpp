// SPDX-License-Identifier: MIT
// docs/design/agents.md §4: Claude Code /compact (auto-compact). Trigger: the conversation above triggerRatio (0.92)
// of the window; the later releases trigger at window - bufferTokens (13K), chosen with
// trigger=buffer. The whole history after the system prompt is replaced by one user message (kind
// CompactSummary) holding a continuation preamble and the nine-section summary; then, as Claude
// Code's post-compact attachments do, the latest Read results of up to maxFiles recently read files
// come back as user messages stating each file's current content (a file above maxFileTokens is
// skipped, and files stop once maxTotalFileTokens would be passed). extra()["compactMetadata"]
// holds what Claude Code writes in its compact_boundary line (trigger, preTokens) plus postTokens.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

#include <cmath>
#include <unordered_set>

namespace cl::strategy {

namespace {

using agents::percent;

struct FileRead {
    std::string path;
    std::size_t message = 0; // transcript index of the result
    std::string content;
    std::int64_t tokens = 0;
};

class ClaudeCodeCompact final : public Strategy
{
public:
    std::string_view name() const override { return "claude-code-compact"; }
    std::string_view title() const override { return "Claude Code compact"; }
    std::string_view source() const override { return "peer: Claude Code"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return "Claude Code"; }
    std::string_view description() const override
    {
        return "What Claude Code's auto-compact does at ~92 % of the window: everything after the system prompt becomes "
               "one nine-section summary message with a continuation preamble, then up to 5 recently read files are "
               "re-read (<= 10K tokens each, <= 50K in total).";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"trigger", ParamSpec::Type::Choice, 0, 0, "ratio", {"ratio", "buffer"}, "ratio: compact above triggerRatio of the window (older releases); buffer: above window - bufferTokens "
                                                                                         "(later releases)."},
                {"triggerRatio", ParamSpec::Type::Double, 0.0, 1.0, 0.92, {}, "Share of the window that triggers."},
                {"bufferTokens", ParamSpec::Type::Int, 0, 10000000, 13000, {}, "Free tokens kept (trigger=buffer)."},
                {"maxFiles", ParamSpec::Type::Int, 0, 100, 5, {}, "Recently read files re-read after the summary."},
                {"maxFileTokens", ParamSpec::Type::Int, 0, 10000000, 10000, {}, "Largest file re-read (tokens)."},
                {"maxTotalFileTokens", ParamSpec::Type::Int, 0, 10000000, 50000, {}, "Budget of all re-read files."},
                {"instructions", ParamSpec::Type::String, 0, 0, "", {}, "Custom compact instructions (/compact <text>)."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        const std::int64_t total = in.liveTokens(); // the whole request, as the agent counts it
        const std::int64_t window = in.contextWindow();
        const bool buffer = p.string("trigger") == "buffer";
        const std::int64_t limit = buffer ? window - p.integer("bufferTokens")
                                          : static_cast<std::int64_t>(p.number("triggerRatio") * double(window));
        const bool forced = p.flag("force");
        if (!forced && total <= limit)
            return agents::unchangedResult(in, "below trigger: " + std::to_string(total) + " <= " + std::to_string(limit)
                                                   + " tokens (" + percent(double(total) / double(std::max<std::int64_t>(1, window)))
                                                   + " of the window)");
        Editor e(in);
        const Transcript &t = e.transcript();
        const std::size_t system = leadingSystem(e).size();
        if (system >= e.size())
            return agents::unchangedResult(in, "nothing to compact: no conversation after the system prompt");

        SummaryRequest req;
        req.transcript = &t;
        req.style = "claude-code";
        req.analysis = &e.analysis();
        req.instructions = p.string("instructions");
        for (std::size_t pos = system; pos < e.size(); ++pos) {
            req.messages.push_back(e.at(pos));
            req.tokensBefore += tokens::estimateMessage(t.messages[e.at(pos)]);
        }
        Summary s = in.summary().summarize(req);
        const std::size_t at = e.at(system);
        std::size_t summarized = 0;
        for (std::size_t pos = system; pos < e.size(); ++pos)
            summarized += e.remove(e.at(pos), "replaced by the compact summary", Fate::Summarized) ? 1 : 0;
        Message summary = makeTextMessage(Role::User, s.text, MessageKind::CompactSummary);
        std::int64_t post = tokens::estimateMessage(summary);
        for (const std::size_t i : leadingSystem(e))
            post += tokens::estimateMessage(t.messages[i]);
        e.insertBefore(at, std::move(summary), "Claude Code compact summary (isCompactSummary)");

        const bool alternate = agents::alternatingFormat(t.format);
        const auto files = recentFiles(e, p);
        nlohmann::json reread = nlohmann::json::array();
        for (const auto &f : files) {
            if (alternate) {
                Message ack = makeTextMessage(Role::Assistant, "Noted.");
                post += tokens::estimateMessage(ack);
                e.insertBefore(at, std::move(ack), "keeps roles alternating between re-read files");
            }
            Message m = makeTextMessage(Role::User, "Current content of " + f.path
                                                        + " (re-read after the compaction; it may have changed since "
                                                          "it was first read):\n"
                                                        + f.content);
            post += tokens::estimateMessage(m);
            e.insertBefore(at, std::move(m), "file re-read after compaction: " + f.path + " (from message " + std::to_string(f.message) + ")");
            reread.push_back({{"path", f.path}, {"tokens", f.tokens}, {"fromMessage", f.message}});
            e.log("re-read " + f.path + " (" + std::to_string(f.tokens) + " tokens, latest Read result at message "
                  + std::to_string(f.message) + ")");
        }
        // Both in the agent's count, as Claude Code records them: the live figure before, and after it
        // less what the compaction removed, converted at the figure's own ratio.
        const analysis::UsageInfo &usage = in.analysis().usage;
        const std::int64_t seed = in.totalTokens();
        const double ratio = seed > 0 && usage.tokens > usage.fixedTokens ? double(usage.tokens - usage.fixedTokens) / double(seed) : 1.0;
        const std::int64_t postLive = std::max<std::int64_t>(0, total - std::llround(ratio * double(seed - post)));
        e.extra()["compactMetadata"] = {{"trigger", forced ? "manual" : "auto"}, {"preTokens", total}, {"postTokens", postLive}};
        e.extra()["rereadFiles"] = reread;
        e.extra()["summary"] = std::move(s.sections);
        e.log("trigger " + std::string(buffer ? "window - buffer" : "ratio") + ": limit " + std::to_string(limit)
              + ", live context " + std::to_string(total) + " tokens");
        e.setNote("compacted " + std::to_string(summarized) + " messages into a 9-section summary, re-read "
                  + std::to_string(files.size()) + " file(s): " + std::to_string(total) + " -> " + std::to_string(postLive)
                  + " tokens (live context)");
        agents::closeRemovals(e);
        return e.finish();
    }

private:
    // The latest successful Read result of each recently read file, newest first, within budgets.
    static std::vector<FileRead> recentFiles(Editor &e, const Params &p)
    {
        std::vector<FileRead> out;
        const auto maxFiles = static_cast<std::size_t>(p.integer("maxFiles"));
        const std::int64_t perFile = p.integer("maxFileTokens");
        const std::int64_t budget = p.integer("maxTotalFileTokens");
        std::int64_t used = 0;
        std::unordered_set<std::string> seen;
        const Transcript &t = e.transcript();
        const auto &rounds = e.analysis().rounds;
        for (std::size_t r = rounds.size(); r-- > 0 && out.size() < maxFiles;) {
            const auto &calls = rounds[r].calls;
            for (std::size_t c = calls.size(); c-- > 0 && out.size() < maxFiles;) {
                const auto &call = calls[c];
                if (call.kind != analysis::ToolKind::Read || call.failed || call.resultMessage < 0)
                    continue;
                const auto paths = analysis::toolPaths(t.messages[call.message].blocks[call.block]);
                if (paths.empty() || !seen.insert(paths.front()).second)
                    continue;
                const Message &res = t.messages[static_cast<std::size_t>(call.resultMessage)];
                const Block *found = nullptr;
                for (const Block &b : res.blocks)
                    if (b.type == BlockType::ToolResult && b.toolId == call.id)
                        found = &b;
                if (!found || found->text.empty())
                    continue;
                const std::int64_t tk = tokens::estimateText(found->text);
                if (tk > perFile) {
                    e.log("not re-read: " + paths.front() + " (" + std::to_string(tk) + " tokens > "
                          + std::to_string(perFile) + ")");
                    continue;
                }
                if (used + tk > budget) {
                    e.log("not re-read: " + paths.front() + " (file budget of " + std::to_string(budget)
                          + " tokens reached)");
                    continue;
                }
                used += tk;
                out.push_back({paths.front(), static_cast<std::size_t>(call.resultMessage), found->text, tk});
            }
        }
        return out;
    }
};

} // namespace

std::unique_ptr<Strategy> makeClaudeCodeCompact()
{
    return std::make_unique<ClaudeCodeCompact>();
}

} // namespace cl::strategy
