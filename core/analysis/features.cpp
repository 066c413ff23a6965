// SPDX-License-Identifier: MIT
// Seed 000 features and strategy choice, seed 002 zones, seed 001 needsCompaction, seed 003 usage
// bands, the editable model tables, and analyze() tying everything together.
#include "core/analysis/analysis.h"
#include "core/analysis/internal.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <thread>

namespace cl::analysis {

std::vector<ProviderRule> defaultProviderTable()
{
    // Seed 000 §4.2, then current models (defaults, editable).
    return {
        {"openai", "o1", "middle", 0.8, "reasoning model: keep more context"},
        {"openai", "o3", "middle", 0.8, "reasoning model, as o1"},
        {"openai", "o4", "middle", 0.8, "reasoning model, as o1"},
        {"openai", "gpt-4", "hybrid", 0.8, "balanced start and end retention"},
        {"openai", "gpt-5", "hybrid", 0.8, "general model, as GPT-4"},
        {"openai", "gpt-oss", "hybrid", 0.8, "open-weight model, usually run locally"},
        {"openai", "codex", "hybrid", 0.8, "general coding model, as GPT-4"},
        {"anthropic", "claude", "oldest", 0.8, "Anthropic models: keep the latest turns"},
        {"google", "gemini-1.5", "middle", 0.8, "large context: conservative"},
        {"google", "gemini-2", "middle", 0.8, "large context, as Gemini 1.5"},
        {"google", "gemini-3", "middle", 0.8, "large context, as Gemini 1.5"},
        {"lmstudio", "lmstudio/", "hybrid", 0.8, "local model, small context"},
        {"ollama", "ollama/", "hybrid", 0.8, "local model, small context"},
        {"local", "llama", "hybrid", 0.8, "local model, as LM Studio / Ollama"},
        {"local", "qwen", "hybrid", 0.8, "local model, as LM Studio / Ollama"},
        {"local", "mistral", "hybrid", 0.8, "local model, as LM Studio / Ollama"},
        {"local", "deepseek", "hybrid", 0.8, "local model, as LM Studio / Ollama"},
    };
}

std::vector<WindowRule> defaultWindowTable()
{
    // Defaults, editable: context windows as published by the vendors (2025). More specific first.
    return {
        {"claude-sonnet-4-5[1m]", 1000000},
        {"claude", 200000},
        {"gpt-4.1", 1047576},
        {"gpt-4o", 128000},
        {"gpt-4-turbo", 128000},
        {"gpt-4", 8192},
        {"gpt-5", 400000},
        {"codex", 400000},
        {"o1", 200000},
        {"o3", 200000},
        {"o4", 200000},
        {"gemini-2.5", 1048576},
        {"gemini-2.0", 1048576},
        {"gemini-1.5-pro", 2097152},
        {"gemini-1.5", 1048576},
        {"gemini-3", 1048576},
        {"gpt-oss", 131072},
    };
}

bool modelMatches(const std::string &model, const std::string &pattern)
{
    std::string p = pattern;
    if (!p.empty() && p.back() == '*')
        p.pop_back();
    if (p.empty() || model.size() < p.size())
        return false;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(model[i])) != std::tolower(static_cast<unsigned char>(p[i])))
            return false;
    return true;
}

std::int64_t contextWindowFor(const std::string &model, const std::vector<WindowRule> &table, std::string *pattern)
{
    for (const auto &r : table)
        if (modelMatches(model, r.pattern)) {
            if (pattern)
                *pattern = r.pattern;
            return r.window;
        }
    return 0;
}

namespace {

// The model the conversation names last (o.model when set; the transcript header as a fallback).
std::string modelOf(const Transcript &t, const AnalysisOptions &o)
{
    std::string model = o.model;
    for (std::size_t i = t.messages.size(); model.empty() && i-- > 0;)
        if (t.messages[i].isConversation() && !t.messages[i].sidechain)
            model = t.messages[i].model;
    if (model.empty() && t.header.is_object())
        if (const auto it = t.header.find("model"); it != t.header.end() && it->is_string())
            model = it->get<std::string>();
    return model;
}

} // namespace

