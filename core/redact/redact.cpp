// SPDX-License-Identifier: MIT
// The redaction rules and how they are applied (redact.h, docs/design/redaction.md). Each rule is a
// PCRE2 pattern (UTF, invalid UTF-8 tolerated, JIT when available) plus a check in code that keeps
// the near misses: example placeholders ("sk-your-key-here", AKIA...EXAMPLE), variables ("$TOKEN"),
// values too short or too plain to be a secret.
#include "core/redact/redact.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace cl::redact {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::size_t distinctChars(std::string_view s)
{
    std::set<char> seen(s.begin(), s.end());
    return seen.size();
}

bool hasDigit(std::string_view s)
{
    return std::any_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool hasLetter(std::string_view s)
{
    return std::any_of(s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

// Words and shapes of documentation examples, templates and masked values, not of real secrets.
bool looksLikePlaceholder(std::string_view value)
{
    const std::string v = lower(value);
    static const char *const words[] = {"example", "your", "placeholder", "dummy", "sample", "changeme", "change-me", "redacted",
                                        "xxxx", "****", "<", ">", "...", "\xe2\x80\xa6", "fake", "replace", "insert", "${", "{{"};
    for (const char *w : words)
        if (v.find(w) != std::string::npos)
            return true;
    return v.size() >= 8 && distinctChars(v) <= 4; // "aaaaaaaa", "12341234"
}

// A provider key's body: long, mixed, not an example.
bool keyLike(std::string_view value)
{
    return !looksLikePlaceholder(value) && hasDigit(value) && hasLetter(value) && distinctChars(value) >= 10;
}

// The parts of an identifier: API_KEY -> api, key; apiKey -> api, key; db.password -> db, password.
std::vector<std::string> nameParts(std::string_view name)
{
    std::vector<std::string> parts;
    std::string cur;
    auto flush = [&] {
        if (!cur.empty())
            parts.push_back(lower(cur));
        cur.clear();
    };
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '_' || c == '-' || c == '.') {
            flush();
            continue;
        }
        if (std::isupper(static_cast<unsigned char>(c)) && i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])))
            flush();
        cur.push_back(c);
    }
    flush();
    return parts;
}

bool secretName(std::string_view name)
{
    static const std::set<std::string> words = {"key", "secret", "token", "password", "passwd", "pwd",
                                                "pass", "apikey", "passphrase", "credential", "credentials",
                                                "secretkey", "accesskey", "privatekey", "authtoken", "api_key"};
    for (const std::string &p : nameParts(name))
        if (words.count(p))
            return true;
    return false;
}

// The value of a KEY=VALUE assignment: a secret, not a reference, path, flag, expression or example.
// quoted: the value was in quotes (a literal, not a name in code).
bool assignedSecret(std::string_view name, char separator, bool quoted, std::string_view value)
{
    if (!secretName(name) || looksLikePlaceholder(value))
        return false;
    const std::string v = lower(value);
    static const std::set<std::string> plain = {"true", "false", "null", "none", "nil", "yes", "no", "on", "off", "undefined", "required", "optional", "string", "str", "bool", "int", "password", "secret", "token", "empty", "unset", "hidden", "masked"};
    if (plain.count(v))
        return false;
    const char first = value.front();
    if (first == '$' || first == '%' || first == '/' || first == '~' || first == '.' || first == '@' || first == '*' || first == '=')
        return false;
    if (lower(name) == v)
        return false;
    // A dotted expression (process.env.KEY, os.environ.get, settings.token).
    bool dotted = value.find('.') != std::string_view::npos && !hasDigit(value);
    if (dotted)
        return false;
    if (std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return false; // a number (a count, a port, a size)
    // Unquoted letters and underscores only: a name in code (token = getToken()), not a literal.
    if (!quoted && !hasDigit(value)
        && std::all_of(value.begin(), value.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }))
        return false;
    if (separator == ':')
        return value.size() >= 8 && hasDigit(value) && hasLetter(value);
    return value.size() >= 6 && distinctChars(value) >= 4;
}

std::string compileError(int code, std::size_t offset)
{
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof buf);
    return std::string(reinterpret_cast<const char *>(buf)) + " at offset " + std::to_string(offset);
}

} // namespace

