// SPDX-License-Identifier: MIT
#include "core/workflow/composition.h"

#include "core/analysis/analysis.h"
#include "core/strategies/qwen_code.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/util/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <utility>

namespace cl::composition {

namespace {

// A category's tokens, by its key (ties between equal values go by key, so that compose() and
// overTime() scale the same values the same way).
using Keyed = std::pair<std::string_view, std::int64_t *>;

// Scales `values` so that they add up to `target`: each in proportion, the rounding remainder given
// to the largest values first. All zero: the target goes to the first value.
void scaleTo(std::vector<Keyed> values, std::int64_t target)
{
    if (values.empty())
        return;
    std::int64_t sum = 0;
    for (const Keyed &v : values)
        sum += *v.second;
    if (sum == target)
        return;
    std::stable_sort(values.begin(), values.end(), [](const Keyed &a, const Keyed &z) {
        return *a.second != *z.second ? *a.second > *z.second : a.first < z.first;
    });
    if (sum <= 0) {
        *values.front().second += target - sum;
        return;
    }
    const double ratio = double(target) / double(sum);
    std::int64_t assigned = 0;
    for (Keyed &v : values) {
        *v.second = std::int64_t(std::floor(double(*v.second) * ratio));
        assigned += *v.second;
    }
    for (std::size_t k = 0; assigned < target; k = (k + 1) % values.size(), ++assigned)
        ++*values[k].second;
}

// The ratio a group was scaled by (for its items, which are shown, not added up).
double ratioOf(std::int64_t estimated, std::int64_t figure)
{
    return estimated > 0 ? double(figure) / double(estimated) : 1.0;
}

// The fixed part's values scaled to the figure's fixed part, the messages' to the rest of its total
// (a group without values hands its share to the other). Returns the two targets.
std::pair<std::int64_t, std::int64_t> scaleToFigure(std::vector<Keyed> fixedValues, std::vector<Keyed> messageValues,
                                                    std::int64_t fixed, std::int64_t total)
{
    std::int64_t fixedTarget = fixed, messageTarget = total - fixed;
    if (fixedValues.empty())
        messageTarget += std::exchange(fixedTarget, 0);
    if (messageValues.empty())
        fixedTarget += std::exchange(messageTarget, 0);
    scaleTo(std::move(fixedValues), fixedTarget);
    scaleTo(std::move(messageValues), messageTarget);
    return {fixedTarget, messageTarget};
}

bool sent(const Message &m)
{
    return !m.sidechain && m.isTurn();
}

// First index of the conversation sent with message `at`: after the last compaction before it.
std::size_t contextStart(const Transcript &t, std::size_t at)
{
    for (std::size_t i = at + 1; i-- > 0;)
        if (!t.messages[i].sidechain && t.messages[i].kind == MessageKind::CompactBoundary)
            return i + 1;
    return 0;
}

// "mcp__github__create_issue" -> "github"; "" for a built-in tool.
std::string mcpServer(const std::string &tool)
{
    if (tool.rfind("mcp__", 0) != 0)
        return {};
    const std::size_t end = tool.find("__", 5);
    return tool.substr(5, end == std::string::npos ? std::string::npos : end - 5);
}

std::string resultKey(const std::string &tool)
{
    if (const std::string server = mcpServer(tool); !server.empty())
        return "result:mcp:" + server;
    return "result:" + (tool.empty() ? std::string("(unknown tool)") : tool);
}

std::string labelFor(const std::string &key)
{
    static const std::map<std::string, std::string> fixed = {
        {"system", "System prompt"},
        {"tools", "Built-in tool definitions"},
        {"fixed", "System prompt and tools"},
        {"fixed_rest", "Tool definitions and the rest"},
        {"attach:skills", "Skills listing"},
        {"attach:agents", "Agent definitions"},
        {"attach:memory", "Memory files"},
        {"attach:mcp", "MCP and deferred tool listings"},
        {"attach:files", "Attached files"},
        {"attach:environment", "Environment and reminders"},
        {"user", "User text"},
        {"assistant", "Assistant text"},
        {"thinking", "Thinking"},
        {"tool_calls", "Tool calls"},
        {"media", "Images and documents"},
        {"summary", "Compaction summaries"},
        {"system_messages", "System / developer messages"},
        {"framing", "Message framing"},
        {"other", "Other blocks"},
        {"free", "Free space"},
        {"reserved", "Reserved buffer"},
    };
    if (const auto it = fixed.find(key); it != fixed.end())
        return it->second;
    if (key.rfind("mcp:", 0) == 0)
        return "MCP tools: " + key.substr(4);
    if (key.rfind("result:mcp:", 0) == 0)
        return "Results: MCP " + key.substr(11);
    if (key.rfind("result:", 0) == 0)
        return "Results: " + key.substr(7);
    return key;
}

// A path or command that says which call a result answers (the analysis' readers of a call).
std::string callSubject(const Block &use)
{
    if (const auto paths = analysis::toolPaths(use); !paths.empty())
        return paths.front();
    if (std::string command = analysis::shellCommand(use); !command.empty())
        return command;
    for (const char *k : {"pattern", "url", "query"})
        if (const nlohmann::json *v = use.input.is_object() ? json::child(use.input, k) : nullptr; v && v->is_string())
            return v->get<std::string>();
    return {};
}

std::string fmtK(std::int64_t n)
{
    char buf[32];
    if (std::llabs(n) >= 1000)
        std::snprintf(buf, sizeof buf, "%.1f K", double(n) / 1000.0);
    else
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(n));
    return buf;
}

// Tokens the agent keeps free below the window: its auto-compaction fires there.
std::pair<std::int64_t, std::string> reservedFor(Format f, std::int64_t window)
{
    switch (f) {
    case Format::ClaudeCode: return {std::min<std::int64_t>(13000, window), "Claude Code compacts 13 000 tokens below the window"};
    case Format::Codex:
        return {std::int64_t(std::llround(double(window) * 0.1)), "Codex compacts at 90 % of the window"};
    case Format::GeminiCli:
        return {std::int64_t(std::llround(double(window) * 0.5)), "Gemini CLI compresses at 50 % of the window"};
    case Format::QwenCode:
        return {window - strategy::qwenCodeCompressAt(window), "Qwen Code compresses at 85 % of the window, or 33 000 tokens below it"};
    case Format::CopilotCli:
        return {std::int64_t(std::llround(double(window) * 0.2)), "Copilot CLI compacts at 80 % of its prompt limit"};
    default: return {0, "an API history: no agent buffer"};
    }
}

struct Builder {
    std::vector<Category> cats;
    std::unordered_map<std::string, std::size_t> index;