WindowChoice contextWindowOf(const Transcript &t, const AnalysisOptions &o)
{
    if (o.contextWindow > 0)
        return {o.contextWindow, "option"};
    for (std::size_t i = t.messages.size(); i-- > 0;)
        if (const auto &u = t.messages[i].usage; u && u->contextWindow > 0)
            return {u->contextWindow, "recorded in the file"};
    std::string pattern;
    if (const std::int64_t w = contextWindowFor(modelOf(t, o), o.windows, &pattern); w > 0)
        return {w, "table: " + pattern};
    return {200000, "default"};
}

bool loadTables(const nlohmann::json &j, std::vector<ProviderRule> &providers, std::vector<WindowRule> &windows,
                std::string &error)
{
    if (!j.is_object()) {
        error = "tables: expected a JSON object";
        return false;
    }
    std::vector<ProviderRule> p;
    std::vector<WindowRule> w;
    if (const auto it = j.find("providers"); it != j.end()) {
        if (!it->is_array()) {
            error = "tables: \"providers\" is not an array";
            return false;
        }
        for (const auto &e : *it) {
            if (!e.is_object() || !e.contains("pattern") || !e["pattern"].is_string() || !e.contains("strategy")
                || !e["strategy"].is_string()) {
                error = "tables: provider entry needs string \"pattern\" and \"strategy\"";
                return false;
            }
            p.push_back({e.value("provider", std::string()), e["pattern"].get<std::string>(),
                         e["strategy"].get<std::string>(), e.value("confidence", 0.8), e.value("reason", std::string())});
        }
        providers = std::move(p);
    }
    if (const auto it = j.find("windows"); it != j.end()) {
        if (!it->is_array()) {
            error = "tables: \"windows\" is not an array";
            return false;
        }
        for (const auto &e : *it) {
            if (!e.is_object() || !e.contains("pattern") || !e["pattern"].is_string() || !e.contains("window")
                || !e["window"].is_number_integer()) {
                error = "tables: window entry needs string \"pattern\" and integer \"window\"";
                return false;
            }
            w.push_back({e["pattern"].get<std::string>(), e["window"].get<std::int64_t>()});
        }
        windows = std::move(w);
    }
    return true;
}

Features features(const Transcript &t, const ConversationView &v, std::int64_t targetTokens)
{
    Features f;
    f.totalMessages = v.size();
    for (std::size_t p = 0; p < v.size(); ++p) {
        const Message &m = t.messages[v.index[p]];
        const std::int64_t tok = tokens::estimateMessage(m);
        f.totalTokens += tok;
        if (p + 5 >= v.size())
            f.recentTokens += tok;
        f.hasLongMessages = f.hasLongMessages || tok > 300;
        f.hasSystem = f.hasSystem || m.role == Role::System;
        f.hasTool = f.hasTool || m.role == Role::Tool || m.hasToolResult();
    }
    f.targetTokens = targetTokens;
    f.avgMessageLength = f.totalMessages ? double(f.totalTokens) / double(f.totalMessages) : 0;
    // An empty transcript needs no compression: ratio 1 (light).
    f.compressionRatio = f.totalTokens ? double(targetTokens) / double(f.totalTokens) : 1.0;
    f.recentRatio = f.totalTokens ? double(f.recentTokens) / double(f.totalTokens) : 0;
    f.severity = f.compressionRatio > 0.8 ? "light" : f.compressionRatio > 0.6 ? "moderate"
                                                                               : "heavy";
    return f;
}

