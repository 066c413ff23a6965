// SPDX-License-Identifier: MIT
// Parameters, input and the run() driver of the strategy engine.
#include "core/strategy/strategy.h"

#include "core/util/parallel.h"
#include "core/strategy/editor.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace cl::strategy {

using nlohmann::json;

std::string_view fateName(Fate f)
{
    switch (f) {
    case Fate::Kept: return "kept";
    case Fate::Snipped: return "snipped";
    case Fate::Cleared: return "cleared";
    case Fate::Microcompacted: return "microcompacted";
    case Fate::Summarized: return "summarized";
    case Fate::Removed: return "removed";
    case Fate::Inserted: return "inserted";
    }
    return "kept";
}

std::string_view paramTypeName(ParamSpec::Type t)
{
    switch (t) {
    case ParamSpec::Type::Int: return "int";
    case ParamSpec::Type::Double: return "double";
    case ParamSpec::Type::Bool: return "bool";
    case ParamSpec::Type::String: return "string";
    case ParamSpec::Type::StringList: return "list";
    case ParamSpec::Type::Choice: return "choice";
    }
    return "string";
}

std::string_view groupTitle(Group g)
{
    switch (g) {
    case Group::ToolResults: return "Shrink tool results";
    case Group::Removal: return "Remove messages";
    case Group::Summary: return "Summarize";
    }
    return "Remove messages";
}

// ---- Params ----------------------------------------------------------------------------------------

namespace {

const json &lookup(const json &values, std::string_view name)
{
    static const json null;
    const auto it = values.find(std::string(name));
    return it == values.end() ? null : *it;
}

std::vector<std::string> splitList(const std::string &s)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t comma = s.find(',', start);
        std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto b = item.find_first_not_of(" \t");
        const auto e = item.find_last_not_of(" \t");
        if (b != std::string::npos)
            out.push_back(item.substr(b, e - b + 1));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

bool convert(const ParamSpec &spec, const json &in, json &out, std::string &error)
{
    const std::string where = "parameter " + spec.name + ": ";
    switch (spec.type) {
    case ParamSpec::Type::Int:
    case ParamSpec::Type::Double: {
        double v = 0;
        if (in.is_number()) {
            v = in.get<double>();
        } else if (in.is_string()) {
            const std::string s = in.get<std::string>();
            char *end = nullptr;
            v = std::strtod(s.c_str(), &end);
            if (s.empty() || end == s.c_str() || *end != '\0') {
                error = where + "'" + s + "' is not a number";
                return false;
            }
        } else {
            error = where + "expected a number";
            return false;
        }
        if (!std::isfinite(v)) {
            error = where + "not a finite number";
            return false;
        }
        if (spec.type == ParamSpec::Type::Int && v != std::floor(v)) {
            error = where + "expected an integer";
            return false;
        }
        if (spec.min != spec.max && (v < spec.min || v > spec.max)) {
            error = where + "out of range [" + json(spec.min).dump() + ", " + json(spec.max).dump() + "]";
            return false;
        }
        out = spec.type == ParamSpec::Type::Int ? json(static_cast<std::int64_t>(v)) : json(v);
        return true;
    }
    case ParamSpec::Type::Bool:
        if (in.is_boolean()) {
            out = in;
            return true;
        }
        if (in.is_string()) {
            const std::string s = in.get<std::string>();
            if (s == "true" || s == "1" || s == "yes" || s == "on") {
                out = true;
                return true;
            }
            if (s == "false" || s == "0" || s == "no" || s == "off") {
                out = false;
                return true;
            }
        }
        error = where + "expected true or false";
        return false;
    case ParamSpec::Type::String:
        if (!in.is_string()) {
            error = where + "expected a string";
            return false;
        }
        out = in;
        return true;
    case ParamSpec::Type::Choice:
        if (!in.is_string() || std::find(spec.choices.begin(), spec.choices.end(), in.get<std::string>()) == spec.choices.end()) {
            std::string all;
            for (const auto &c : spec.choices)
                all += (all.empty() ? "" : ", ") + c;
            error = where + "expected one of " + all;
            return false;
        }
        out = in;
        return true;
    case ParamSpec::Type::StringList:
        if (in.is_string()) {
            out = splitList(in.get<std::string>());
            return true;
        }
        if (in.is_array() && std::all_of(in.begin(), in.end(), [](const json &x) { return x.is_string(); })) {
            out = in;
            return true;
        }
        error = where + "expected a list of strings (comma-separated on the command line)";
        return false;
    }
    return false;
}

} // namespace

std::int64_t Params::integer(std::string_view name) const
{
    const json &v = lookup(values, name);
    return v.is_number() ? v.get<std::int64_t>() : 0;
}

double Params::number(std::string_view name) const
{
    const json &v = lookup(values, name);
    return v.is_number() ? v.get<double>() : 0.0;
}

bool Params::flag(std::string_view name) const
{
    const json &v = lookup(values, name);
    return v.is_boolean() && v.get<bool>();
}

std::string Params::string(std::string_view name) const
{
    const json &v = lookup(values, name);
    return v.is_string() ? v.get<std::string>() : std::string();
}

std::vector<std::string> Params::list(std::string_view name) const
{
    std::vector<std::string> out;
    const json &v = lookup(values, name);
    if (v.is_array())
        for (const auto &x : v)
            if (x.is_string())
                out.push_back(x.get<std::string>());
    return out;
}