    Category &get(const std::string &key, Group g)
    {
        const auto [it, added] = index.try_emplace(key, cats.size());
        if (added) {
            Category c;
            c.key = key;
            c.label = labelFor(key);
            c.group = g;
            cats.push_back(std::move(c));
        }
        return cats[it->second];
    }
    void add(const std::string &key, Group g, std::int64_t tokens, std::uint32_t message, std::size_t items = 1)
    {
        Category &c = get(key, g);
        c.tokens += tokens;
        c.items += items;
        if (c.messages.empty() || c.messages.back() != message)
            c.messages.push_back(message);
    }
};

void addFixed(Builder &b, const tokens::FixedPart &fp, std::vector<Item> *items)
{
    if (fp.source != tokens::FixedPart::Source::Recorded) {
        if (fp.systemTokens > 0) { // the system prompt recorded, the rest measured or default
            Category &sys = b.get("system", Group::Fixed);
            sys.tokens = fp.systemTokens;
            sys.items = 1;
        }
        if (fp.tokens - fp.systemTokens > 0) {
            Category &c = b.get(fp.systemTokens > 0 ? "fixed_rest" : "fixed", Group::Fixed);
            c.tokens = fp.tokens - fp.systemTokens;
            c.items = 1;
        }
        return;
    }
    if (fp.systemTokens > 0) {
        Category &c = b.get("system", Group::Fixed);
        c.tokens = fp.systemTokens;
        c.items = 1;
    }
    if (fp.toolDefs.empty() && fp.toolTokens > 0) { // the agent's own count of its tool definitions (Copilot CLI)
        Category &c = b.get("tools", Group::Fixed);
        c.tokens = fp.toolTokens;
        c.items = 1;
    }
    for (const auto &def : fp.toolDefs) {
        const std::string server = mcpServer(def.name);
        Category &c = b.get(server.empty() ? "tools" : "mcp:" + server, Group::Fixed);
        c.tokens += def.tokens;
        ++c.items;
        if (items)
            items->push_back({c.key, "tool definition " + def.name, def.tokens, -1, -1});
    }
    for (const auto &att : fp.attachments) {
        Category &c = b.get("attach:" + att.category, Group::Fixed);
        c.tokens += att.tokens;
        ++c.items;
        c.messages.push_back(att.message);
        if (items)
            items->push_back({c.key, "attachment " + att.kind, att.tokens, std::int32_t(att.message), -1});
    }
}

// The message's blocks into categories; framing takes what the blocks do not explain, so that the
// categories add up to estimateMessage(m) exactly.
void addMessage(Builder &b, const Transcript &t, std::size_t i, std::vector<Item> *items)
{
    const Message &m = t.messages[i];
    const auto mi = std::uint32_t(i);
    std::int64_t blocks = 0;
    for (std::size_t k = 0; k < m.blocks.size(); ++k) {
        const Block &blk = m.blocks[k];
        const std::int64_t n = tokens::estimateBlock(blk);
        blocks += n;
        std::string key, label;
        switch (blk.type) {
        case BlockType::Text:
            key = m.kind == MessageKind::CompactSummary ? "summary"
                  : m.role == Role::Assistant           ? "assistant"
                  : m.role == Role::System              ? "system_messages"
                                                        : "user";
            label = labelFor(key);
            break;
        case BlockType::Thinking:
        case BlockType::RedactedThinking:
            key = "thinking";
            label = "thinking";
            break;
        case BlockType::ToolUse:
            key = "tool_calls";
            label = "call " + blk.toolName;
            break;
        case BlockType::ToolResult: {
            key = resultKey(blk.toolName);
            label = blk.toolName;
            if (blk.pairMessage >= 0 && std::size_t(blk.pairMessage) < t.messages.size()) {
                const Message &call = t.messages[std::size_t(blk.pairMessage)];
                if (blk.pairBlock >= 0 && std::size_t(blk.pairBlock) < call.blocks.size())
                    if (const std::string s = callSubject(call.blocks[std::size_t(blk.pairBlock)]); !s.empty())
                        label += " " + s.substr(0, 120);
            }
            break;
        }
        case BlockType::Image:
        case BlockType::Document:
            key = "media";
            label = blk.type == BlockType::Image ? "image" : "document";
            break;
        case BlockType::Raw:
            key = "other";
            label = "raw block";
            break;
        }
        b.add(key, Group::Messages, n, mi);
        if (items)
            items->push_back({key, label, n, std::int32_t(i), std::int32_t(k)});
    }
    b.add("framing", Group::Messages, tokens::estimateMessage(m) - blocks, mi);
}

} // namespace

