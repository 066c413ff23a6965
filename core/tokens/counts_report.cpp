// SPDX-License-Identifier: MIT
// How far the seed 001 estimator and chars/4 are from exact o200k counts, by content type.
#include "core/tokens/counts.h"

#include "core/util/json.h"
#include "core/tokens/estimator.h"
#include "core/util/spaces.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <unordered_set>
#include <vector>

namespace cl::tokencount {

std::string_view contentTypeName(ContentType c)
{
    switch (c) {
    case ContentType::Prose: return "prose";
    case ContentType::Code: return "code";
    case ContentType::Json: return "json";
    case ContentType::Cjk: return "cjk";
    case ContentType::Base64: return "base64";
    }
    return "prose";
}

namespace {

constexpr std::size_t kTypes = 5;

std::string_view trim(std::string_view s)
{
    return util::trimSpaces(s);
}

bool isBase64(std::string_view s)
{
    if (s.size() < 64)
        return false;
    bool digit = false, upper = false, lowerCase = false;
    for (const char c : s) {
        if (c >= '0' && c <= '9')
            digit = true;
        else if (c >= 'A' && c <= 'Z')
            upper = true;
        else if (c >= 'a' && c <= 'z')
            lowerCase = true;
        else if (c != '+' && c != '/' && c != '=' && c != '_' && c != '-' && c != '\n' && c != '\r')
            return false;
    }
    return digit && upper && lowerCase;
}

// Decodes one UTF-8 code point at s[i] (invalid bytes count as one code point each).
char32_t codePoint(std::string_view s, std::size_t &i)
{
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2
                         : (c >> 4) == 14  ? 3
                         : (c >> 3) == 30  ? 4
                                           : 1;
    if (i + std::size_t(len) > s.size())
        len = 1;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F)
                             : len == 3   ? (c & 0x0F)
                                          : (c & 0x07);
    for (int k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + std::size_t(k)]) & 0x3F);
    i += std::size_t(len);
    return cp;
}

bool isCjk(char32_t c)
{
    return (c >= 0x3040 && c <= 0x30FF)     // hiragana, katakana
           || (c >= 0x3400 && c <= 0x4DBF)  // CJK extension A
           || (c >= 0x4E00 && c <= 0x9FFF)  // CJK unified ideographs
           || (c >= 0xAC00 && c <= 0xD7AF)  // hangul syllables
           || (c >= 0xF900 && c <= 0xFAFF)  // compatibility ideographs
           || (c >= 0xFF00 && c <= 0xFFEF)  // fullwidth forms
           || (c >= 0x3000 && c <= 0x303F); // CJK punctuation
}

bool cjkShare(std::string_view s)
{
    std::size_t cjk = 0, all = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) { // ASCII: never CJK
            const char c = s[i++];
            all += !(c == ' ' || c == '\n' || c == '\t' || c == '\r');
            continue;
        }
        const char32_t c = codePoint(s, i);
        ++all;
        cjk += isCjk(c);
    }
    return all && cjk * 5 >= all;
}

bool looksLikeCodeLine(std::string_view line)
{
    line = trim(line);
    if (line.empty())
        return false;
    const char last = line.back();
    if (last == ';' || last == '{' || last == '}')
        return true;
    for (std::string_view kw : {"def ", "import ", "from ", "#include", "return", "function ", "class ", "const ", "let ",
                                "var ", "if (", "for (", "while (", "fn ", "pub ", "struct ", "#!/", "//", "/*", "} "})
        if (line.substr(0, kw.size()) == kw)
            return true;
    return false;
}

