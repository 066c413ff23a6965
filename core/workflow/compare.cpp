// SPDX-License-Identifier: MIT
#include "core/workflow/compare.h"

#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"

#include <algorithm>
#include <mutex>
#include <thread>

namespace cl::strategy {

std::vector<CompareRow> compare(const Input &in, const CompareOptions &o)
{
    std::vector<const Strategy *> list;
    std::vector<CompareRow> rows;
    if (o.names.empty()) {
        list = all();
    } else {
        for (const auto &n : o.names) {
            if (const Strategy *s = find(n)) {
                list.push_back(s);
            } else {
                CompareRow row;
                row.strategy = n;
                row.error = "unknown strategy '" + n + "'";
                rows.push_back(std::move(row));
            }
        }
    }
    // Everything computed lazily on the input is computed here, before threads share it.
    (void)in.analysis();
    (void)in.isPinned(0);
    tokens::estimateAll(in.transcript, 1);
    (void)in.blockTokens();

    std::vector<CompareRow> done(list.size());
    std::vector<char> finished(list.size(), 0);
    std::atomic<std::size_t> next{0}, count{0};
    auto worker = [&] {
        for (;;) {
            const std::size_t k = next.fetch_add(1);
            if (k >= list.size() || (o.cancel && o.cancel->load()))
                return;
            const Strategy &s = *list[k];
            CompareRow &row = done[k];
            row.strategy = std::string(s.name());
            row.title = std::string(s.title());
            row.source = std::string(s.source());
            nlohmann::json params = nlohmann::json::object();
            if (o.params.is_object())
                if (const auto it = o.params.find(row.strategy); it != o.params.end())
                    params = *it;
            row.result = run(s, in, params, o.run, &row.error);
            finished[k] = 1;
            const std::size_t c = count.fetch_add(1) + 1;
            if (o.progress)
                o.progress(c, list.size());
        }
    };
    const int threads = std::max(1, std::min<int>(o.threads, static_cast<int>(list.size())));
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i)
        pool.emplace_back(worker);
    worker();
    for (auto &th : pool)
        th.join();
    for (std::size_t k = 0; k < list.size(); ++k)
        if (finished[k])
            rows.push_back(std::move(done[k]));
    return rows;
}

std::vector<CompareRow> withModelRows(const Input &in, std::vector<CompareRow> rows, const CompareOptions &options,
                                      const llm::ReportingSummarizer &summarizer)
{
    Input withModel = in;
    withModel.summarizer = &summarizer;
    std::size_t total = 0, done = 0;
    for (const CompareRow &row : rows)
        total += row.error.empty() ? 1 : 0;
    std::vector<CompareRow> out;
    out.reserve(2 * rows.size());
    std::size_t seen = summarizer.reportJson().size();
    for (CompareRow &row : rows) {
        const bool rerun = row.error.empty() && !(options.cancel && options.cancel->load());
        const std::string name = row.strategy;
        out.push_back(std::move(row));
        if (!rerun)
            continue;
        CompareOptions one = options;
        one.names = {name};
        one.threads = 1;
        one.progress = nullptr;
        std::vector<CompareRow> model = compare(withModel, one);
        if (options.cancel && options.cancel->load())
            continue; // its calls were cut short: no row rather than a "cancelled" one
        const nlohmann::json reports = summarizer.reportJson();
        double cost = 0; // no call (below its trigger, nothing to summarize): nothing spent
        bool known = true;
        for (std::size_t k = seen; k < reports.size(); ++k) {
            const auto it = reports[k].find("cost");
            if (it != reports[k].end() && it->is_number())
                cost += it->get<double>();
            else
                known = false;
        }
        const std::size_t calls = reports.size() - std::min(seen, reports.size());
        seen = reports.size();
        if (!model.empty()) {
            model.front().strategy += "+model";
            model.front().title += " + model";
            model.front().result.extra["modelCalls"] = calls;
            model.front().result.extra["modelCost"] = known ? nlohmann::json(cost) : nlohmann::json(nullptr);
            out.push_back(std::move(model.front()));
        }
        if (options.progress)
            options.progress(++done, total);
    }
    return out;
}

std::string modelRowBase(const std::string &rowName)
{
    static constexpr std::string_view suffix = "+model";
    if (rowName.size() <= suffix.size() || rowName.compare(rowName.size() - suffix.size(), suffix.size(), suffix) != 0)
        return {};
    return rowName.substr(0, rowName.size() - suffix.size());
}

} // namespace cl::strategy
