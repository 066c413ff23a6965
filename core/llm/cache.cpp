// SPDX-License-Identifier: MIT
#include "core/llm/cache.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cl::llm {

namespace {

std::uint64_t fnv(std::string_view s, std::uint64_t h)
{
    for (const unsigned char c : s)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

} // namespace

std::string cacheKey(const Config &c, const Prompt &p)
{
    const std::string parts = std::string(providerName(c.provider)) + '\x1f' + (c.baseUrl.empty() ? defaultBaseUrl(c.provider) : c.baseUrl)
                              + '\x1f' + c.model + '\x1f' + std::to_string(c.maxOutputTokens) + '\x1f'
                              + std::to_string(c.temperature) + '\x1f' + p.system + '\x1f' + p.user;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(fnv(parts, 14695981039346656037ull)),
                  static_cast<unsigned long long>(fnv(parts, 0x84222325cbf29ce4ull)));
    return buf;
}

std::optional<CachedAnswer> readCache(const std::string &dir, const std::string &key)
{
    if (dir.empty())
        return std::nullopt;
    std::ifstream in(std::filesystem::path(dir) / (key + ".json"), std::ios::binary);
    if (!in)
        return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (!j.is_object() || !j.contains("text") || !j["text"].is_string())
        return std::nullopt;
    CachedAnswer a;
    a.text = j["text"].get<std::string>();
    a.usage.input = j.value("inputTokens", std::int64_t(0));
    a.usage.output = j.value("outputTokens", std::int64_t(0));
    a.model = j.value("model", std::string());
    return a;
}

bool writeCache(const std::string &dir, const std::string &key, const CachedAnswer &a)
{
    if (dir.empty())
        return false;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const auto path = std::filesystem::path(dir) / (key + ".json");
    const auto tmp = std::filesystem::path(dir) / (key + ".json.tmp");
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            return false;
        out << nlohmann::json{{"text", a.text}, {"inputTokens", a.usage.input}, {"outputTokens", a.usage.output}, {"model", a.model}}.dump();
        if (!out)
            return false;
    }
    std::filesystem::rename(tmp, path, ec); // whole or nothing
    return !ec;
}

} // namespace cl::llm
