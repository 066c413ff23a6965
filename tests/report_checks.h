// SPDX-License-Identifier: MIT
#pragma once

// Readers of the reports for tests/tst_report.cpp: a tag-balance check of the HTML, the figures it
// carries in data-key attributes, the points of its usage chart, Markdown headings and fences.

#include <QRegularExpression>
#include <QString>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace cl::test {

// Every element that must close does, in order; every '<' in text starts a tag, a comment or a
// doctype (transcript text is escaped); the style element's content is skipped. Empty when well
// formed, else what is wrong and where.
inline std::string htmlProblems(const std::string &html)
{
    static const std::set<std::string> voidElements = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source"};
    std::vector<std::string> open;
    std::size_t i = 0;
    while ((i = html.find('<', i)) != std::string::npos) {
        if (html.compare(i, 4, "<!--") == 0) {
            i = html.find("-->", i);
            if (i == std::string::npos)
                return "unclosed comment";
            continue;
        }
        if (html.compare(i, 2, "<!") == 0) {
            i = html.find('>', i);
            continue;
        }
        const bool closing = i + 1 < html.size() && html[i + 1] == '/';
        std::size_t n = i + (closing ? 2 : 1);
        const std::size_t nameStart = n;
        while (n < html.size() && (std::isalnum(static_cast<unsigned char>(html[n])) || html[n] == '-'))
            ++n;
        if (n == nameStart)
            return "a bare '<' at byte " + std::to_string(i) + ": " + html.substr(i, 40);
        const std::string name = html.substr(nameStart, n - nameStart);
        const std::size_t end = html.find('>', n);
        if (end == std::string::npos)
            return "unterminated tag " + name;
        if (closing) {
            if (open.empty() || open.back() != name)
                return "</" + name + "> at byte " + std::to_string(i) + " closes " + (open.empty() ? std::string("nothing") : "<" + open.back() + ">");
            open.pop_back();
        } else if (html[end - 1] != '/' && !voidElements.count(name)) {
            open.push_back(name);
            if (name == "style") { // raw text up to its end tag
                const std::size_t close = html.find("</style>", end);
                if (close == std::string::npos)
                    return "unclosed style";
                i = close;
                continue;
            }
        }
        i = end + 1;
    }
    if (!open.empty())
        return "<" + open.back() + "> never closed (" + std::to_string(open.size()) + " open)";
    return {};
}

// The text of the element right after data-key="key" within `scope` (cards: the value div; rows:
// the value cell; compare cells: the cell itself). Empty when absent.
inline std::string figure(const std::string &scope, const std::string &key)
{
    const QString s = QString::fromStdString(scope);
    const QString k = QRegularExpression::escape(QString::fromStdString(key));
    for (const QString &pattern : {QStringLiteral("data-key=\"%1\"><div class=\"v\">([^<]*)</div>"),
                                   QStringLiteral("<tr data-key=\"%1\"><th>[^<]*</th><td class=\"n\">([^<]*)</td>"),
                                   QStringLiteral("data-key=\"%1\">([^<]*)<")}) {
        const auto m = QRegularExpression(pattern.arg(k)).match(s);
        if (m.hasMatch())
            return m.captured(1).toStdString();
    }
    return {};
}

// From `start` (e.g. `data-strategy="x"`) to the end of its element `endTag`.
inline std::string scopeOf(const std::string &html, const std::string &start, const std::string &endTag)
{
    const std::size_t a = html.find(start);
    if (a == std::string::npos)
        return {};
    const std::size_t b = html.find(endTag, a);
    return html.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// Points of every polyline of one series of the usage chart.
inline std::size_t seriesPoints(const std::string &html, const std::string &series)
{
    std::size_t points = 0;
    const std::string tag = "data-series=\"" + series + "\" points=\"";
    for (std::size_t i = html.find(tag); i != std::string::npos; i = html.find(tag, i + 1)) {
        const std::size_t from = i + tag.size();
        const std::string list = html.substr(from, html.find('"', from) - from);
        points += list.empty() ? 0 : std::size_t(std::count(list.begin(), list.end(), ' ')) + 1;
    }
    return points;
}

inline std::size_t occurrences(const std::string &text, const std::string &what)
{
    std::size_t n = 0;
    for (std::size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + what.size()))
        ++n;
    return n;
}

// Markdown: the lines outside code fences (CommonMark fences of ``` or ~~~), and whether a fence is
// left open at the end.
struct MarkdownLines {
    std::vector<std::string> outside;
    bool fenceOpen = false;
};
inline MarkdownLines markdownLines(const std::string &md)
{
    MarkdownLines r;
    std::string fence;
    std::size_t pos = 0;
    while (pos < md.size()) {
        std::size_t eol = md.find('\n', pos);
        if (eol == std::string::npos)
            eol = md.size();
        const std::string line = md.substr(pos, eol - pos);
        pos = eol + 1;
        const std::size_t lead = std::min(line.find_first_not_of(' '), std::size_t(4));
        std::size_t run = 0;
        if (lead < 4)
            while (lead + run < line.size() && (line[lead + run] == '`' || line[lead + run] == '~') && line[lead + run] == line[lead])
                ++run;
        if (fence.empty()) {
            if (run >= 3 && !(line[lead] == '`' && line.find('`', lead + run) != std::string::npos)) {
                fence = line.substr(lead, run);
                continue;
            }
            r.outside.push_back(line);
        } else if (run >= fence.size() && line[lead] == fence[0] && line.find_first_not_of(" \t", lead + run) == std::string::npos) {
            fence.clear();
        }
    }
    r.fenceOpen = !fence.empty();
    return r;
}

} // namespace cl::test