struct Rules::Rule {
    std::string id;
    pcre2_code *code = nullptr;
    bool jit = false;
    int group = 0; // the capture group replaced (0: the whole match)
    // Given the match's groups (0..n), whether this is a secret.
    std::function<bool(const std::vector<std::string_view> &)> accept;
    ~Rule()
    {
        if (code)
            pcre2_code_free(code);
    }
};

Rules::Rules() = default;
Rules::~Rules() = default;

bool Rules::add(std::string id, const std::string &pattern, std::string &error)
{
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code *re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                                   &code, &offset, nullptr);
    if (!re) {
        error = compileError(code, offset);
        return false;
    }
    auto rule = std::make_unique<Rule>();
    rule->id = std::move(id);
    rule->code = re;
    rule->jit = pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0;
    std::uint32_t groups = 0;
    pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
    rule->group = groups > 0 ? 1 : 0;
    rule->accept = [](const std::vector<std::string_view> &g) { return !g.empty() && !g[0].empty(); };
    m_rules.push_back(std::move(rule));
    return true;
}

std::shared_ptr<Rules> Rules::builtIn()
{
    static const std::string B = "(?<![A-Za-z0-9_-])"; // not inside a longer token
    struct Def {
        const char *id;
        std::string pattern;
        int group;
        std::function<bool(const std::vector<std::string_view> &)> accept;
    };
    auto body = [](std::size_t prefix) {
        return [prefix](const std::vector<std::string_view> &g) { return keyLike(g[0].substr(std::min(prefix, g[0].size()))); };
    };
    auto notExample = [](const std::vector<std::string_view> &g) { return !looksLikePlaceholder(g[0]); };
    const std::vector<Def> defs = {
        {"anthropic-key", B + "sk-ant-[a-z]{2,10}[0-9]{0,3}-[A-Za-z0-9_-]{32,}", 0, body(7)},
        {"openai-key", B + "sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", 0, body(3)},
        {"google-api-key", B + "AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", 0, body(4)},
        {"aws-access-key-id", "(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[A-Z0-9]{16}(?![A-Z0-9])", 0, notExample},
        {"aws-secret-key",
         "(?i:aws[A-Za-z0-9_.-]{0,30}?secret[A-Za-z0-9_.-]{0,20}|secret_?access_?key)\\\\?[\"']?[ \\t]*[:=][ \\t]*\\\\?[\"']?"
         "([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
         1, [](const std::vector<std::string_view> &g) { return keyLike(g[1]); }},
        {"github-token", "(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})", 0, body(4)},
        {"gitlab-token", B + "glpat-[A-Za-z0-9_-]{20,}", 0, body(6)},
        {"slack-token", B + "xox[abpres]-[A-Za-z0-9-]{10,}", 0, [](const std::vector<std::string_view> &g) { return hasDigit(g[0]) && !looksLikePlaceholder(g[0]); }},
        {"slack-webhook", "https://hooks\\.slack\\.com/services/[A-Za-z0-9_/-]{20,}", 0, notExample},
        {"stripe-key", "(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}", 0, body(8)},
        {"huggingface-token", "(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}", 0, body(3)},
        {"npm-token", "(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", 0, body(4)},
        // A whole block; a block cut off before its END line (a truncated tool result) up to its last
        // base64 line. The header alone (in prose) is no secret.
        {"private-key",
         "-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
         "|(?:(?:\\r?\\n|\\\\n)[A-Za-z-]+: [^\\r\\n\\\\]*)*(?:(?:\\r?\\n|\\\\r\\\\n|\\\\n)+[A-Za-z0-9+/=]{40,})+)",
         0, [](const std::vector<std::string_view> &) { return true; }},
        {"jwt", B + "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}", 0, notExample},
        {"url-password", "(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\\s/:@\"'<>\\\\]{1,64}:([^\\s/@\"'<>\\\\]{1,128})@", 1,
         [](const std::vector<std::string_view> &g) {
             const std::string_view p = g[1];
             static const std::set<std::string> plain = {"password", "pass", "passwd", "secret", "pwd", "token"};
             return !looksLikePlaceholder(p) && !plain.count(lower(p)) && p.front() != '$' && p.front() != '%' && p.front() != '*'
                    && p.front() != '{' && p.front() != '[';
         }},
        {"env-secret",
         "(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,60})(?:\\\\?[\"'])?[ \\t]*([=:])[ \\t]*(\\\\?[\"'])?"
         "([^\\s\"'\\\\,;&|<>()\\[\\]{}`]{4,200})",
         4,
         [](const std::vector<std::string_view> &g) { return assignedSecret(g[1], g[2].empty() ? '=' : g[2][0], !g[3].empty(), g[4]); }},
    };
    auto rules = std::make_shared<Rules>();
    for (const Def &d : defs) {
        std::string error;
        if (!rules->add(d.id, d.pattern, error))
            throw std::logic_error("redaction rule " + std::string(d.id) + ": " + error); // a bug in the table above
        rules->m_rules.back()->group = d.group;
        rules->m_rules.back()->accept = d.accept;
    }
    return rules;
}

