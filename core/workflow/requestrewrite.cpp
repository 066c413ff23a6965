// SPDX-License-Identifier: MIT
#include "core/workflow/requestrewrite.h"

#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"

#include <cmath>

namespace cl::wire {

namespace {

std::int64_t scaled(std::int64_t tokens, double factor)
{
    return std::int64_t(std::llround(double(tokens) * factor));
}

} // namespace

RequestRewriter::RequestRewriter(RewriteOptions options)
    : m_options(std::move(options))
{
}

bool RequestRewriter::check(const RewriteOptions &options, std::string &error)
{
    const strategy::Strategy *s = strategy::find(options.strategy);
    if (!s) {
        error = "unknown strategy '" + options.strategy + "' (contextlens-cli strategies lists them)";
        return false;
    }
    strategy::Params resolved;
    return strategy::resolveParams(s->params(), options.params, resolved, error);
}

double RequestRewriter::calibration(Format api) const
{
    const auto it = m_calibration.find(api);
    return it == m_calibration.end() ? 1.0 : it->second;
}

void RequestRewriter::learn(Format api, std::int64_t estimated, std::int64_t measured)
{
    if (estimated > 0 && measured > 0)
        m_calibration[api] = double(measured) / double(estimated);
}

Rewrite RequestRewriter::rewrite(Format api, std::string_view body) const
{
    Rewrite w;
    w.calibration = calibration(api);
    w.calibrated = m_calibration.count(api) > 0;
    const strategy::Strategy *s = strategy::find(m_options.strategy);
    if (!s) {
        w.error = "unknown strategy '" + m_options.strategy + "'";
        return w;
    }
    LoadOptions lo;
    lo.format = api;
    const LoadResult loaded = loadBytes(std::string(body), "request", lo);
    if (!loaded.ok()) {
        w.error = "the request could not be read: " + loaded.error;
        return w;
    }
    const Transcript &t = *loaded.transcript;
    // A request read only in part (the loaders skip what they cannot read) is never rewritten.
    for (const Diagnostic &d : t.diagnostics)
        if (d.severity != Diagnostic::Severity::Info) {
            w.error = "the request could not be read whole: " + d.message;
            return w;
        }
    strategy::Input in(t);
    for (const std::size_t p : m_options.pinned)
        if (p < t.messages.size())
            in.pinned.push_back(p);
    in.exemptTools = m_options.exemptTools;
    std::string error;
    const strategy::Result r = strategy::run(*s, in, m_options.params, {}, &error);
    if (!error.empty()) {
        w.error = error;
        return w;
    }
    w.note = r.note;
    w.tokensBefore = r.stats.liveBefore;
    w.tokensAfter = r.changed ? r.stats.liveAfter : r.stats.liveBefore;
    w.predictedBefore = scaled(w.tokensBefore, w.calibration);
    w.predictedAfter = scaled(w.tokensAfter, w.calibration);
    w.changed = r.changed;
    if (!r.changed)
        return w;
    WriteResult written = writeTranscript(r.materialize(t), api);
    if (!written.ok) {
        w.error = "the compacted request could not be written: " + written.error;
        w.changed = false;
        return w;
    }
    // What the provider would get, read back and checked by its rules.
    const LoadResult back = loadBytes(written.bytes, "compacted request", lo);
    if (!back.ok()) {
        w.valid = false;
        w.violations.push_back("it does not read back: " + back.error);
    } else {
        for (const Violation &v : validate(*back.transcript, api))
            w.violations.push_back((v.message >= 0 ? "message " + std::to_string(v.message + 1) + ": " : std::string()) + v.reason);
        w.valid = w.violations.empty();
    }
    w.body = std::move(written.bytes);
    w.forwarded = !m_options.dryRun && w.valid;
    return w;
}

} // namespace cl::wire
