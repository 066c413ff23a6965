// SPDX-License-Identifier: MIT
#pragma once

// Shared by the write-path property test and the fuzzing harness: type mutations of a transcript
// (every key path's value replaced by a value of every other JSON type), and a walk that writes one
// transcript through every writer and every strategy's export, collecting what went wrong instead of
// stopping at the first failure.

#include "core/io/export.h"
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/io/writer.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cl::test {

using ojson = nlohmann::ordered_json;

// The values a mutation puts in place of another: one per JSON type.
inline const std::vector<ojson> &replacementValues()
{
    static const std::vector<ojson> values{ojson(nullptr), ojson("7"), ojson(7), ojson(-2.5), ojson(true),
                                           ojson::array({1, "x"}), ojson::object({{"k", 1}})};
    return values;
}

inline bool sameKind(const ojson &a, const ojson &b)
{
    if (a.is_number() && b.is_number())
        return a.is_number_float() == b.is_number_float();
    return a.type() == b.type();
}

// Visits every value below a key or an array item, in document order, with its path
// (".message.content[].id"); array indices are not part of the path.
inline void walkValues(ojson &j, std::string &path, const std::function<void(const std::string &, ojson &)> &f)
{
    const std::size_t n = path.size();
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            path += '.';
            path += it.key();
            f(path, it.value());
            walkValues(it.value(), path, f);
            path.resize(n);
        }
    } else if (j.is_array()) {
        for (auto &v : j) {
            path += "[]";
            walkValues(v, path, f);
            path.resize(n);
        }
    }
}

// A transcript's bytes as JSON units: the lines of a JSONL file, or one document. Units that do not
// parse stay as they are.
struct JsonUnits {
    std::vector<std::string> raw; // each unit's bytes (a JSONL line without its terminator)
    std::vector<ojson> parsed;    // discarded when the unit does not parse
    bool document = false;
};

inline JsonUnits splitUnits(const std::string &bytes)
{
    JsonUnits u;
    const ojson whole = ojson::parse(bytes, nullptr, false);
    if (!whole.is_discarded() && bytes.find('\n') != std::string::npos && (whole.is_array() || whole.is_object())) {
        // A single multi-line document (a JSONL file never parses as one value unless it has one line).
        u.document = true;
        u.raw.push_back(bytes);
        u.parsed.push_back(whole);
        return u;
    }
    for (const auto &span : json::splitLines(bytes)) {
        u.raw.emplace_back(bytes.substr(span.offset, span.contentLength));
        u.parsed.push_back(ojson::parse(u.raw.back(), nullptr, false));
    }
    return u;
}

inline std::string joinUnits(const JsonUnits &u)
{
    if (u.document)
        return u.raw.front();
    std::string out;
    for (const auto &r : u.raw) {
        out += r;
        out += '\n';
    }
    return out;
}

struct TypeMutant {
    std::string label; // "last .isSidechain := null"
    std::string bytes;
};

