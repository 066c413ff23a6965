// SPDX-License-Identifier: MIT
#pragma once

// Helpers of the Claude Code session tests (tst_claudecode, tst_claudebranch): loading from a path
// or from text, hand-made lines, and counts over the loaded transcript.

#include "core/formats/formats.h"
#include "core/io/loader.h"
#include "core/io/writer.h"

#include <QtGlobal>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

namespace claudecode_fixture {

using namespace cl;

inline std::shared_ptr<Transcript> loadPath(const std::string &path, bool subagents = false)
{
    LoadOptions o;
    o.loadSubagents = subagents;
    LoadResult r = loadFile(path, o);
    return r.transcript;
}

inline std::shared_ptr<Transcript> loadText(std::string text, int threads = 2)
{
    LoadOptions o;
    o.format = Format::ClaudeCode;
    o.loadSubagents = false;
    o.threads = threads;
    return loadBytes(std::move(text), "mem.jsonl", o).transcript;
}

inline std::string fixture(const char *name) { return std::string(CL_TEST_DATA_DIR) + "/claudecode/" + name; }

inline std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

inline bool hasDiag(const Transcript &t, std::uint32_t line, const std::string &text)
{
    for (const auto &d : t.diagnostics)
        if ((line == 0 || d.line == line) && d.message.find(text) != std::string::npos)
            return true;
    return false;
}

inline int errors(const Transcript &t)
{
    int n = 0;
    for (const auto &d : t.diagnostics)
        if (d.severity == Diagnostic::Severity::Error) {
            qWarning("%s", d.toString().c_str());
            ++n;
        }
    return n;
}

inline int pairs(const Transcript &t)
{
    int n = 0;
    for (const auto &m : t.messages)
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolUse && b.pairMessage >= 0)
                ++n;
    return n;
}

inline int count(const Transcript &t, Role role, MessageKind kind = MessageKind::Conversation)
{
    int n = 0;
    for (const auto &m : t.messages)
        n += m.role == role && m.kind == kind;
    return n;
}

inline std::string userLine(const std::string &uuid, const std::string &parent, const std::string &content)
{
    return R"({"parentUuid":)" + (parent.empty() ? std::string("null") : '"' + parent + '"')
           + R"(,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":)" + content
           + R"(},"uuid":")" + uuid + R"(","timestamp":"2026-01-01T00:00:00.000Z"})" + "\n";
}

inline std::string assistantLine(const std::string &uuid, const std::string &parent, const std::string &text)
{
    return R"({"parentUuid":")" + parent + R"(","isSidechain":false,"sessionId":"s","type":"assistant","message":{"id":"msg_)"
           + uuid + R"(","role":"assistant","content":[{"type":"text","text":")" + text + R"("}]},"uuid":")" + uuid
           + R"(","timestamp":"2026-01-01T00:00:01.000Z"})" + "\n";
}

inline std::shared_ptr<Transcript> reload(const WriteResult &w) { return loadText(w.bytes); }

} // namespace claudecode_fixture
