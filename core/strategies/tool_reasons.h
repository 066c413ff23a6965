// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cl::strategy {

// The reason "<prefix><tool><suffix>" of a cleared tool result, built once per tool name and run:
// sessions use a handful of tools, and building it per cleared message cost an allocation each.
// Beyond 32 distinct tools it is built per call (no linear search over many names). The returned
// reference is valid until the next call.
class ToolReasons
{
public:
    ToolReasons(std::string prefix, std::string suffix)
        : m_prefix(std::move(prefix))
        , m_suffix(std::move(suffix))
    {
    }
    const std::string &operator()(const std::string &tool)
    {
        for (const auto &[name, why] : m_reasons)
            if (name == tool)
                return why;
        std::string why = m_prefix + tool + m_suffix;
        if (m_reasons.size() >= 32) {
            m_scratch = std::move(why);
            return m_scratch;
        }
        return m_reasons.emplace_back(tool, std::move(why)).second;
    }

private:
    std::string m_prefix, m_suffix, m_scratch;
    std::vector<std::pair<std::string, std::string>> m_reasons;
};

} // namespace cl::strategy