std::string groupName(Group g)
{
    switch (g) {
    case Group::Fixed: return "fixed";
    case Group::Messages: return "messages";
    case Group::Space: return "space";
    }
    return "messages";
}

const Category *Composition::find(const std::string &key) const
{
    for (const auto &c : categories)
        if (c.key == key)
            return &c;
    return nullptr;
}

Composition compose(const Transcript &t, std::size_t at, const Options &o)
{
    Composition c;
    if (!t.messages.empty())
        at = std::min(at, t.messages.size() - 1);
    else
        at = 0;
    c.at = at;
    c.from = t.messages.empty() ? 0 : contextStart(t, at);
    const tokens::FixedPart fp = tokens::fixedPart(t);
    c.fixedSource = std::string(tokens::fixedPartSourceName(fp.source));
    Builder b;
    std::vector<Item> items;
    addFixed(b, fp, &items);
    std::unordered_map<std::string, RepeatedRead> reads;
    std::vector<std::string> readOrder;
    for (std::size_t i = c.from; i <= at && i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!sent(m))
            continue;
        addMessage(b, t, i, &items);
        for (const Block &blk : m.blocks) {
            if (blk.type != BlockType::ToolResult || analysis::toolKind(blk.toolName) != analysis::ToolKind::Read
                || blk.pairMessage < 0)
                continue;
            const Message &call = t.messages[std::size_t(blk.pairMessage)];
            if (blk.pairBlock < 0 || std::size_t(blk.pairBlock) >= call.blocks.size())
                continue;
            const std::string path = callSubject(call.blocks[std::size_t(blk.pairBlock)]);
            if (path.empty())
                continue;
            auto [it, added] = reads.try_emplace(path);
            if (added)
                readOrder.push_back(path);
            RepeatedRead &r = it->second;
            r.path = path;
            ++r.reads;
            const std::int64_t n = tokens::estimateBlock(blk);
            r.tokens += n;
            r.onceTokens = n; // the latest read
            r.messages.push_back(std::uint32_t(i));
        }
    }
    // The latest response: the last assistant message's API message id (or the message alone).
    std::size_t lastResponse = SIZE_MAX;
    for (std::size_t i = std::min(at + 1, t.messages.size()); i-- > c.from;)
        if (sent(t.messages[i]) && t.messages[i].role == Role::Assistant) {
            lastResponse = i;
            break;
        }
    for (const Item &it : items)
        if (it.category == "thinking" && it.message >= 0 && std::size_t(it.message) != lastResponse
            && (lastResponse == SIZE_MAX || t.messages[std::size_t(it.message)].apiMessageId.empty()
                || t.messages[std::size_t(it.message)].apiMessageId != t.messages[lastResponse].apiMessageId))
            c.earlierThinking += it.tokens;
    // In the figure's count: the fixed part's categories scaled to its fixed part, the messages' to
    // its conversation (a group without categories hands its share to the other).
    const tokens::ContextFigure figure = tokens::contextFigure(t, o.estimator, at);
    c.basis = std::string(tokens::basisName(figure.basis));
    c.how = figure.how;
    std::vector<Keyed> fixedValues, messageValues;
    std::int64_t fixedEstimate = 0, messageEstimate = 0;
    for (auto &c2 : b.cats) {
        (c2.group == Group::Fixed ? fixedValues : messageValues).push_back({c2.key, &c2.tokens});
        (c2.group == Group::Fixed ? fixedEstimate : messageEstimate) += c2.tokens;
    }
    const auto [fixedTarget, messageTarget] = scaleToFigure(fixedValues, messageValues, figure.fixed, figure.total);
    const double fixedRatio = ratioOf(fixedEstimate, fixedTarget), messageRatio = ratioOf(messageEstimate, messageTarget);
    for (Item &it : items)
        it.tokens = std::llround(double(it.tokens) * (it.message < 0 ? fixedRatio : messageRatio));
    for (auto &[path, r] : reads) {
        r.tokens = std::llround(double(r.tokens) * messageRatio);
        r.onceTokens = std::llround(double(r.onceTokens) * messageRatio);
    }
    c.earlierThinking = std::llround(double(c.earlierThinking) * messageRatio);
    for (const auto &c2 : b.cats)
        c.total += c2.tokens;
    // Fixed first (as recorded), then the messages' categories largest first.
    std::stable_sort(b.cats.begin(), b.cats.end(), [](const Category &a, const Category &z) {
        if (a.group != z.group)
            return a.group < z.group;
        return a.group == Group::Messages ? a.tokens > z.tokens : false;
    });
    c.categories = std::move(b.cats);

    analysis::AnalysisOptions ao;
    ao.contextWindow = o.contextWindow;
    const analysis::WindowChoice w = analysis::contextWindowOf(t, ao);
    c.window = w.window;
    c.windowSource = w.source;
    std::tie(c.reserved, c.reservedHow) = reservedFor(t.format, c.window);
    c.free = std::max<std::int64_t>(0, c.window - c.total - c.reserved);
    for (const auto &[key, tokens] : {std::pair<const char *, std::int64_t>{"free", c.free}, {"reserved", c.reserved}}) {
        Category space;
        space.key = key;
        space.label = labelFor(key);
        space.group = Group::Space;
        space.tokens = tokens;
        c.categories.push_back(std::move(space));
    }

    std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &z) { return a.tokens > z.tokens; });
    std::unordered_map<std::string, std::size_t> position;
    for (std::size_t k = 0; k < c.categories.size(); ++k)
        position[c.categories[k].key] = k;
    for (const Item &it : items)
        if (const auto p = position.find(it.category); p != position.end())
            if (auto &top = c.categories[p->second].top; top.size() < o.topPerCategory)
                top.push_back(it);
    if (items.size() > o.biggest)
        items.resize(o.biggest);
    c.biggest = std::move(items);
    for (const auto &p : readOrder)
        if (reads[p].reads > 1)
            c.repeatedReads.push_back(std::move(reads[p]));
    std::sort(c.repeatedReads.begin(), c.repeatedReads.end(),
              [](const RepeatedRead &a, const RepeatedRead &z) { return a.tokens - a.onceTokens > z.tokens - z.onceTokens; });
    return c;
}

