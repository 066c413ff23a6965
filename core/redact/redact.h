// SPDX-License-Identifier: MIT
#pragma once

// Redaction before sharing (docs/design/redaction.md): secrets found by rules (provider API keys,
// private key blocks, JWTs, passwords in URLs, .env-style assignments, the user's own patterns) are
// replaced by placeholders that keep the kind and are stable within a file: the same secret gives
// the same "[REDACTED:anthropic-key:1]" wherever it appears. Placeholders hold no quote or
// backslash, so a redacted JSON string stays valid and a redacted transcript still loads and resumes.

#include "core/model/transcript.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cl::redact {

// The rules, compiled (PCRE2). Built-in rules first, then the user's patterns in file order.
class Rules
{
public:
    struct Rule; // compiled pattern and checks (redact.cpp)
    Rules();
    ~Rules();
    Rules(const Rules &) = delete;
    Rules &operator=(const Rules &) = delete;

    // The built-in rules only.
    static std::shared_ptr<Rules> builtIn();
    // Adds one regex per line: "ID: REGEX" or just "REGEX" (id "pattern-LINE"); blank lines and lines
    // starting with # are skipped. A capture group, when the regex has one, is what is replaced.
    // False with "line N: why" on the first pattern that does not compile.
    bool addPatterns(std::string_view text, std::string &error);
    bool addPatternsFile(const std::string &path, std::string &error);

    std::vector<std::string> ids() const;
    const std::vector<std::unique_ptr<Rule>> &rules() const { return m_rules; }

private:
    bool add(std::string id, const std::string &pattern, std::string &error);
    std::vector<std::unique_ptr<Rule>> m_rules;
};

// One distinct secret found: its rule, its placeholder, a masked excerpt and how often it was seen.
struct Secret {
    std::string rule;
    std::string placeholder; // "[REDACTED:rule:N]"
    std::string masked;      // "sk-a\u2022\u2022\u2022 (108 chars)": enough to recognise it, not to use it
    std::size_t occurrences = 0;
};

// Applies the rules. One Redactor per output file: it numbers the secrets it meets, so that the same
// secret gets the same placeholder everywhere in that file. Not thread-safe.
class Redactor
{
public:
    explicit Redactor(std::shared_ptr<const Rules> rules = Rules::builtIn());
    ~Redactor();
    Redactor(const Redactor &) = delete;
    Redactor &operator=(const Redactor &) = delete;

    // Text with every secret replaced.
    std::string text(std::string_view s);
    // Every string value of j (not the keys), in place; true when something was replaced.
    bool json(nlohmann::json &j);
    bool json(nlohmann::ordered_json &j);
    // A file's bytes: one JSON document, JSON Lines, or text. Only what changed is re-serialized
    // (a changed JSON line compactly, a changed document with its indentation); the rest is kept
    // byte for byte.
    std::string fileBytes(std::string_view bytes);
    // JSON text (a raw block) redacted as JSON when it parses, as text otherwise.
    std::string jsonOrText(std::string_view s);

    const std::vector<Secret> &secrets() const { return m_secrets; } // first seen first
    std::map<std::string, std::size_t> countsByRule() const;         // occurrences per rule id
    std::size_t occurrences() const;

private:
    struct State;
    std::string replace(std::string_view s, bool &changed);
    std::shared_ptr<const Rules> m_rules;
    std::unique_ptr<State> m_state;
    std::vector<Secret> m_secrets;
};

// A copy of t whose messages (block texts, tool inputs, raw blocks, metadata), header and subagents
// are redacted; for rendering (report, Markdown). t itself is not touched.
std::shared_ptr<Transcript> redactedCopy(const Transcript &t, Redactor &r);

// Where each placeholder of a redacted transcript is: one row per message and secret (message: the
// 0-based index into messages; -1 for a secret only in the file's other lines).
struct MessageHit {
    std::int64_t message = -1;
    const Secret *secret = nullptr;
};
std::vector<MessageHit> hitsByMessage(const Transcript &redacted, const Redactor &r);

// "3 anthropic-key, 1 jwt" (empty when nothing was found).
std::string countsText(const Redactor &r);

} // namespace cl::redact