bool isCode(std::string_view s)
{
    if (s.find("```") != std::string_view::npos)
        return true;
    std::size_t lines = 0, code = 0;
    for (std::size_t pos = 0; pos < s.size();) {
        std::size_t nl = s.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = s.size();
        const std::string_view line = s.substr(pos, nl - pos);
        pos = nl + 1;
        if (trim(line).empty())
            continue;
        ++lines;
        code += looksLikeCodeLine(line);
    }
    if (lines && code * 10 >= lines * 3)
        return true;
    static const auto symbol = [] {
        std::array<bool, 256> t{};
        for (const char c : std::string_view("{}()[];=<>"))
            t[static_cast<unsigned char>(c)] = true;
        return t;
    }();
    std::size_t symbols = 0;
    for (const char c : s)
        symbols += symbol[static_cast<unsigned char>(c)];
    return !s.empty() && symbols * 100 >= s.size() * 6;
}

void add(ReportRow &row, std::string_view text, const bpe::Tokenizer &tok)
{
    ++row.samples;
    row.exact += std::int64_t(tok.count(text));
    row.estimator += tokens::estimateText(text);
    row.charsDiv4 += charsDiv4(text);
}

ErrorTable finish(const std::array<ReportRow, kTypes> &rows)
{
    ErrorTable t;
    for (std::size_t k = 0; k < kTypes; ++k) {
        if (!rows[k].samples)
            continue;
        t.rows.push_back(rows[k]);
        t.rows.back().type = ContentType(k);
        t.total.samples += rows[k].samples;
        t.total.exact += rows[k].exact;
        t.total.estimator += rows[k].estimator;
        t.total.charsDiv4 += rows[k].charsDiv4;
    }
    return t;
}

} // namespace

ContentType classify(std::string_view text)
{
    const std::string_view s = trim(text);
    if (isBase64(s))
        return ContentType::Base64;
    if (!s.empty() && (s.front() == '{' || s.front() == '[') && nlohmann::json::accept(s))
        return ContentType::Json;
    if (cjkShare(s))
        return ContentType::Cjk;
    if (isCode(s))
        return ContentType::Code;
    return ContentType::Prose;
}

std::int64_t charsDiv4(std::string_view text)
{
    std::int64_t chars = 0;
    for (std::size_t i = 0; i < text.size();) {
        codePoint(text, i);
        ++chars;
    }
    return (chars + 3) / 4;
}

ErrorTable estimatorErrorTable(const std::vector<std::string_view> &samples, const bpe::Tokenizer &o200k)
{
    std::array<ReportRow, kTypes> rows{};
    for (const auto s : samples)
        if (!s.empty())
            add(rows[std::size_t(classify(s))], s, o200k);
    return finish(rows);
}

namespace {

// Calls f(text, knownType) for every sample of the table: tool inputs as JSON (known to be JSON by
// construction), text / thinking / tool result texts (type to classify: nullopt). Stops when f
// returns false; returns whether it went through.
template <class F> bool forEachSample(const Transcript &t, F &&f)
{
    for (const auto &m : t.messages) {
        if (!m.isConversation())
            continue;
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolUse) {
                const std::string input = b.input.is_null() ? std::string("{}") : json::dump(b.input);
                if (!f(std::string_view(input), std::optional<ContentType>(ContentType::Json)))
                    return false;
            } else if ((b.type == BlockType::Text || b.type == BlockType::Thinking || b.type == BlockType::ToolResult)
                       && !b.text.empty()) {
                if (!f(std::string_view(b.text), std::optional<ContentType>()))
                    return false;
            }
        }
    }
    return true;
}

} // namespace

ErrorTable estimatorErrorTable(const Transcript &t, const bpe::Tokenizer &o200k)
{
    std::array<ReportRow, kTypes> rows{};
    forEachSample(t, [&](std::string_view text, std::optional<ContentType> type) {
        add(rows[std::size_t(type ? *type : classify(text))], text, o200k);
        return true;
    });
    return finish(rows);
}

std::size_t SampleCache::size() const
{
    const std::lock_guard lock(m_mutex);
    return m_entries.size();
}

std::size_t SampleCache::computed() const
{
    const std::lock_guard lock(m_mutex);
    return m_computed;
}

