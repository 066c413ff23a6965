// SPDX-License-Identifier: MIT
#include "core/strategies/agent_common.h"

#include "core/tokens/estimator.h"

#include <cmath>

namespace cl::strategy::agents {

std::string percent(double ratio)
{
    return std::to_string(static_cast<long long>(std::llround(ratio * 100.0))) + " %";
}

ParamSpec forceParam()
{
    return {"force", ParamSpec::Type::Bool, 0, 0, false, {}, "Skip the trigger and apply anyway (preview)."};
}

bool alternatingFormat(Format f)
{
    return f == Format::Anthropic || f == Format::Gemini;
}

std::int64_t blockTokensWithText(const Block &b, std::string_view text)
{
    Block copy;
    copy.type = b.type;
    copy.toolId = b.toolId;
    copy.toolName = b.toolName;
    copy.isError = b.isError;
    copy.text = std::string(text);
    return tokens::estimateBlock(copy);
}

bool isRequest(const Message &m)
{
    return analysis::isUserRequest(m);
}

bool isObservation(const Message &m)
{
    return m.role == Role::Tool || m.hasToolResult();
}

Summary summarizeTurns(const Input &in, Editor &e, const std::vector<std::size_t> &positions, std::size_t count,
                       const char *style, std::int64_t &seedTokens)
{
    const Transcript &t = e.transcript();
    SummaryRequest req;
    req.transcript = &t;
    req.style = style;
    req.analysis = &e.analysis();
    seedTokens = 0;
    for (std::size_t k = 0; k < count && k < positions.size(); ++k) {
        req.messages.push_back(e.at(positions[k]));
        seedTokens += tokens::estimateMessage(t.messages[e.at(positions[k])]);
    }
    req.tokensBefore = seedTokens;
    return in.summary().summarize(req);
}

Result unchangedResult(const Input &in, std::string note, std::vector<std::string> log)
{
    Editor e(in);
    for (auto &l : log)
        e.log(std::move(l));
    e.log(note);
    e.setNote(std::move(note));
    return e.finish();
}

namespace {

// Position of the tool partner of block b of message `index`, -1 when none (orphan in the input).
std::int64_t partnerPosition(const Editor &e, const Block &b)
{
    if ((b.type != BlockType::ToolUse && b.type != BlockType::ToolResult) || b.pairMessage < 0)
        return -1;
    const auto &pos = e.analysis().view.position;
    const auto pm = static_cast<std::size_t>(b.pairMessage);
    return pm < pos.size() ? pos[pm] : -1;
}

} // namespace

std::size_t countOrphans(const Editor &e, const std::vector<char> &kept)
{
    std::size_t orphans = 0;
    for (std::size_t p = 0; p < e.size(); ++p) {
        if (!kept[p])
            continue;
        for (const Block &b : e.transcript().messages[e.at(p)].blocks) {
            const std::int64_t q = partnerPosition(e, b);
            if (q >= 0 && !kept[static_cast<std::size_t>(q)])
                ++orphans;
        }
    }
    return orphans;
}

void closeKeptPairs(const Editor &e, std::vector<char> &kept)
{
    // A protected message is needed, and so is every partner a needed message pulls back; a message
    // that is not needed goes when a partner is gone. The needed set only grows, so this ends (a
    // plain "restore or remove" loop can flip a message with two calls back and forth forever).
    std::vector<char> needed(e.size(), 0);
    // Protection is pinning or an exempt tool's block (Editor::isProtected): without either, no
    // message is, and walking every message's blocks to find that out is skipped.
    if (!e.input().pinned.empty() || !e.input().exemptTools.empty())
        for (std::size_t p = 0; p < e.size(); ++p)
            needed[p] = e.isProtected(e.at(p)) ? 1 : 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t p = 0; p < e.size(); ++p) {
            if (!kept[p] && !needed[p])
                continue;
            kept[p] = 1;
            for (const Block &b : e.transcript().messages[e.at(p)].blocks) {
                const std::int64_t q = partnerPosition(e, b);
                if (q < 0)
                    continue;
                const auto qq = static_cast<std::size_t>(q);
                if (needed[p] && !needed[qq]) {
                    needed[qq] = 1;
                    kept[qq] = 1;
                    changed = true;
                } else if (!kept[qq] && !needed[p]) {
                    kept[p] = 0;
                    changed = true;
                    break;
                }
            }
        }
    }
}

std::size_t closeRemovals(Editor &e)
{
    std::vector<char> kept(e.size(), 0);
    for (std::size_t p = 0; p < e.size(); ++p)
        kept[p] = e.isRemoved(e.at(p)) ? 0 : 1;
    closeKeptPairs(e, kept);
    std::size_t changes = 0;
    for (std::size_t p = 0; p < e.size(); ++p) {
        const std::size_t i = e.at(p);
        if (kept[p] && e.isRemoved(i)) {
            e.restore(i);
            e.log("kept message " + std::to_string(i) + ": a protected message needs its tool partner");
            ++changes;
        } else if (!kept[p] && !e.isRemoved(i)) {
            e.remove(i, "its tool call or result was removed");
            ++changes;
        }
    }
    return changes;
}

} // namespace cl::strategy::agents
