// SPDX-License-Identifier: MIT
#include "core/report/textformat.h"

#include "core/util/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::report {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

bool isContinuation(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

bool closesFence(std::string_view line, std::string_view open)
{
    const std::string_view f = fenceOf(line);
    if (f.empty() || f[0] != open[0] || f.size() < open.size())
        return false;
    const std::size_t end = line.find(f) + f.size();
    return line.find_first_not_of(" \t", end) == std::string_view::npos;
}

// One line outside a fence: code spans verbatim, '<' and '&' elsewhere as entities.
void appendEscapedLine(std::string &out, std::string_view line)
{
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == '`') {
            std::size_t run = i;
            while (run < line.size() && line[run] == '`')
                ++run;
            const std::size_t len = run - i;
            // The closing run of exactly the same length.
            std::size_t close = run;
            while ((close = line.find('`', close)) != std::string_view::npos) {
                std::size_t e = close;
                while (e < line.size() && line[e] == '`')
                    ++e;
                if (e - close == len)
                    break;
                close = e;
            }
            if (close == std::string_view::npos) {
                out.append(line.substr(i, len));
                i = run;
            } else {
                out.append(line.substr(i, close + len - i));
                i = close + len;
            }
            continue;
        }
        if (c == '<')
            out.append("&lt;");
        else if (c == '&')
            out.append("&amp;");
        else
            out.push_back(c);
        ++i;
    }
}

} // namespace

std::string cleanText(std::string_view s)
{
    const std::string valid = json::isValidUtf8(s) ? std::string(s) : json::sanitizeUtf8(s);
    std::string out;
    out.reserve(valid.size());
    for (std::size_t i = 0; i < valid.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(valid[i]);
        if (c == '\r') {
            if (i + 1 < valid.size() && valid[i + 1] == '\n')
                continue;
            out.push_back('\n');
        } else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
            out.append(kReplacement);
        } else {
            out.push_back(char(c));
        }
    }
    return out;
}

std::string htmlEscape(std::string_view s)
{
    const std::string clean = cleanText(s);
    std::string out;
    out.reserve(clean.size() + clean.size() / 8);
    for (const char c : clean) {
        switch (c) {
        case '&': out.append("&amp;"); break;
        case '<': out.append("&lt;"); break;
        case '>': out.append("&gt;"); break;
        case '"': out.append("&quot;"); break;
        case '\'': out.append("&#39;"); break;
        default: out.push_back(c);
        }
    }
    return out;
}

std::size_t utf8Length(std::string_view s)
{
    return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return !isContinuation(c); }));
}

std::string_view utf8Prefix(std::string_view s, std::size_t maxChars)
{
    std::size_t chars = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (isContinuation(s[i]))
            continue;
        if (chars == maxChars)
            return s.substr(0, i);
        ++chars;
    }
    return s;
}

std::string excerpt(std::string_view s, std::size_t maxChars)
{
    const std::string_view line = s.substr(0, s.find('\n'));
    const std::string_view cut = utf8Prefix(line, maxChars);
    return std::string(cut) + (cut.size() < line.size() || line.size() < s.size() ? "\u2026" : "");
}

std::string markdownText(std::string_view text)
{
    const std::string s = cleanText(text);
    std::string out;
    out.reserve(s.size() + 16);
    std::string openFence;
    std::size_t pos = 0;
    while (pos < s.size()) {
        std::size_t eol = s.find('\n', pos);
        if (eol == std::string::npos)
            eol = s.size();
        const std::string_view line = std::string_view(s).substr(pos, eol - pos);
        if (!openFence.empty()) {
            out.append(line);
            if (closesFence(line, openFence))
                openFence.clear();
        } else if (const std::string_view f = fenceOf(line); !f.empty()) {
            out.append(line);
            openFence = std::string(f);
        } else {
            appendEscapedLine(out, line);
        }
        out.push_back('\n');
        pos = eol + 1;
    }
    if (!openFence.empty())
        out.append(openFence).push_back('\n');
    return out;
}

std::string markdownInline(std::string_view text)
{
    const std::string s = cleanText(text);
    std::string out;
    out.reserve(s.size() + 8);
    for (const char c : s) {
        switch (c) {
        case '\n':
        case '\t': out.push_back(' '); break;
        case '<': out.append("&lt;"); break;
        case '&': out.append("&amp;"); break;
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '|':
        case '#':
        case '>':
        case '~':
        case '!':
            out.push_back('\\');
            out.push_back(c);
            break;
        default: out.push_back(c);
        }
    }
    return out;
}

std::string markdownFence(std::string_view text, std::string_view info)
{
    const std::string s = cleanText(text);
    std::size_t longest = 0, run = 0;
    for (const char c : s) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    std::string out = fence + std::string(info) + "\n" + s;
    if (!s.empty() && s.back() != '\n')
        out.push_back('\n');
    return out + fence + "\n";
}

std::string percent(double share, int decimals)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f %%", decimals, std::isfinite(share) ? 100.0 * share : 0.0);
    return buf;
}

std::string shortTokens(std::int64_t n)
{
    const std::int64_t a = n < 0 ? -n : n;
    if (a < 1000)
        return std::to_string(n);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", double(n) / (a >= 1000000 ? 1e6 : 1e3));
    std::string s = buf;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
        s.resize(s.size() - 2);
    return s + (a >= 1000000 ? "M" : "k");
}

std::string_view fenceOf(std::string_view line)
{
    std::size_t i = 0;
    while (i < line.size() && i < 3 && line[i] == ' ')
        ++i;
    if (i >= line.size() || (line[i] != '`' && line[i] != '~'))
        return {};
    const char c = line[i];
    std::size_t n = i;
    while (n < line.size() && line[n] == c)
        ++n;
    if (n - i < 3)
        return {};
    // A backtick fence's info string may not contain a backtick.
    if (c == '`' && line.find('`', n) != std::string_view::npos)
        return {};
    return line.substr(i, n - i);
}

} // namespace cl::report