bool resolveParams(const std::vector<ParamSpec> &specs, const json &given, Params &out, std::string &error)
{
    out.values = json::object();
    if (!given.is_null() && !given.is_object()) {
        error = "parameters must be an object of name: value";
        return false;
    }
    if (given.is_object())
        for (const auto &[name, value] : given.items())
            if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec &s) { return s.name == name; })) {
                std::string known;
                for (const auto &s : specs)
                    known += (known.empty() ? "" : ", ") + s.name;
                error = "unknown parameter '" + name + "'" + (known.empty() ? " (this strategy has none)" : " (known: " + known + ")");
                return false;
            }
    for (const auto &spec : specs) {
        const json *in = &spec.defaultValue;
        if (given.is_object())
            if (const auto it = given.find(spec.name); it != given.end())
                in = &*it;
        json v;
        if (!convert(spec, *in, v, error))
            return false;
        out.values[spec.name] = std::move(v);
    }
    return true;
}

bool parseAssignment(std::string_view text, json &given, std::string &error)
{
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
        error = "expected name=value, got '" + std::string(text) + "'";
        return false;
    }
    if (!given.is_object())
        given = json::object();
    given[std::string(text.substr(0, eq))] = std::string(text.substr(eq + 1));
    return true;
}

// ---- Input -----------------------------------------------------------------------------------------

Input::Input(const Transcript &t, analysis::AnalysisOptions o)
    : transcript(t)
    , options(std::move(o))
{
}

Input::Input(const Transcript &t, std::shared_ptr<const analysis::Analysis> precomputed, analysis::AnalysisOptions o)
    : transcript(t)
    , options(std::move(o))
    , m_analysis(std::move(precomputed))
{
}

const analysis::Analysis &Input::analysis() const
{
    if (m_analysis && m_analysis->priority.size() == transcript.messages.size())
        return *m_analysis; // hot: strategies ask for it per message
    return *sharedAnalysis();
}

std::shared_ptr<const analysis::Analysis> Input::sharedAnalysis() const
{
    if (!m_analysis || m_analysis->priority.size() != transcript.messages.size())
        m_analysis = std::make_shared<const analysis::Analysis>(analysis::analyze(transcript, options));
    return m_analysis;
}

const Summarizer &Input::summary() const
{
    return summarizer ? *summarizer : ruleSummarizer();
}

std::int64_t Input::contextWindow() const
{
    if (options.contextWindow > 0)
        return options.contextWindow;
    return analysis().usage.window > 0 ? analysis().usage.window : 200000;
}

std::int64_t Input::totalTokens() const
{
    return tokens::totalEstimate(transcript);
}

std::int64_t Input::liveTokens() const
{
    return analysis().usage.tokens;
}

std::int64_t Input::seedTokensFor(std::int64_t live) const
{
    const analysis::UsageInfo &u = analysis().usage;
    const std::int64_t seed = totalTokens();
    const std::int64_t conversation = u.tokens - u.fixedTokens;
    if (seed <= 0 || conversation <= 0)
        return live;
    return std::int64_t(std::ceil(double(live) * double(seed) / double(conversation)));
}

bool Input::isPinned(std::size_t index) const
{
    if (pinned.empty())
        return false;
    if (m_pinned.size() != transcript.messages.size()) {
        m_pinned.assign(transcript.messages.size(), 0);
        for (const std::size_t p : pinned)
            if (p < m_pinned.size())
                m_pinned[p] = 1;
    }
    return index < m_pinned.size() && m_pinned[index];
}

bool Input::isExemptTool(std::string_view toolName) const
{
    return std::find(exemptTools.begin(), exemptTools.end(), toolName) != exemptTools.end();
}

// ---- Driver ------------------------------------------------------------------------------------------

Result unchanged(const Transcript &t)
{
    Result r;
    r.fates.resize(t.messages.size());
    r.slots.resize(t.messages.size());
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        r.slots[i].origin = static_cast<std::int32_t>(i);
        r.fates[i].slot = static_cast<std::int32_t>(i);
    }
    return r;
}

Result run(const Strategy &s, const Input &in, const json &params, const RunOptions &opt, std::string *error)
{
    Params p;
    std::string err;
    if (!resolveParams(s.params(), params, p, err)) {
        Result r = unchanged(in.transcript);
        r.strategy = std::string(s.name());
        r.note = err;
        if (error)
            *error = err;
        computeStats(in, r, false);
        return r;
    }
    (void)in.analysis(); // shared by all strategies: not part of one strategy's time
    const auto start = std::chrono::steady_clock::now();
    Result r;
    try {
        r = s.apply(in, p);
    } catch (const SummaryError &e) {
        // A summarizer that could not give a whole, usable summary: nothing is applied, the note says why.
        r = unchanged(in.transcript);
        r.note = std::string("not applied: ") + e.what();
        r.log.push_back(r.note);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.strategy = std::string(s.name());
    r.params = p;
    computeStats(in, r, opt.metrics);
    r.stats.millis = ms;
    if (opt.refuseLarger && r.changed && r.stats.tokensAfter > r.stats.tokensBefore) {
        Result keep = unchanged(in.transcript);
        keep.strategy = r.strategy;
        keep.params = p;
        keep.log = std::move(r.log);
        keep.note = "refused: the result (" + std::to_string(r.stats.tokensAfter) + " tokens) is larger than the input ("
                    + std::to_string(r.stats.tokensBefore) + ")";
        keep.log.push_back(keep.note);
        computeStats(in, keep, opt.metrics);
        keep.stats.millis = ms;
        r = std::move(keep);
    }
    if (opt.validate) {
        r.violations = validate(r.shape(in.transcript), in.transcript.format);
        r.validityChecked = true;
    }
    return r;
}

} // namespace cl::strategy