Recommendation recommend(const Features &f, const std::string &model, Format format, const AnalysisOptions &o)
{
    Recommendation r;
    r.model = model;
    const ProviderRule *entry = nullptr;
    for (const auto &e : o.providers)
        if (modelMatches(model, e.pattern)) {
            entry = &e;
            break;
        }
    if (entry) {
        r.provider = entry->provider;
        r.providerStrategy = entry->strategy;
        r.reasons.push_back({"provider", entry->confidence, "provider/model table",
                             entry->provider + " " + entry->pattern + "* -> " + entry->strategy + (entry->reason.empty() ? "" : " (" + entry->reason + ")")});
        if (entry->strategy != "hybrid") {
            r.strategy = entry->strategy;
            r.confidence = entry->confidence;
            r.rule = "provider";
        }
    } else {
        const std::string_view fmt = formatName(format);
        r.provider = fmt == "claude-code" || fmt == "anthropic" ? "anthropic" : fmt == "codex" || fmt.substr(0, 6) == "openai" ? "openai"
                                                                            : fmt.substr(0, 6) == "gemini"                     ? "google"
                                                                                                                               : "";
        r.reasons.push_back({"provider_none", 0, "no table entry for the model; deciding by features", model});
    }
    if (r.strategy.empty()) {
        const std::size_t n = f.totalMessages;
        struct Rule {
            bool fires;
            const char *id;
            const char *strategy;
            double confidence;
            const char *text;
        };
        const Rule rules[] = {
            {f.severity == "light" && n < 20, "light_short", "middle", 0.8, "light compression and fewer than 20 messages"},
            {f.severity == "heavy" && n > 30, "heavy_long", "oldest", 0.9, "heavy compression and more than 30 messages"},
            {f.recentRatio > 0.4, "recent_heavy", "middle", 0.7, "the last 5 messages hold more than 40 % of the tokens"},
            {f.hasLongMessages && f.severity != "light", "long_messages", "oldest", 0.6, "long messages (> 300 tokens) and not light"},
            {f.hasTool || f.hasSystem, "tool_or_system", "middle", 0.7, "tool or system messages present"},
        };
        for (const Rule &rule : rules)
            if (rule.fires) {
                r.strategy = rule.strategy;
                r.confidence = rule.confidence;
                r.rule = rule.id;
                r.reasons.push_back({rule.id, rule.confidence, rule.text, std::string("-> ") + rule.strategy});
                break;
            }
        if (r.strategy.empty()) {
            r.adaptiveReason = "no_rule_fired";
            r.reasons.push_back({"adaptive", 0, "no feature rule fired -> adaptive", {}});
        }
    }
    if (r.adaptiveReason.empty() && r.confidence < o.minConfidence) {
        r.adaptiveReason = "low_confidence";
        r.reasons.push_back({"adaptive", r.confidence, "confidence below the minimum -> adaptive", {}});
    }
    if (!r.adaptiveReason.empty()) {
        r.strategy = "adaptive";
        r.rule = r.adaptiveReason;
    }
    return r;
}

Zones zones(const Transcript &t, const ConversationView &v, std::int64_t threshold, int recent)
{
    Zones z;
    z.threshold = threshold;
    // The last K non-system messages are recent.
    std::vector<char> isRecent(v.size(), 0);
    int k = 0;
    for (std::size_t p = v.size(); p-- > 0 && k < recent;)
        if (t.messages[v.index[p]].role != Role::System) {
            isRecent[p] = 1;
            ++k;
        }
    for (std::size_t p = 0; p < v.size(); ++p) {
        const std::size_t i = v.index[p];
        const std::int64_t tok = tokens::estimateMessage(t.messages[i]);
        if (t.messages[i].role == Role::System) {
            z.system.push_back(i);
            z.systemTokens += tok;
        } else if (isRecent[p]) {
            z.recent.push_back(i);
            z.recentTokens += tok;
        } else {
            z.compressible.push_back(i);
            z.compressibleTokens += tok;
        }
    }
    z.totalTokens = z.systemTokens + z.compressibleTokens + z.recentTokens;
    z.oldTrigger = z.totalTokens >= threshold;
    z.newTrigger = z.compressibleTokens >= threshold;
    return z;
}

NeedsCompaction needsCompaction(std::int64_t tokens, std::size_t messages, const AnalysisOptions &o)
{
    NeedsCompaction r;
    const bool overTokens = tokens >= o.threshold, overMessages = messages > o.maxMessages;
    const bool enough = messages >= o.minMessages;
    r.reasons.push_back({"tokens", double(tokens), "tokens against the threshold",
                         std::to_string(tokens) + (overTokens ? " >= " : " < ") + std::to_string(o.threshold)});
    r.reasons.push_back({"messages", double(messages), "messages against the maximum",
                         std::to_string(messages) + (overMessages ? " > " : " <= ") + std::to_string(o.maxMessages)});
    r.reasons.push_back({"min_messages", double(messages), "messages against the minimum",
                         std::to_string(messages) + (enough ? " >= " : " < ") + std::to_string(o.minMessages)});
    r.needed = (overTokens || overMessages) && enough;
    return r;
}