bool Rules::addPatterns(std::string_view text, std::string &error)
{
    std::size_t lineNo = 0, pos = 0;
    while (pos <= text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string line(text.substr(pos, eol - pos));
        pos = eol + 1;
        ++lineNo;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') {
            if (eol == text.size())
                break;
            continue;
        }
        line.erase(0, start);
        std::string id = "pattern-" + std::to_string(lineNo);
        // "ID: REGEX": an id of letters, digits, '.', '_' or '-', a colon, then a space or tab.
        std::size_t n = 0;
        while (n < line.size() && (std::isalnum(static_cast<unsigned char>(line[n])) || line[n] == '_' || line[n] == '-' || line[n] == '.'))
            ++n;
        if (n > 0 && n + 1 < line.size() && line[n] == ':' && (line[n + 1] == ' ' || line[n + 1] == '\t')) {
            id = line.substr(0, n);
            line.erase(0, line.find_first_not_of(" \t", n + 1));
        }
        std::string why;
        if (!add(id, line, why)) {
            error = "line " + std::to_string(lineNo) + ": " + why;
            return false;
        }
        if (eol == text.size())
            break;
    }
    return true;
}

bool Rules::addPatternsFile(const std::string &path, std::string &error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot read";
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string why;
    if (!addPatterns(ss.str(), why)) {
        error = path + ": " + why;
        return false;
    }
    return true;
}

std::vector<std::string> Rules::ids() const
{
    std::vector<std::string> out;
    for (const auto &r : m_rules)
        out.push_back(r->id);
    return out;
}

struct Redactor::State {
    pcre2_match_data *data = nullptr;
    std::map<std::pair<std::string, std::string>, std::size_t> index; // (rule, secret) -> m_secrets index
    std::map<std::string, std::size_t> perRule;                       // placeholders numbered so far
    ~State()
    {
        if (data)
            pcre2_match_data_free(data);
    }
};

Redactor::Redactor(std::shared_ptr<const Rules> rules)
    : m_rules(std::move(rules))
    , m_state(std::make_unique<State>())
{
    m_state->data = pcre2_match_data_create(32, nullptr);
}

Redactor::~Redactor() = default;

namespace {

std::string maskedExcerpt(const std::string &rule, std::string_view secret)
{
    std::size_t chars = 0;
    for (const char c : secret)
        chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (rule == "private-key") {
        const std::size_t end = secret.find("-----", 5);
        return std::string(secret.substr(0, end == std::string_view::npos ? 0 : end + 5)) + " \u2026 (" + std::to_string(chars) + " chars)";
    }
    std::size_t shown = std::min<std::size_t>(4, secret.size() / 4);
    while (shown > 0 && (static_cast<unsigned char>(secret[shown]) & 0xC0) == 0x80)
        --shown;
    return std::string(secret.substr(0, shown)) + "\u2022\u2022\u2022 (" + std::to_string(chars) + " chars)";
}

} // namespace

