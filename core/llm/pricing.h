// SPDX-License-Identifier: MIT
#pragma once

// What model calls cost: US dollars per million tokens by model (input, output, cache writes for the
// 5-minute and the 1-hour cache, cache reads). The shipped table is resources/prices.json (the
// installed copy in <prefix>/share/contextlens/, else the copy built into the program); it says as
// of when and from where its figures are. A user file merges over it:
//   {"models": [{"match": "claude-sonnet-4", "input": 3, "output": 15, "cacheRead": 0.3}, ...]}
// An entry replaces the fields it names of the entry with the same match, or adds one (whose cache
// prices, when not given, are its input price: no discount known). A model is priced by the longest
// match its name starts with, or a part of its name after '/', '.', ':' or '@' starts with
// ("us.anthropic.claude-sonnet-4-...", "models/gemini-2.5-pro"); case is ignored.
// Every entry is checked before it counts: "match" a non-empty string, "provider" a string when
// given, each price a finite number from 0 to kMaxPrice. An entry that breaks a rule is skipped as a
// whole, with a warning naming the file and the entry (warnings()); the rest of the file still counts.

#include "core/llm/provider.h"

#include <optional>
#include <string>
#include <vector>

namespace cl::llm {

// The highest price an entry may give, $ per million tokens: far above any list price, low enough
// that a session's dollars stay finite and readable.
inline constexpr double kMaxPrice = 10000;

struct Price {
    std::string match;
    double input = 0, output = 0; // $ per million tokens
    double cacheWrite5m = 0;      // writing to the 5-minute cache (Anthropic 1.25x input; others: input)
    double cacheWrite1h = 0;      // writing to the 1-hour cache (Anthropic 2x input)
    double cacheRead = 0;         // reading from the cache
    std::string provider;         // "anthropic", "openai", "google" when the entry says
    std::string origin;           // "shipped", or the file that set the entry last
};

class PriceTable
{
public:
    PriceTable(); // the shipped table
    // Adds or replaces entries from a JSON text; false (and *error) when it does not parse or is no
    // price table. Entries that break the rules above are skipped, each with a warning.
    bool merge(const std::string &jsonText, std::string *error = nullptr, const std::string &origin = "user");
    // merge() of a file's text; false (and *error naming the file) when it cannot be read or parsed
    // (only a regular file of at most 4 MiB is read: a FIFO or /dev/zero is refused, not waited for).
    bool mergeFile(const std::string &path, std::string *error = nullptr);
    std::optional<Price> find(const std::string &model) const;
    // Dollars for a call (input and output only); nullopt when the model is not in the table (local
    // models cost nothing known).
    std::optional<double> cost(const std::string &model, const Usage &u) const;
    const std::vector<Price> &prices() const { return m_prices; }

    const std::string &asOf() const { return m_asOf; }               // the shipped figures' date
    const std::string &shippedFrom() const { return m_shippedFrom; } // the shipped file read, or "built in"
    const std::vector<std::string> &mergedFiles() const { return m_mergedFiles; }
    // The entries skipped, one line each ("FILE: models[3] \"gpt-x\": input is -1, ...; skipped").
    const std::vector<std::string> &warnings() const { return m_warnings; }

    // The shipped table, the user's file (userFile()) when it exists, then `extraFile` ("" none).
    // False (and *error) when a file that exists cannot be read or parsed; the table then holds what
    // merged before it.
    static bool load(PriceTable &table, const std::string &extraFile, std::string *error);
    // $XDG_CONFIG_HOME/contextlens/prices.json, else $HOME/.config/contextlens/prices.json ("" when
    // neither variable is set).
    static std::string userFile();

private:
    std::vector<Price> m_prices;
    std::string m_asOf;
    std::string m_shippedFrom;
    std::vector<std::string> m_mergedFiles;
    std::vector<std::string> m_warnings;
};

} // namespace cl::llm
