// SPDX-License-Identifier: MIT
// Text helpers of the microcompact extractor (see strategy/summary/tooldigest_text.h).
#include "core/strategy/summary/tooldigest_text.h"

#include "core/analysis/analysis.h"
#include "core/util/spaces.h"

#include <algorithm>
#include <cctype>

namespace cl::strategy::tooldigest::text {

std::string_view trim(std::string_view s)
{
    return util::trimSpaces(s);
}

std::string excerpt(std::string_view s)
{
    s = trim(s.substr(0, s.find('\n')));
    std::size_t bytes = 0, points = 0;
    while (bytes < s.size() && points < kExcerpt) {
        ++bytes;
        while (bytes < s.size() && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80)
            ++bytes;
        ++points;
    }
    std::string out(s.substr(0, bytes));
    std::replace(out.begin(), out.end(), '\t', ' ');
    std::replace(out.begin(), out.end(), '\r', ' ');
    if (bytes < s.size())
        out += "…";
    return out;
}

std::size_t lineCount(std::string_view s)
{
    if (s.empty())
        return 0;
    const auto n = static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
    return s.back() == '\n' ? n : n + 1;
}

bool meaningful(std::string_view line)
{
    return std::any_of(line.begin(), line.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x80 || std::isalnum(u);
    });
}

std::string firstMeaningful(std::string_view s)
{
    std::string out;
    forLines(s, [&](std::string_view l) {
        if (!meaningful(l))
            return true;
        out = excerpt(l);
        return false;
    });
    return out;
}

std::string lastMeaningful(std::string_view s, std::string_view skipPrefix)
{
    std::string_view last;
    forLines(s, [&](std::string_view l) {
        const std::string_view t = trim(l);
        if (meaningful(t) && (skipPrefix.empty() || t.substr(0, skipPrefix.size()) != skipPrefix))
            last = t;
        return true;
    });
    return excerpt(last);
}

std::string inputString(const Block &use, std::initializer_list<const char *> keys)
{
    if (!use.input.is_object())
        return {};
    for (const char *k : keys) {
        const auto it = use.input.find(k);
        if (it != use.input.end() && it->is_string())
            return it->get<std::string>();
    }
    return {};
}

std::string toolLabel(const Block &use, const Block &result)
{
    if (!use.toolName.empty())
        return use.toolName;
    return result.toolName.empty() ? std::string("tool") : result.toolName;
}

std::string firstPath(const Block &use)
{
    auto paths = analysis::toolPaths(use);
    if (paths.empty())
        return {};
    if (paths.size() == 1)
        return paths.front();
    return paths.front() + " (+" + std::to_string(paths.size() - 1) + " more)";
}

} // namespace cl::strategy::tooldigest::text