std::string Redactor::replace(std::string_view s, bool &changed)
{
    struct Found {
        std::size_t begin, end, rule;
    };
    std::vector<Found> found;
    const auto &rules = m_rules->rules();
    const auto *subject = reinterpret_cast<PCRE2_SPTR>(s.data());
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const Rules::Rule &rule = *rules[ri];
        std::size_t from = 0;
        while (from <= s.size()) {
            const int rc = rule.jit ? pcre2_jit_match(rule.code, subject, s.size(), from, 0, m_state->data, nullptr)
                                    : pcre2_match(rule.code, subject, s.size(), from, 0, m_state->data, nullptr);
            if (rc <= 0)
                break;
            const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m_state->data);
            std::vector<std::string_view> groups;
            for (int g = 0; g < rc; ++g)
                groups.push_back(ov[2 * g] == PCRE2_UNSET ? std::string_view() : s.substr(ov[2 * g], ov[2 * g + 1] - ov[2 * g]));
            while (int(groups.size()) <= rule.group)
                groups.emplace_back();
            const std::size_t matchEnd = ov[1];
            const std::size_t matchBegin = ov[0];
            if (rule.group < rc && ov[2 * rule.group] != PCRE2_UNSET && ov[2 * rule.group + 1] > ov[2 * rule.group] && rule.accept(groups))
                found.push_back({ov[2 * rule.group], ov[2 * rule.group + 1], ri});
            // On: past this match (or one character when it was empty), so overlapping candidates of
            // the same rule are not tried twice.
            from = matchEnd > matchBegin ? matchEnd : matchEnd + 1;
            while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80)
                ++from;
        }
    }
    if (found.empty())
        return std::string(s);
    // Earliest first; at the same start the rule listed first (the more specific one) wins.
    std::sort(found.begin(), found.end(), [](const Found &a, const Found &b) { return a.begin != b.begin ? a.begin < b.begin : a.rule < b.rule; });
    std::string out;
    out.reserve(s.size());
    std::size_t pos = 0;
    for (const Found &f : found) {
        if (f.begin < pos)
            continue; // overlaps one already replaced
        const std::string &id = rules[f.rule]->id;
        const std::string secret(s.substr(f.begin, f.end - f.begin));
        auto [it, fresh] = m_state->index.try_emplace({id, secret}, m_secrets.size());
        if (fresh) {
            const std::size_t n = ++m_state->perRule[id];
            m_secrets.push_back({id, "[REDACTED:" + id + ":" + std::to_string(n) + "]", maskedExcerpt(id, secret), 0});
        }
        Secret &sec = m_secrets[it->second];
        ++sec.occurrences;
        out.append(s.substr(pos, f.begin - pos));
        out += sec.placeholder;
        pos = f.end;
        changed = true;
    }
    out.append(s.substr(pos));
    return out;
}

std::string Redactor::text(std::string_view s)
{
    bool changed = false;
    return replace(s, changed);
}

namespace {

template <typename Json>
bool walk(Json &j, const std::function<std::string(std::string_view, bool &)> &f)
{
    bool changed = false;
    if (j.is_string()) {
        bool c = false;
        std::string out = f(j.template get_ref<const std::string &>(), c);
        if (c) {
            j = std::move(out);
            changed = true;
        }
    } else if (j.is_object() || j.is_array()) {
        for (auto &v : j)
            changed = walk(v, f) || changed;
    }
    return changed;
}

} // namespace

bool Redactor::json(nlohmann::json &j)
{
    return walk(j, [this](std::string_view s, bool &c) { return replace(s, c); });
}

bool Redactor::json(nlohmann::ordered_json &j)
{
    return walk(j, [this](std::string_view s, bool &c) { return replace(s, c); });
}

std::string Redactor::jsonOrText(std::string_view s)
{
    auto j = nlohmann::ordered_json::parse(s, nullptr, false);
    if (j.is_discarded() || !(j.is_object() || j.is_array()))
        return text(s);
    if (!json(j))
        return std::string(s);
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string Redactor::fileBytes(std::string_view bytes)
{
    const std::size_t first = bytes.find_first_not_of(" \t\r\n");
    // One JSON document (Gemini CLI chats, API histories): parsed whole when it is one.
    if (first != std::string_view::npos && (bytes[first] == '{' || bytes[first] == '[')) {
        auto doc = nlohmann::ordered_json::parse(bytes, nullptr, false);
        if (!doc.is_discarded()) {
            if (!json(doc))
                return std::string(bytes);
            int indent = -1;
            if (const std::size_t nl = bytes.find('\n', first); nl != std::string_view::npos && nl + 1 < bytes.size()) {
                const std::size_t next = bytes.find_first_not_of(' ', nl + 1);
                if (next != std::string_view::npos && next > nl + 1 && bytes[next] != '\n')
                    indent = int(next - nl - 1);
            }
            std::string out = doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
            if (!bytes.empty() && bytes.back() == '\n')
                out += '\n';
            return out;
        }
    }
    // JSON Lines (and any other text): line by line.
    std::string out;
    out.reserve(bytes.size());
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        std::size_t eol = bytes.find('\n', pos);
        const std::size_t end = eol == std::string_view::npos ? bytes.size() : eol;
        std::size_t contentEnd = end;
        if (contentEnd > pos && bytes[contentEnd - 1] == '\r')
            --contentEnd;
        const std::string_view line = bytes.substr(pos, contentEnd - pos);
        const std::size_t lf = line.find_first_not_of(" \t");
        bool done = false;
        if (lf != std::string_view::npos && (line[lf] == '{' || line[lf] == '[')) {
            auto j = nlohmann::ordered_json::parse(line, nullptr, false);
            if (!j.is_discarded()) {
                if (json(j))
                    out += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
                else
                    out.append(line);
                done = true;
            }
        }
        if (!done)
            out += text(line);
        out.append(bytes.substr(contentEnd, end - contentEnd)); // "\r"
        if (eol == std::string_view::npos)
            break;
        out += '\n';
        pos = eol + 1;
    }
    return out;
}

