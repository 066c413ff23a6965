// SPDX-License-Identifier: MIT
#pragma once

// Inputs of tests/tst_report.cpp: a Claude Code session with hostile text, and the browser that
// renders the report (Debian's chromium) with a reader of its screenshot's colours.

#include <QImage>
#include <QRect>
#include <QStandardPaths>
#include <QString>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

namespace cl::test {

// A Claude Code session with hostile text: HTML in a request, in a path and in a tool result, a
// compaction (so that the request and path show as facts) and a long result.
inline std::string hostileSession()
{
    auto line = [](nlohmann::json fields) {
        nlohmann::json o = {{"isSidechain", false}, {"userType", "external"}, {"cwd", "/w"}, {"sessionId", "s1"}, {"version", "2.1.0"}};
        o.update(fields);
        return o.dump() + "\n";
    };
    auto at = [](int s) { return "2025-12-01T09:00:" + std::string(s < 10 ? "0" : "") + std::to_string(s) + ".000Z"; };
    auto user = [&](const char *uuid, const char *parent, nlohmann::json content, int s) {
        return line({{"type", "user"}, {"uuid", uuid}, {"parentUuid", parent ? nlohmann::json(parent) : nlohmann::json(nullptr)}, {"timestamp", at(s)}, {"message", {{"role", "user"}, {"content", content}}}});
    };
    auto assistant = [&](const char *uuid, const char *parent, nlohmann::json content, int s) {
        return line({{"type", "assistant"}, {"uuid", uuid}, {"parentUuid", parent}, {"timestamp", at(s)}, {"message", {{"id", std::string("msg_") + uuid}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", content}, {"usage", {{"input_tokens", 900}, {"cache_read_input_tokens", 9000 + 100 * s}, {"output_tokens", 50}}}}}});
    };
    std::string big;
    for (int i = 0; i < 600; ++i)
        big += "line " + std::to_string(i) + " of the parser source\n";
    return user("u1", nullptr, "<script>alert(1)</script> please fix /src/a.py", 1)
           + assistant("a1", "u1", nlohmann::json::array({{{"type", "tool_use"}, {"id", "t1"}, {"name", "Read"}, {"input", {{"file_path", "/src/<b>x</b>.py"}}}}}), 2)
           + user("u2", "a1", nlohmann::json::array({{{"type", "tool_result"}, {"tool_use_id", "t1"}, {"content", "<img src=x onerror=alert(2)>\n" + big}}}), 3)
           + assistant("a2", "u2", nlohmann::json::array({{{"type", "text"}, {"text", "Found it. ```unclosed fence"}}}), 4)
           + line({{"type", "system"}, {"subtype", "compact_boundary"}, {"uuid", "b1"}, {"parentUuid", nullptr}, {"logicalParentUuid", "a2"}, {"timestamp", at(5)}, {"content", "Conversation compacted"}, {"compactMetadata", {{"trigger", "auto"}, {"preTokens", 12345}}}})
           + line({{"type", "user"}, {"uuid", "u3"}, {"parentUuid", "b1"}, {"isCompactSummary", true}, {"timestamp", at(6)}, {"message", {{"role", "user"}, {"content", "Summary: fixing /src/a.py"}}}})
           + user("u4", "u3", "go on & finish <it>", 7)
           + assistant("a4", "u4", nlohmann::json::array({{{"type", "thinking"}, {"thinking", "Let me think"}, {"signature", "x"}}, {{"type", "text"}, {"text", "Done: `<ok>` in code.\n```\n<pre>kept</pre>\n"}}}), 8);
}

inline std::string chromium()
{
    for (const char *name : {"chromium", "chromium-browser"})
        if (const QString p = QStandardPaths::findExecutable(QString::fromLatin1(name)); !p.isEmpty())
            return p.toStdString();
    return {};
}

// Pixels within `tolerance` of an RGB colour, and their bounding box.
struct ColourHits {
    int count = 0;
    QRect box;
};
inline ColourHits hits(const QImage &img, QRgb colour, int tolerance = 8)
{
    ColourHits h;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QRgb p = img.pixel(x, y);
            if (std::abs(qRed(p) - qRed(colour)) <= tolerance && std::abs(qGreen(p) - qGreen(colour)) <= tolerance
                && std::abs(qBlue(p) - qBlue(colour)) <= tolerance) {
                ++h.count;
                h.box = h.box.united(QRect(x, y, 1, 1));
            }
        }
    return h;
}

} // namespace cl::test
