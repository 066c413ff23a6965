// SPDX-License-Identifier: MIT
#pragma once

// A summary written by a model (docs/design/summaries.md): the preset's prompt (core/llm/prompts.h)
// sent to the configured provider (streamed, retried, cancellable), the answer parsed and checked,
// optionally verified by a second call, its dropped facts measured and optionally appended, the
// result framed like the strategy's rule summary, cached on disk. Anything short of a whole, usable
// summary throws strategy::SummaryError, so that nothing partial is ever applied.

#include "core/llm/answer.h"
#include "core/llm/pricing.h"
#include "core/llm/provider.h"
#include "core/llm/settings.h"
#include "core/strategy/summary/summary.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cl::net {

// What one summary cost and how good it is.
struct SummaryReport {
    std::string preset, model, provider;
    llm::Usage usage; // both calls when verified
    std::optional<double> cost;
    bool cached = false, verified = false, appendix = false;
    int attempts = 0;
    std::size_t droppedMessages = 0; // too old to fit the model's input
    std::vector<std::string> missingSections, emptySections;
    std::vector<strategy::Fact> keptFacts, droppedFacts;
    std::string error; // why it was rejected ("" when used)
};

class ModelSummarizer : public llm::ReportingSummarizer
{
public:
    explicit ModelSummarizer(llm::SummarizerSettings settings);

    std::string_view name() const override { return m_name; }
    strategy::Summary summarize(const strategy::SummaryRequest &request) const override;

    // Set before summarize runs; called from the thread it runs on.
    void setCancelFlag(const std::atomic_bool *cancel) { m_cancel = cancel; }
    void setOnDelta(std::function<void(const std::string &)> f) { m_onDelta = std::move(f); }
    void setOnRetry(std::function<void(int attempt, int waitMs, const std::string &why)> f) { m_onRetry = std::move(f); }

    std::vector<SummaryReport> reports() const;
    nlohmann::json reportJson() const override;
    const llm::SummarizerSettings &settings() const { return m_settings; }

private:
    llm::Completion call(const llm::Prompt &prompt, SummaryReport &report) const;
    void addReport(SummaryReport r) const;

    llm::SummarizerSettings m_settings;
    std::string m_name;
    llm::PriceTable m_prices;
    const std::atomic_bool *m_cancel = nullptr;
    std::function<void(const std::string &)> m_onDelta;
    std::function<void(int, int, const std::string &)> m_onRetry;
    mutable std::mutex m_mutex;
    mutable std::vector<SummaryReport> m_reports;
};

// A model summarizer for the CLI and the GUI; null with *error when the settings cannot work (no model).
std::unique_ptr<llm::ReportingSummarizer> makeModelSummarizer(const llm::SummarizerSettings &s, std::string &error);
// One report as JSON (the API key is never in it).
nlohmann::json reportToJson(const SummaryReport &r);

} // namespace cl::net