std::map<std::string, std::size_t> Redactor::countsByRule() const
{
    std::map<std::string, std::size_t> counts;
    for (const Secret &s : m_secrets)
        counts[s.rule] += s.occurrences;
    return counts;
}

std::size_t Redactor::occurrences() const
{
    std::size_t n = 0;
    for (const Secret &s : m_secrets)
        n += s.occurrences;
    return n;
}

std::string countsText(const Redactor &r)
{
    std::string s;
    for (const auto &[rule, n] : r.countsByRule())
        s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + rule;
    return s;
}

namespace {

void redactMessages(Transcript &t, Redactor &r)
{
    for (Message &m : t.messages) {
        bool changed = false;
        for (Block &b : m.blocks) {
            const std::string before = b.text;
            const bool json = b.type == BlockType::Raw || (b.type == BlockType::ToolResult && b.serverSide);
            b.text = json ? r.jsonOrText(b.text) : r.text(b.text);
            changed = changed || b.text != before;
            changed = r.json(b.input) || changed;
        }
        changed = r.json(m.meta) || changed;
        if (changed) {
            m.cache.tokenEstimate = -1;
            m.cache.textIndex = TextIndex{};
        }
    }
    r.json(t.header);
}

} // namespace

std::shared_ptr<Transcript> redactedCopy(const Transcript &t, Redactor &r)
{
    auto copy = std::make_shared<Transcript>(t);
    redactMessages(*copy, r);
    // Records and the buffer stay as read: renderers go by the messages (core/report reads no record
    // bytes); a transcript file is redacted as bytes when it is written (Redactor::fileBytes).
    for (auto &sub : copy->subagents)
        if (sub)
            sub = redactedCopy(*sub, r);
    return copy;
}

std::vector<MessageHit> hitsByMessage(const Transcript &redacted, const Redactor &r)
{
    std::vector<MessageHit> out;
    std::vector<bool> seen(r.secrets().size(), false);
    auto scan = [&](std::string_view text, std::int64_t message, std::set<std::size_t> &inMessage) {
        for (std::size_t at = text.find("[REDACTED:"); at != std::string_view::npos; at = text.find("[REDACTED:", at + 1)) {
            const std::size_t end = text.find(']', at);
            if (end == std::string_view::npos)
                break;
            const std::string_view placeholder = text.substr(at, end - at + 1);
            for (std::size_t i = 0; i < r.secrets().size(); ++i)
                if (r.secrets()[i].placeholder == placeholder && inMessage.insert(i).second) {
                    out.push_back({message, &r.secrets()[i]});
                    seen[i] = true;
                }
        }
    };
    for (std::size_t mi = 0; mi < redacted.messages.size(); ++mi) {
        const Message &m = redacted.messages[mi];
        std::set<std::size_t> inMessage;
        for (const Block &b : m.blocks) {
            scan(b.text, std::int64_t(mi), inMessage);
            if (!b.input.is_null())
                scan(b.input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), std::int64_t(mi), inMessage);
        }
        if (!m.meta.is_null())
            scan(m.meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), std::int64_t(mi), inMessage);
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (!seen[i])
            out.push_back({-1, &r.secrets()[i]});
    return out;
}

} // namespace cl::redact
