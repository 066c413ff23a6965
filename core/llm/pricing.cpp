// SPDX-License-Identifier: MIT
#include "core/llm/pricing.h"

#include "core/llm/shipped_prices.h" // generated from resources/prices.json (core/CMakeLists.txt)

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cl::llm {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool readText(const std::string &path, std::string &text)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    return true;
}

// The installed copy beside the program (<prefix>/bin/../share/contextlens/prices.json), so that an
// installation's table can be edited in place; "" when there is none.
std::string installedPricesFile()
{
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    const auto path = exe.parent_path() / ".." / "share" / "contextlens" / "prices.json";
    return std::filesystem::is_regular_file(path, ec) ? path.lexically_normal().string() : std::string();
}

struct Shipped {
    std::string text;
    std::string from;
};

const Shipped &shipped()
{
    static const Shipped s = [] {
        Shipped out;
        const std::string installed = installedPricesFile();
        std::string text;
        if (!installed.empty() && readText(installed, text) && nlohmann::json::accept(text)) {
            out.text = std::move(text);
            out.from = installed;
        } else {
            out.text = kShippedPricesJson;
            out.from = "built in";
        }
        return out;
    }();
    return s;
}

double number(const nlohmann::json &o, const char *key, double fallback)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}

bool isSeparator(char c)
{
    return c == '/' || c == '.' || c == ':' || c == '@';
}

} // namespace

PriceTable::PriceTable()
{
    const Shipped &s = shipped();
    merge(s.text, nullptr, "shipped");
    m_shippedFrom = s.from;
    const nlohmann::json j = nlohmann::json::parse(s.text, nullptr, false);
    if (j.is_object() && j.contains("asOf") && j["asOf"].is_string())
        m_asOf = j["asOf"].get<std::string>();
}

bool PriceTable::merge(const std::string &jsonText, std::string *error, const std::string &origin)
{
    const nlohmann::json j = nlohmann::json::parse(jsonText, nullptr, false);
    if (!j.is_object() || !j.contains("models") || !j["models"].is_array()) {
        if (error)
            *error = "a price table is {\"models\": [{\"match\": \"model-prefix\", \"input\": $, \"output\": $, \"cacheWrite5m\": $, "
                     "\"cacheWrite1h\": $, \"cacheRead\": $}, ...]} ($ per million tokens)";
        return false;
    }
    for (const auto &m : j["models"]) {
        if (!m.is_object() || !m.contains("match") || !m["match"].is_string() || m["match"].get<std::string>().empty())
            continue;
        const std::string match = m["match"].get<std::string>();
        auto old = std::find_if(m_prices.begin(), m_prices.end(), [&](const Price &p) { return p.match == match; });
        if (old == m_prices.end()) {
            Price p;
            p.match = match;
            p.input = number(m, "input", 0);
            p.output = number(m, "output", 0);
            p.cacheWrite5m = number(m, "cacheWrite5m", p.input);
            p.cacheWrite1h = number(m, "cacheWrite1h", p.input);
            p.cacheRead = number(m, "cacheRead", p.input);
            p.provider = m.value("provider", std::string());
            p.origin = origin;
            m_prices.push_back(std::move(p));
            continue;
        }
        old->input = number(m, "input", old->input);
        old->output = number(m, "output", old->output);
        old->cacheWrite5m = number(m, "cacheWrite5m", old->cacheWrite5m);
        old->cacheWrite1h = number(m, "cacheWrite1h", old->cacheWrite1h);
        old->cacheRead = number(m, "cacheRead", old->cacheRead);
        if (m.contains("provider") && m["provider"].is_string())
            old->provider = m["provider"].get<std::string>();
        old->origin = origin;
    }
    return true;
}

bool PriceTable::mergeFile(const std::string &path, std::string *error)
{
    std::string text;
    if (!readText(path, text)) {
        if (error)
            *error = path + ": cannot read it";
        return false;
    }
    std::string why;
    if (!merge(text, &why, path)) {
        if (error)
            *error = path + ": " + why;
        return false;
    }
    m_mergedFiles.push_back(path);
    return true;
}

std::optional<Price> PriceTable::find(const std::string &model) const
{
    const std::string name = lower(model);
    std::optional<Price> best;
    for (const auto &p : m_prices) {
        const std::string match = lower(p.match);
        if (best && match.size() <= best->match.size())
            continue;
        for (std::size_t at = 0; at < name.size(); ++at) {
            if (at > 0 && !isSeparator(name[at - 1]))
                continue;
            if (name.compare(at, match.size(), match) == 0) {
                best = p;
                break;
            }
        }
    }
    return best;
}

std::optional<double> PriceTable::cost(const std::string &model, const Usage &u) const
{
    const auto p = find(model);
    if (!p)
        return std::nullopt;
    return (double(u.input) * p->input + double(u.output) * p->output) / 1e6;
}

bool PriceTable::load(PriceTable &table, const std::string &extraFile, std::string *error)
{
    table = PriceTable();
    std::error_code ec;
    if (const std::string user = userFile(); !user.empty() && std::filesystem::exists(user, ec))
        if (!table.mergeFile(user, error))
            return false;
    return extraFile.empty() || table.mergeFile(extraFile, error);
}

std::string PriceTable::userFile()
{
    if (const char *xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
        return std::string(xdg) + "/contextlens/prices.json";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.config/contextlens/prices.json";
    return {};
}

} // namespace cl::llm
