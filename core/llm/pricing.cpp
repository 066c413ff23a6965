// SPDX-License-Identifier: MIT
#include "core/llm/pricing.h"

#include "core/llm/shipped_prices.h" // generated from resources/prices.json (core/CMakeLists.txt)
#include "core/util/json.h"
#include "core/util/regularfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace cl::llm {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// A price table is a few kilobytes; anything much larger is not one.
constexpr std::size_t kMaxTableBytes = std::size_t(4) << 20;

bool readText(const std::string &path, std::string &text, std::string *why = nullptr)
{
    const util::ReadResult r = util::readRegularFile(path, text, kMaxTableBytes);
    if (why)
        *why = r.why;
    return r.ok();
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

constexpr std::array<const char *, 5> kPriceKeys = {"input", "output", "cacheWrite5m", "cacheWrite1h", "cacheRead"};

// Short, printable text of a value for a warning.
std::string shown(const nlohmann::json &v)
{
    std::string text = json::dump(v);
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return text;
}

// Why an entry of the "models" list cannot be used; "" when it can.
std::string entryProblem(const nlohmann::json &m)
{
    if (!m.is_object())
        return "is not an object";
    const auto match = m.find("match");
    if (match == m.end())
        return "has no \"match\"";
    if (!match->is_string() || match->get<std::string>().empty())
        return "\"match\" is " + shown(*match) + ", not a model name";
    if (const auto provider = m.find("provider"); provider != m.end() && !provider->is_string())
        return "\"provider\" is " + shown(*provider) + ", not a name";
    for (const char *key : kPriceKeys) {
        const auto it = m.find(key);
        if (it == m.end())
            continue;
        const bool number = it->is_number();
        const double v = number ? it->get<double>() : 0;
        if (!number || !std::isfinite(v) || v < 0 || v > kMaxPrice)
            return "\"" + std::string(key) + "\" is " + shown(*it) + ", not a price from 0 to " + std::to_string(int(kMaxPrice))
                   + " ($ per million tokens)";
    }
    return {};
}

// "models[3]" and its match when it has one.
std::string entryName(const nlohmann::json &m, std::size_t index)
{
    std::string name = "models[" + std::to_string(index) + "]";
    if (m.is_object())
        if (const auto match = m.find("match"); match != m.end() && match->is_string())
            name += " " + shown(*match);
    return name;
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
    nlohmann::json j;
    std::string why;
    if (json::parse(jsonText, j, why) == json::ParseStatus::Failed)
        j = nullptr;
    if (!j.is_object() || !j.contains("models") || !j["models"].is_array()) {
        if (error)
            *error = "a price table is {\"models\": [{\"match\": \"model-prefix\", \"input\": $, \"output\": $, \"cacheWrite5m\": $, "
                     "\"cacheWrite1h\": $, \"cacheRead\": $}, ...]} ($ per million tokens)";
        return false;
    }
    std::size_t index = 0;
    for (const auto &m : j["models"]) {
        if (const std::string problem = entryProblem(m); !problem.empty()) {
            m_warnings.push_back(origin + ": " + entryName(m, index++) + " " + problem + "; the entry is skipped");
            continue;
        }
        ++index;
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
            p.provider = json::str(m, "provider");
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
    std::string text, why;
    if (!readText(path, text, &why)) {
        if (error)
            *error = path + ": cannot read it (" + why + ")";
        return false;
    }
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