std::optional<ErrorTable> estimatorErrorTable(const Transcript &t, const bpe::Tokenizer &o200k, SampleCache &cache,
                                              const std::atomic<bool> *cancel)
{
    const std::lock_guard lock(cache.m_mutex);
    const std::uint64_t encoding = std::uint64_t(o200k.encoding()) * 0x9E3779B97F4A7C15ull;
    const auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    // First the samples' keys, and the samples the cache does not have (each once); then those are
    // counted on two threads (the exact count is most of the work: a second a 50 MB session); then
    // the rows are summed from the cache.
    struct Missing {
        std::string_view text;
        std::optional<ContentType> type;
        std::uint64_t key = 0;
        SampleCache::Entry entry;
    };
    std::vector<std::uint64_t> keys;
    std::vector<Missing> missing;
    std::unordered_set<std::uint64_t> pending;
    std::deque<std::string> inputs; // tool inputs dumped for the walk, kept for the count
    const bool walked = forEachSample(t, [&](std::string_view text, std::optional<ContentType> type) {
        if (cancelled())
            return false;
        // The known type is part of the key: a tool input and a text with the same bytes differ.
        const std::uint64_t key = std::hash<std::string_view>{}(text) ^ encoding ^ (type ? 0x5851F42D4C957F2Dull : 0);
        keys.push_back(key);
        const auto it = cache.m_entries.find(key);
        if ((it == cache.m_entries.end() || it->second.bytes != text.size()) && pending.insert(key).second)
            // A known type is a tool input dumped for this call only.
            missing.push_back({type ? std::string_view(inputs.emplace_back(text)) : text, type, key, {}});
        return true;
    });
    if (!walked)
        return std::nullopt;
    constexpr std::size_t kOneThread = 8; // so few samples are counted before a second thread starts
    const bool alone = missing.size() <= kOneThread || util::defaultThreads() < 2;
    std::atomic<std::size_t> next{0};
    std::atomic_bool stopped{false};
    const auto count = [&](std::size_t) {
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < missing.size();) {
            if (cancelled()) {
                stopped = true;
                return;
            }
            Missing &m = missing[i];
            m.entry.bytes = m.text.size();
            m.entry.type = m.type ? *m.type : classify(m.text);
            // A huge text among few: split at safe cuts over both threads (else one thread has it all).
            m.entry.exact = std::int64_t(alone && m.text.size() > (std::size_t(1) << 20) ? o200k.countParallel(m.text, 2)
                                                                                         : o200k.count(m.text));
            m.entry.estimator = tokens::estimateText(m.text);
            m.entry.charsDiv4 = charsDiv4(m.text);
        }
    };
    if (alone)
        count(0);
    else
        onTwoThreads(count);
    if (stopped)
        return std::nullopt;
    for (const Missing &m : missing) {
        cache.m_entries.insert_or_assign(m.key, m.entry);
        ++cache.m_computed;
    }
    std::array<ReportRow, kTypes> rows{};
    for (const std::uint64_t key : keys) {
        const SampleCache::Entry &e = cache.m_entries.at(key);
        ReportRow &row = rows[std::size_t(e.type)];
        ++row.samples;
        row.exact += e.exact;
        row.estimator += e.estimator;
        row.charsDiv4 += e.charsDiv4;
    }
    return finish(rows);
}

std::string formatTable(const ErrorTable &table)
{
    std::string s;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-8s %8s %12s %12s %8s %12s %8s\n", "type", "samples", "exact", "estimator", "error",
                  "chars/4", "error");
    s += buf;
    auto row = [&](std::string_view name, const ReportRow &r) {
        std::snprintf(buf, sizeof buf, "%-8.*s %8zu %12lld %12lld %7.1f%% %12lld %7.1f%%\n", int(name.size()), name.data(),
                      r.samples, static_cast<long long>(r.exact), static_cast<long long>(r.estimator),
                      r.estimatorErrorPercent(), static_cast<long long>(r.charsDiv4), r.charsErrorPercent());
        s += buf;
    };
    for (const auto &r : table.rows)
        row(contentTypeName(r.type), r);
    row("total", table.total);
    return s;
}

} // namespace cl::tokencount