Series overTime(const Transcript &t, const Options &o)
{
    Series s;
    const tokens::FixedPart fp = tokens::fixedPart(t);
    // One walk: the categories of the running context, reset at every compaction.
    Builder fixed;
    addFixed(fixed, fp, nullptr);
    Builder running;
    std::vector<std::vector<std::int64_t>> rows; // by Builder index, widened as categories appear
    std::vector<std::string> order;
    for (const auto &c : fixed.cats)
        order.push_back(c.key);
    std::unordered_map<std::string, std::size_t> column;
    for (std::size_t k = 0; k < order.size(); ++k)
        column[order[k]] = k;
    std::vector<std::int64_t> current(order.size(), 0);
    for (std::size_t k = 0; k < fixed.cats.size(); ++k)
        current[k] = fixed.cats[k].tokens;
    const std::vector<std::int64_t> fixedValues = current;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.sidechain && m.kind == MessageKind::CompactBoundary) {
            current = fixedValues;
            current.resize(order.size(), 0);
            continue;
        }
        if (!sent(m))
            continue;
        Builder one;
        addMessage(one, t, i, nullptr);
        for (const auto &c : one.cats) {
            auto [it, added] = column.try_emplace(c.key, order.size());
            if (added) {
                order.push_back(c.key);
                current.push_back(0);
            }
            current[it->second] += c.tokens;
        }
        s.messages.push_back(std::uint32_t(i));
        rows.push_back(current);
        std::int64_t total = 0;
        for (const auto v : current)
            total += v;
        s.totals.push_back(total);
    }
    s.keys = order;
    for (const auto &k : order)
        s.labels.push_back(labelFor(k));
    for (auto &r : rows)
        r.resize(order.size(), 0);
    // Each row in the figure's count, as compose() does it.
    const std::vector<tokens::FigureParts> figures = tokens::contextSeries(t, s.messages, o.estimator);
    const std::size_t fixedColumns = fixed.cats.size();
    for (std::size_t k = 0; k < rows.size(); ++k) {
        std::vector<Keyed> fixedValues, messageValues;
        for (std::size_t col = 0; col < rows[k].size(); ++col)
            if (col < fixedColumns)
                fixedValues.push_back({order[col], &rows[k][col]});
            else if (rows[k][col] > 0)
                messageValues.push_back({order[col], &rows[k][col]});
        scaleToFigure(std::move(fixedValues), std::move(messageValues), figures[k].fixed, figures[k].total);
        s.totals[k] = figures[k].total;
    }
    s.values = std::move(rows);
    return s;
}