std::string usageBand(double ratio, const std::vector<double> &b)
{
    static const char *names[] = {"none", "snip", "microcompact", "auto_compact", "hard_truncate"};
    std::size_t k = 0;
    while (k < b.size() && k < 4 && ratio >= b[k])
        ++k;
    return names[k];
}

namespace {
constexpr std::size_t kParallelMessages = 2000;
} // namespace

Analysis analyze(const Transcript &t, const AnalysisOptions &o)
{
    Analysis a;
    a.options = o;
    a.view = conversationView(t);
    // Tool rounds, critical tools and facts read only the transcript and the view, and take about half
    // of the time on a large transcript: they run on a second thread (not worth one for small inputs)
    // while this one does the summary, boundaries and importance. Priorities go last on both threads:
    // each claims chunks of positions until none are left, so that whichever finishes first takes
    // more of them. Nothing else touches a.rounds, a.critical or a.facts until the join.
    enum PlanState {
        Pending,
        Ready,
        Failed
    };
    std::atomic<int> planState{Pending};
    std::atomic<std::size_t> nextChunk{0};
    detail::PriorityPlan plan;
    constexpr std::size_t kChunk = 2048;
    auto drainPriorities = [&] {
        planState.wait(Pending);
        if (planState.load() != Ready)
            return;
        for (std::size_t from; (from = nextChunk.fetch_add(kChunk)) < a.view.size();)
            detail::assignPriorities(t, a.view, o, plan, from, std::min(a.view.size(), from + kChunk), a.priority);
    };
    std::exception_ptr sideError;
    auto side = [&] {
        try {
            detail::toolsAndFacts(t, a.view, o, a.rounds, a.critical, a.facts);
            drainPriorities();
        } catch (...) {
            sideError = std::current_exception();
        }
    };
    std::thread worker;
    struct Joiner {
        std::thread &th;
        ~Joiner()
        {
            if (th.joinable())
                th.join();
        }
    } joiner{worker};
    auto makePlan = [&] {
        try {
            plan = detail::planPriorities(t, a.view, o, a.priority);
            planState = Ready;
        } catch (...) {
            planState = Failed; // the worker stops waiting; the Joiner joins it
            planState.notify_all();
            throw;
        }
        planState.notify_all();
    };
    if (a.view.size() >= kParallelMessages) {
        worker = std::thread(side);
        makePlan();
    } else {
        makePlan();
        side();
    }
    {
        // One pass over the messages feeds the boundary and importance rules.
        const detail::Summary summary = detail::summarize(t, a.view, o);
        a.boundaries = detail::scoreBoundaries(t, a.view, o, summary);
        a.importance = detail::importance(t, a.view, o, summary);
    }
    drainPriorities();
    a.boundary = findCompactionBoundary(a.boundaries, a.view.size(), o);

    const std::string model = modelOf(t, o);
    const WindowChoice window = contextWindowOf(t, o);
    a.usage.window = window.window;
    a.usage.windowSource = window.source;
    const std::int64_t target = o.targetTokens > 0 ? o.targetTokens
                                                   : std::int64_t(double(a.usage.window) * o.targetWindowShare);
    a.features = features(t, a.view, target);
    a.recommendation = recommend(a.features, model, t.format, o);
    a.zones = zones(t, a.view, o.threshold, o.recentMessages);
    // What the model sees: the live context in the agent's count, fixed part included.
    const tokens::ContextFigure figure = tokens::contextFigure(t, o.estimator);
    a.usage.fixedTokens = figure.fixed;
    a.usage.tokens = figure.total;
    a.usage.basis = std::string(tokens::basisName(figure.basis));
    a.usage.how = figure.how;
    a.needs = needsCompaction(a.usage.tokens, a.view.size(), o);
    a.usage.ratio = double(a.usage.tokens) / double(a.usage.window);
    a.usage.band = usageBand(a.usage.ratio, o.bands);
    if (worker.joinable())
        worker.join();
    if (sideError)
        std::rethrow_exception(sideError);
    return a;
}

} // namespace cl::analysis