// Every type mutation of `bytes`: for each key path and each value of another type, once with every
// occurrence replaced ("all") and once with only the last occurrence in the file replaced ("last",
// the line writers read the session's tail from). `replacementsAll` limits how many values the
// "all" mode tries per path (rotating through them), to bound the count.
inline void forEachTypeMutant(const std::string &bytes, const std::function<void(const TypeMutant &)> &f,
                              std::size_t replacementsAll = 1)
{
    JsonUnits units = splitUnits(bytes);
    // Distinct paths in first-seen order; for each, the units holding it and how often (a mutant copies
    // and re-serializes only those units, not the whole file).
    struct Occurrences {
        std::vector<std::pair<std::size_t, std::size_t>> units; // unit index, occurrences in it
        std::size_t total = 0;
    };
    std::vector<std::string> order;
    std::map<std::string, Occurrences> where;
    for (std::size_t i = 0; i < units.parsed.size(); ++i) {
        if (units.parsed[i].is_discarded())
            continue;
        std::string path;
        walkValues(units.parsed[i], path, [&](const std::string &key, ojson &) {
            auto [it, fresh] = where.try_emplace(key);
            if (fresh)
                order.push_back(key);
            Occurrences &o = it->second;
            if (o.units.empty() || o.units.back().first != i)
                o.units.emplace_back(i, 0);
            ++o.units.back().second;
            ++o.total;
        });
    }
    const auto &values = replacementValues();
    std::size_t rotation = 0;
    for (const auto &key : order) {
        const Occurrences &o = where.at(key);
        for (int mode = 0; mode < 2; ++mode) {
            const bool all = mode == 0;
            std::size_t tried = 0;
            for (std::size_t vi = 0; vi < values.size(); ++vi) {
                const ojson &value = values[(vi + (all ? rotation : 0)) % values.size()];
                if (all && tried >= replacementsAll)
                    break;
                std::map<std::size_t, std::string> replaced; // unit index -> its mutated bytes
                std::size_t seen = 0;
                const std::size_t target = o.total - 1;
                for (const auto &[i, count] : o.units) {
                    if (!all && seen + count <= target) {
                        seen += count;
                        continue;
                    }
                    ojson unit = units.parsed[i];
                    bool unitChanged = false;
                    std::string path;
                    walkValues(unit, path, [&](const std::string &p, ojson &v) {
                        if (p != key)
                            return;
                        const std::size_t n = seen++;
                        if ((all || n == target) && !sameKind(v, value)) {
                            v = value;
                            unitChanged = true;
                        }
                    });
                    if (unitChanged)
                        replaced[i] = unit.dump(units.document ? 1 : -1);
                }
                if (replaced.empty())
                    continue;
                ++tried;
                std::string out;
                out.reserve(bytes.size() + 64);
                for (std::size_t i = 0; i < units.raw.size(); ++i) {
                    const auto r = replaced.find(i);
                    out += r != replaced.end() ? r->second : units.raw[i];
                    if (!units.document)
                        out += '\n';
                }
                f(TypeMutant{std::string(all ? "all " : "last ") + key + " := " + value.dump(), std::move(out)});
            }
        }
        ++rotation;
    }
}

// Strategy parameters that make triggered strategies act on small inputs.
inline nlohmann::json forcedParams(const strategy::Strategy &s)
{
    nlohmann::json p = nlohmann::json::object();
    for (const auto &spec : s.params())
        if (spec.name == "force")
            p["force"] = true;
    return p;
}

// Forced, and every bounded number at the bottom of its range (snipMaxChars=100, keep nothing, trigger
// at once), so that strategies edit even the small samples and the writers' edit paths run.
inline nlohmann::json extremeParams(const strategy::Strategy &s)
{
    nlohmann::json p = forcedParams(s);
    for (const auto &spec : s.params()) {
        if (spec.min >= spec.max)
            continue;
        if (spec.type == strategy::ParamSpec::Type::Int)
            p[spec.name] = std::int64_t(spec.min);
        else if (spec.type == strategy::ParamSpec::Type::Double)
            p[spec.name] = spec.min;
    }
    return p;
}

// Writes `t` through every writer, then runs each of `strategies` (forced, and with extreme
// parameters) and exports each result in t's own format and in `other`. Returns one line per failure.
inline std::vector<std::string> writeEverywhere(const Transcript &t, const std::vector<const strategy::Strategy *> &strategies,
                                                Format other)
{
    std::vector<std::string> failures;
    const auto check = [&](const std::string &what, const std::function<WriteResult()> &write) {
        try {
            const WriteResult w = write();
            if (!w.ok) {
                failures.push_back(what + ": not written: " + w.error);
                return;
            }
        } catch (const std::exception &e) {
            failures.push_back(what + ": exception: " + e.what());
        }
    };
    for (Format f : allFormats())
        check(std::string("write as ") + std::string(formatName(f)), [&] { return writeTranscript(t, f); });
    if (t.format == Format::Unknown)
        return failures;
    strategy::Input in(t);
    for (const strategy::Strategy *s : strategies) {
        for (const auto &params : {forcedParams(*s), extremeParams(*s)}) {
            strategy::RunOptions ro;
            ro.metrics = false;
            const std::string name = std::string(s->name()) + " " + params.dump();
            strategy::Result r;
            try {
                r = strategy::run(*s, in, params, ro);
            } catch (const std::exception &e) {
                failures.push_back(name + ": run threw: " + e.what());
                continue;
            }
            const Transcript m = r.materialize(t);
            for (Format f : {t.format, other})
                check(name + " export as " + std::string(formatName(f)), [&] { return exportTranscript(m, f); });
        }
    }
    return failures;
}

} // namespace cl::test