std::vector<Suggestion> suggest(const Transcript &t, const Composition &c)
{
    std::vector<Suggestion> out;
    strategy::Input in(t);
    auto tryStrategy = [&](std::string text, const char *name, nlohmann::json params) {
        Suggestion s;
        s.text = std::move(text);
        s.strategy = name;
        s.params = std::move(params);
        if (const strategy::Strategy *st = strategy::find(name)) {
            for (const auto &spec : st->params()) // past its own trigger: what it would free now
                if (spec.name == "force")
                    s.params["force"] = true;
            strategy::RunOptions ro;
            ro.validate = false;
            ro.metrics = false;
            const strategy::Result r = strategy::run(*st, in, s.params, ro);
            // In the composition's count: the live context before and after (fixed part included).
            s.frees = r.changed ? std::max<std::int64_t>(0, r.stats.liveBefore - r.stats.liveAfter) : 0;
            s.note = r.note;
        }
        out.push_back(std::move(s));
    };
    std::int64_t bigOutputs = 0;
    std::size_t bigCount = 0;
    for (const auto &cat : c.categories)
        if (cat.key.rfind("result:", 0) == 0)
            for (const auto mi : cat.messages)
                for (const Block &b : t.messages[mi].blocks)
                    if (b.type == BlockType::ToolResult && b.text.size() > 10000 && resultKey(b.toolName) == cat.key) {
                        bigOutputs += tokens::estimateBlock(b);
                        ++bigCount;
                    }
    if (bigCount)
        tryStrategy(std::to_string(bigCount) + " tool results over 10 K characters: " + fmtK(bigOutputs), "snip",
                    nlohmann::json::object());
    if (const Category *thinking = c.find("thinking"); thinking && thinking->tokens > 0)
        tryStrategy("thinking of earlier responses: " + fmtK(c.earlierThinking) + " (of " + fmtK(thinking->tokens)
                        + " thinking in the live context)",
                    "anthropic-clear-thinking", nlohmann::json::object());
    std::int64_t results = 0;
    for (const auto &cat : c.categories)
        if (cat.key.rfind("result:", 0) == 0)
            results += cat.tokens;
    if (results > 0)
        tryStrategy("tool results: " + fmtK(results) + " (" + std::to_string(c.total ? results * 100 / c.total : 0)
                        + " % of the live context)",
                    "anthropic-clear-tool-uses", nlohmann::json::object());
    // Files read more than once: the largest five one by one, then all of them together.
    std::int64_t repeated = 0;
    for (std::size_t k = 0; k < c.repeatedReads.size(); ++k) {
        const RepeatedRead &r = c.repeatedReads[k];
        repeated += r.tokens - r.onceTokens;
        if (k < 5)
            tryStrategy(std::to_string(r.reads) + " reads of " + r.path + ": " + fmtK(r.tokens) + " (reading it once: "
                            + fmtK(r.onceTokens) + ")",
                        "dedupe-reads", nlohmann::json{{"paths", {r.path}}});
    }
    if (c.repeatedReads.size() > 1)
        tryStrategy(std::to_string(c.repeatedReads.size()) + " files read more than once: " + fmtK(repeated)
                        + " beyond their latest reads",
                    "dedupe-reads", nlohmann::json::object());
    for (const auto &cat : c.categories)
        if (cat.key.rfind("mcp:", 0) == 0) {
            Suggestion s;
            s.text = "MCP server " + cat.key.substr(4) + " defines " + std::to_string(cat.items) + " tools: " + fmtK(cat.tokens)
                     + " on every request";
            s.note = "disable the server or the tools the session does not use";
            out.push_back(std::move(s));
        }
    std::stable_sort(out.begin(), out.end(), [](const Suggestion &a, const Suggestion &z) { return a.frees > z.frees; });
    return out;
}

} // namespace cl::composition
