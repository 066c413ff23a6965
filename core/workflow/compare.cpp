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

} // namespace cl::strategy
