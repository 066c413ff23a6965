// SPDX-License-Identifier: MIT
// docs/design/agents.md §14: Qwen Code chat compression (0.24). Trigger: the prompt above
// min(threshold x window, window - summaryReserve - bufferTokens) (0.85, 20 000, 13 000: its
// computeThresholds). Unlike Gemini CLI it keeps no tail: the whole history becomes one user message
// holding a state snapshot, a model acknowledgement, then up to maxFiles files the agent last read,
// wrote or edited, restored in one user message (each up to maxFileTokens, all within
// maxTotalFileTokens; a larger one, or one past the budget, only listed by path). Qwen Code reads
// those files from disk; here a file's content is the last one the session shows (a read result or
// the content a write call wrote): a file whose last touch was an edit is listed by path. A model
// turn that ends the history with calls still unanswered stays after the new history. Rejected, as
// Qwen Code rejects it, when the summary is empty or the new history is not smaller.
#include "core/strategies/factories.h"
#include "core/strategies/qwen_code.h"

#include "core/strategies/agent_common.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"
#include "core/util/json.h"

#include <algorithm>
#include <unordered_set>

namespace cl::strategy {

std::int64_t qwenCodeCompressAt(std::int64_t window, double threshold, std::int64_t summaryReserve, std::int64_t buffer)
{
    const double share = std::clamp(threshold, 0.0, 1.0);
    const std::int64_t proportional = std::int64_t(share * double(window));
    const std::int64_t ceiling = std::max<std::int64_t>(0, window - summaryReserve) - buffer;
    return ceiling > 0 ? std::min(proportional, ceiling) : proportional;
}

namespace {

using agents::percent;

struct RestoredFile {
    std::string path;
    std::string content; // empty: listed by path only
    std::int64_t tokens = 0;
    std::size_t message = 0;
};

class QwenCodeCompress final : public Strategy
{
public:
    std::string_view name() const override { return "qwen-code"; }
    std::string_view title() const override { return "Qwen Code compression"; }
    std::string_view source() const override { return "peer: Qwen Code"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return "Qwen Code"; }
    std::string_view description() const override
    {
        return "What Qwen Code does near the end of the window (85 %, or 33K tokens before it): the whole history becomes "
               "one state snapshot and a short acknowledgement, then up to 5 files it last read, wrote or edited come back "
               "(<= 5K tokens each, <= 50K in total; larger ones only by path). Rejected when the summary is empty or not "
               "smaller.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"threshold", ParamSpec::Type::Double, 0.0, 1.0, 0.85, {}, "Share of the window that triggers."},
                {"summaryReserve", ParamSpec::Type::Int, 0, 10000000, 20000, {}, "Tokens kept for the summary's output below the window."},
                {"bufferTokens", ParamSpec::Type::Int, 0, 10000000, 13000, {}, "Free tokens kept below the reserve."},
                {"maxFiles", ParamSpec::Type::Int, 0, 100, 5, {}, "Recently touched files restored after the summary."},
                {"maxFileTokens", ParamSpec::Type::Int, 0, 10000000, 5000, {}, "Largest file restored in full (tokens)."},
                {"maxTotalFileTokens", ParamSpec::Type::Int, 0, 10000000, 50000, {}, "Budget of all restored files."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        const std::int64_t total = in.liveTokens();
        const std::int64_t window = in.contextWindow();
        const std::int64_t limit = qwenCodeCompressAt(window, p.number("threshold"), p.integer("summaryReserve"),
                                                      p.integer("bufferTokens"));
        if (!p.flag("force") && total < limit)
            return agents::unchangedResult(in, "below trigger: " + std::to_string(total) + " < " + std::to_string(limit) + " tokens ("
                                                   + percent(double(total) / double(std::max<std::int64_t>(1, window)))
                                                   + " of the window)");
        Editor e(in);
        const Transcript &t = e.transcript();
        std::vector<std::size_t> history; // positions of the turns Qwen Code's history holds
        for (std::size_t pos = 0; pos < e.size(); ++pos)
            if (t.messages[e.at(pos)].role != Role::System)
                history.push_back(pos);
        // A model turn whose calls are still unanswered ends the history: it is kept after the new one.
        std::size_t pending = history.size();
        if (!history.empty()) {
            const Message &last = t.messages[e.at(history.back())];
            if (last.role == Role::Assistant && last.hasToolUse())
                pending = history.size() - 1;
        }
        if (pending < 2)
            return agents::unchangedResult(in, "nothing to compress: fewer than two turns");

        std::int64_t removedTokens = 0;
        Summary s = agents::summarizeTurns(in, e, history, pending, "gemini", removedTokens);
        if (s.text.empty())
            return agents::unchangedResult(in, "compression rejected: the summary is empty");
        Message summaryMsg = makeTextMessage(Role::User,
                                             s.text + "\n\nThe conversation so far is summarised above; continue the work from it.",
                                             MessageKind::CompactSummary);
        Message ackMsg = makeTextMessage(Role::Assistant, std::string(agents::kSnapshotAck));
        std::int64_t added = tokens::estimateMessage(summaryMsg) + tokens::estimateMessage(ackMsg);
        const auto files = restoredFiles(e, p, pending < history.size() ? e.at(history[pending]) : t.messages.size());
        std::optional<Message> filesMsg;
        if (!files.empty()) {
            filesMsg = filesMessage(files);
            added += tokens::estimateMessage(*filesMsg);
        }
        if (added >= removedTokens)
            return agents::unchangedResult(in, "compression rejected: the new history would not be smaller ("
                                                   + std::to_string(added) + " >= " + std::to_string(removedTokens) + " tokens)");
        std::size_t removed = 0;
        for (std::size_t k = 0; k < pending; ++k)
            removed += e.remove(e.at(history[k]), "Qwen Code: the whole history becomes the state snapshot", Fate::Summarized) ? 1 : 0;
        agents::closeRemovals(e);
        std::size_t at = pending < history.size() ? e.at(history[pending]) : t.messages.size();
        for (std::size_t k = 0; k < pending; ++k)
            if (!e.isRemoved(e.at(history[k]))) {
                at = e.at(history[k]); // a pinned turn outlives the compression: the snapshot goes before it
                break;
            }
        e.insertBefore(at, std::move(summaryMsg), "Qwen Code state snapshot of the whole history");
        e.insertBefore(at, std::move(ackMsg), "Qwen Code model acknowledgement");
        nlohmann::json restored = nlohmann::json::array();
        if (filesMsg) {
            e.insertBefore(at, std::move(*filesMsg), "files Qwen Code restores after its compression");
            for (const auto &f : files)
                restored.push_back({{"path", f.path}, {"tokens", f.tokens}, {"embedded", !f.content.empty()}, {"fromMessage", f.message}});
        }
        e.extra()["summary"] = std::move(s.sections);
        e.extra()["restoredFiles"] = restored;
        e.extra()["trigger"] = limit;
        e.log("trigger: min(" + percent(p.number("threshold")) + " of " + std::to_string(window) + ", window - "
              + std::to_string(p.integer("summaryReserve") + p.integer("bufferTokens")) + ") = " + std::to_string(limit)
              + " tokens; live context " + std::to_string(total));
        e.setNote("compressed " + std::to_string(removed) + " turns into a state snapshot, restored " + std::to_string(files.size())
                  + " file(s) (" + std::to_string(removedTokens) + " -> " + std::to_string(added) + " tokens)");
        agents::closeRemovals(e);
        return e.finish();
    }

private:
    // The files of the latest read, write and edit calls, newest first, as far as the budgets go.
    // end: the transcript index the compressed history stops before.
    static std::vector<RestoredFile> restoredFiles(Editor &e, const Params &p, std::size_t end)
    {
        const Transcript &t = e.transcript();
        const auto maxFiles = static_cast<std::size_t>(p.integer("maxFiles"));
        const std::int64_t perFile = p.integer("maxFileTokens");
        const std::int64_t budget = p.integer("maxTotalFileTokens");
        std::vector<RestoredFile> out;
        std::unordered_set<std::string> seen;
        std::int64_t used = 0;
        const auto &rounds = e.analysis().rounds;
        for (std::size_t r = rounds.size(); r-- > 0 && out.size() < maxFiles;) {
            const auto &calls = rounds[r].calls;
            for (std::size_t c = calls.size(); c-- > 0 && out.size() < maxFiles;) {
                const auto &call = calls[c];
                if (call.message >= end || call.failed
                    || (call.kind != analysis::ToolKind::Read && call.kind != analysis::ToolKind::Write && call.kind != analysis::ToolKind::Edit))
                    continue;
                const Block &use = t.messages[call.message].blocks[call.block];
                const auto paths = analysis::toolPaths(use);
                if (paths.empty() || !seen.insert(paths.front()).second)
                    continue;
                RestoredFile f;
                f.path = paths.front();
                f.message = call.message;
                if (call.kind == analysis::ToolKind::Read && call.resultMessage >= 0) {
                    for (const Block &b : t.messages[std::size_t(call.resultMessage)].blocks)
                        if (b.type == BlockType::ToolResult && b.toolId == call.id)
                            f.content = b.text;
                } else if (call.kind == analysis::ToolKind::Write) {
                    f.content = cl::json::str(use.input, "content");
                }
                f.tokens = tokens::estimateText(f.content);
                if (f.content.empty() || f.tokens > perFile || used + f.tokens > budget) {
                    e.log("listed by path only: " + f.path
                          + (f.content.empty() ? " (last touched by an edit: its content is not in the session)"
                                               : " (" + std::to_string(f.tokens) + " tokens)"));
                    f.content.clear();
                    f.tokens = tokens::estimateText(f.path);
                } else {
                    used += f.tokens;
                    e.log("restored " + f.path + " (" + std::to_string(f.tokens) + " tokens, from message " + std::to_string(f.message) + ")");
                }
                out.push_back(std::move(f));
            }
        }
        return out;
    }

    static Message filesMessage(const std::vector<RestoredFile> &files)
    {
        std::string listed, embedded;
        for (const auto &f : files) {
            if (f.content.empty()) {
                listed += "- " + f.path + "\n";
                continue;
            }
            // A fence longer than any run of backticks in the file.
            std::size_t run = 0, longest = 0;
            for (const char ch : f.content) {
                run = ch == '`' ? run + 1 : 0;
                longest = std::max(longest, run);
            }
            const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
            embedded += "\n\nCurrent content of " + f.path + ":\n" + fence + "\n" + f.content + "\n" + fence;
        }
        std::string text;
        if (!listed.empty())
            text = "Files used before the compaction, too large to repeat here (read them again when needed):\n" + listed;
        text += embedded;
        return makeTextMessage(Role::User, text);
    }
};

} // namespace

std::unique_ptr<Strategy> makeQwenCodeCompress()
{
    return std::make_unique<QwenCodeCompress>();
}

} // namespace cl::strategy
